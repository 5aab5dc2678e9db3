"""The domain stays readable (issue 29): no module over 500 lines, no function over 50, and
`Any` kept to the JSON edge (at most 20 uses in domain/, none in a public signature; today
there are none: JSON values are `domain.shapes.JSON`, views and moves their TypedDicts)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

DOMAIN = Path(__file__).resolve().parents[2] / "domain"
SOURCES = sorted(DOMAIN.rglob("*.py"))
MAX_MODULE, MAX_FUNCTION, MAX_ANY = 500, 50, 20


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(DOMAIN)))
def test_modules_and_functions_stay_small(path: Path) -> None:
    text = path.read_text()
    assert len(text.splitlines()) <= MAX_MODULE, f"{path.name}: split it by concern"
    long = [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION
    ]
    assert long == []


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
