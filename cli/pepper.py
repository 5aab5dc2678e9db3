"""The token pepper of `deadwood up` (issue 11): kept in the data directory, made once.

With no `DEADWOOD_TOKEN_PEPPER` in the environment, the launcher reads `<data dir>/token_pepper`,
or on the first start writes 32 random bytes (url-safe text) there with mode 0600, and hands it
to the API and the worker. Seat tokens and the match ids of keyed creates are keyed by it, so
the file must be kept with the Redis data: a new pepper makes every existing seat token fail.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path

PEPPER_FILE = "token_pepper"
ENV = "DEADWOOD_TOKEN_PEPPER"


def pepper_env(data_dir: Path, say: Callable[[str], None]) -> dict[str, str]:
    """{ENV: pepper} for the children; {} when the environment already sets one."""
    if os.environ.get(ENV):
        return {}
    path = data_dir / PEPPER_FILE
    pepper = _read(path)
    if pepper is None:
        pepper = _create(path)
        say(f"generated a new token pepper in {path} (mode 0600; keep it with the data)")
    else:
        say(f"token pepper from {path}")
    return {ENV: pepper}


def _read(path: Path) -> str | None:
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        return None
    if len(text) < 32:
        raise SystemExit(f"deadwood: {path} holds no usable pepper (delete it to make a new one)")
    os.chmod(path, 0o600)
    return text


def _create(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    pepper = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(pepper + "\n")
    return pepper
