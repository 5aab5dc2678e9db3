"""Snapshots of folded state, so a long match loads in constant time.

Every `snapshot_every` events (64) the append also writes `match:{<id>}:snap`: JSON
`{"code": <tag>, "version": n, "state": <encoded state>}`. Loading reads the snapshot and folds
only the events after it. Every `keep_every` events (256) the append also keeps the snapshot
in `match:{<id>}:snaps`, a sorted set scored by version (issue 28 item 5), so the match as it
was after any event (`?at=`, `/events?after=`) folds from the nearest kept one at or before
it: at most about 256 events. A read that has to fold further (a match older than the kept
snapshots, or kept ones other rules code wrote) keeps the ones it passes. Like the latest
snapshot, the kept ones hold the whole state (every hand, the deal key): they are read by
the server only, never served, and carry the match's hash tag.

The encoding is a small tagged JSON form of what domain states are made of (frozen
dataclasses, tuples, StrEnums, cards, ints, strings, dicts), not pickle: decoding resolves
classes only inside the `domain` package and only dataclasses and enums, so a snapshot can
never run code. A type outside that set makes `encode_state` raise SnapshotError and the
append simply writes no snapshot.

The code tag is a hash of every source file of `domain/` (plus the format number): a snapshot
written by other rules code is ignored and the match is replayed from its events, which are
the only record. So a snapshot is a cache that survives restarts, never a source of truth.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import importlib
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import domain
from domain.cards import Card
from domain.variants import State

FORMAT = 1


class SnapshotError(ValueError):
    """A state (or a stored snapshot) that the snapshot form cannot hold."""


@cache
def code_tag() -> str:
    """A hash of the rules code (every .py file of domain/) and of the snapshot format."""
    digest = hashlib.sha256(f"deadwood-snapshot:{FORMAT}".encode())
    root = Path(domain.__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _class_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


@cache
def _resolve(name: str) -> type:
    module_name, _, qualname = name.partition(":")
    if module_name != "domain" and not module_name.startswith("domain."):
        raise SnapshotError(f"snapshot names class {name!r} outside the domain package")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, type) or not (
        dataclasses.is_dataclass(obj) or issubclass(obj, enum.Enum)
    ):
        raise SnapshotError(f"snapshot names {name!r}, which is not a dataclass or an enum")
    return obj


def encode_value(value: Any) -> Any:
    """The tagged JSON form of a state value."""
    if isinstance(value, enum.Enum):
        return {"e": _class_name(type(value)), "v": value.value}
    if value is None or isinstance(value, bool | int | str | float):
        return value
    if isinstance(value, Card):
        return {"k": str(value)}
    if isinstance(value, tuple):
        return {"t": [encode_value(v) for v in value]}
    if isinstance(value, list):
        return {"l": [encode_value(v) for v in value]}
    if isinstance(value, frozenset):
        return {"fs": [encode_value(v) for v in value]}
    if isinstance(value, dict):
        return {"d": [[encode_value(k), encode_value(v)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode_value(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"c": _class_name(type(value)), "f": fields}
    raise SnapshotError(f"a snapshot cannot hold a {type(value).__name__}")


def decode_value(obj: Any) -> Any:
    """The inverse of `encode_value`."""
    if not isinstance(obj, dict):
        if isinstance(obj, list):
            raise SnapshotError("a bare list in a snapshot")
        return obj
    if "t" in obj:
        return tuple(decode_value(v) for v in obj["t"])
    if "k" in obj:
        return Card.parse(obj["k"])
    if "c" in obj:
        return _build(_resolve(obj["c"]), obj["f"])
    if "e" in obj:
        return _resolve(obj["e"])(obj["v"])
    if "l" in obj:
        return [decode_value(v) for v in obj["l"]]
    if "fs" in obj:
        return frozenset(decode_value(v) for v in obj["fs"])
    if "d" in obj:
        return {decode_value(k): decode_value(v) for k, v in obj["d"]}
    raise SnapshotError(f"unknown snapshot tag in {sorted(obj)}")


def _build(cls: type, fields: dict[str, Any]) -> Any:
    """A dataclass instance with exactly the stored fields (no __init__ or __post_init__ run)."""
    names = {f.name for f in dataclasses.fields(cls)}
    if set(fields) != names:
        raise SnapshotError(f"snapshot fields of {cls.__qualname__} differ from the class")
    obj: Any = object.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(obj, name, decode_value(value))
    return obj


def encode_state(version: int, state: State) -> str:
    """The snapshot of `state` after `version` events (raises SnapshotError)."""
    payload = {"code": code_tag(), "version": version, "state": encode_value(state)}
    return json.dumps(payload, separators=(",", ":"))


_VERSION = re.compile(rb'\{"code":"[0-9a-f]{1,64}","version":([0-9]{1,15}),')


def version_of(raw: bytes | str | None) -> int | None:
    """The version a stored snapshot holds, read from its head without decoding the state
    (None when absent or not in encode_state's form; decode_state still checks the rest)."""
    if raw is None:
        return None
    head = (raw.encode() if isinstance(raw, str) else raw)[:128]
    found = _VERSION.match(head)
    return int(found.group(1)) if found else None


def decode_state(raw: bytes | str | None) -> tuple[int, Any] | None:
    """(version, state) of a stored snapshot, or None when absent, foreign or unreadable."""
    if raw is None:
        return None
    try:
        payload = json.loads(raw)
        if payload.get("code") != code_tag():
            return None
        return int(payload["version"]), decode_value(payload["state"])
    except (ValueError, KeyError, TypeError, AttributeError, ImportError):
        return None
