"""The source stays readable (issue 29): no module over 500 lines and no function over 50, in
every package of the source; and `Any` kept to the JSON edge in domain/ (at most 20 uses, none
in a public signature; today there are none: JSON values are `domain.shapes.JSON`, views and
moves their TypedDicts).

Every package of the source is held to both limits, with no file named as an exception.
clients/ has no Python of its own (clients/python packages deadwood_client/), so it is not
listed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = ROOT / "domain"
SOURCES = sorted(DOMAIN.rglob("*.py"))
MAX_MODULE, MAX_FUNCTION, MAX_ANY = 500, 50, 20

FUNCTIONS_SIZED = ["domain", "store", "api", "workers", "cli", "arena", "deadwood_client"]
MODULES_SIZED = FUNCTIONS_SIZED


def _sources(packages: list[str]) -> list[Path]:
    return sorted(path for package in packages for path in (ROOT / package).rglob("*.py"))


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("package", FUNCTIONS_SIZED)
def test_each_sized_package_has_modules(package: str) -> None:
    """A package listed here is one of the source's (a renamed package is not silently
    dropped from the limits)."""
    assert _sources([package]), f"{package}/: no Python modules"


@pytest.mark.parametrize("path", _sources(MODULES_SIZED), ids=_name)
def test_modules_stay_small(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_MODULE, f"{_name(path)}: {lines} lines; split it by concern"


@pytest.mark.parametrize("path", _sources(FUNCTIONS_SIZED), ids=_name)
def test_functions_stay_small(path: Path) -> None:
    long = [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION
    ]
    assert long == [], f"{_name(path)}: functions over {MAX_FUNCTION} lines"


def test_any_stays_at_the_json_edge() -> None:
    uses = [
        (path.name, n)
        for path in SOURCES
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"\bAny\b", line)
    ]
    assert len(uses) <= MAX_ANY, uses


def test_no_public_signature_takes_or_returns_any() -> None:
    """A public function (no leading underscore) of domain/ names no `Any` in its signature."""
    found = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                annotations = [a.annotation for a in (*node.args.args, *node.args.kwonlyargs)]
                annotations += [node.returns, getattr(node.args.vararg, "annotation", None)]
                annotations += [getattr(node.args.kwarg, "annotation", None)]
                text = " ".join(ast.unparse(a) for a in annotations if a is not None)
                if re.search(r"\bAny\b", text):
                    found.append((path.name, node.name))
    assert found == []
