"""Docs that cannot drift (issue 29): a package doc that maps its modules names every module
of the package and only modules that exist, and so does the README's layout.

A package doc lists a module on a line of its own that starts (after any indent) with the
module's file name, `name.py`; the README names a package's modules as `dir/{a,b,c}`. To
cover another package, add it to `MAPPED` (its doc) or `README_LISTS` (the README's list).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# packages whose __init__ doc is their map
MAPPED = ["domain/manipulation/table"]
# packages the README's layout lists module by module, as `<name>/{a,b,c}`
README_LISTS = {"domain/manipulation/table": "table"}

_LISTED = re.compile(r"^\s*(\w+)\.py\b", re.MULTILINE)


def modules(package: str) -> set[str]:
    """The modules of a package directory (not `__init__`)."""
    return {p.stem for p in (ROOT / package).glob("*.py") if p.stem != "__init__"}


def documented(package: str) -> list[str]:
    """The modules a package doc names, in its order (`name.py` starting a line)."""
    doc = ast.get_docstring(ast.parse((ROOT / package / "__init__.py").read_text())) or ""
    return _LISTED.findall(doc)


def readme_listed(name: str) -> list[str]:
    """The modules the README's layout lists for `name` (`name/{a,b,c}`, maybe over lines)."""
    text = (ROOT / "README.md").read_text()
    found = re.findall(re.escape(name) + r"/\{([^}]*)\}", text)
    assert len(found) == 1, f"the README should list {name}/{{...}} once, found {len(found)}"
    return [part.strip() for part in found[0].split(",") if part.strip()]


@pytest.mark.parametrize("package", MAPPED)
def test_the_package_doc_names_every_module_and_only_those(package: str) -> None:
    listed = documented(package)
    assert len(listed) == len(set(listed)), f"{package}: a module listed twice: {listed}"
    assert set(listed) - modules(package) == set(), f"{package}: listed but not there"
    assert modules(package) - set(listed) == set(), f"{package}: there but not listed"


@pytest.mark.parametrize(("package", "name"), README_LISTS.items())
def test_the_readme_lists_every_module_of_the_package(package: str, name: str) -> None:
    listed = readme_listed(name)
    assert len(listed) == len(set(listed)), f"README {name}/: a module listed twice"
    assert set(listed) - modules(package) == set(), f"README {name}/: listed but not there"
    assert modules(package) - set(listed) == set(), f"README {name}/: there but not listed"


def test_the_package_doc_fits_on_one_screen() -> None:
    """The table map stays a map: at most 60 lines of at most 100 characters."""
    doc = ast.get_docstring(ast.parse((ROOT / MAPPED[0] / "__init__.py").read_text())) or ""
    lines = doc.splitlines()
    assert len(lines) <= 60 and max(map(len, lines)) <= 100
