"""Docs that cannot drift (issue 29): a package doc that maps its modules names every module
of the package and only modules that exist, and so does the README's layout; every path and
every `domain.` name a docstring or the README gives exists.

A package doc lists a module on a line of its own that starts (after any indent) with the
module's file name, `name.py`; the README names a package's modules as `dir/{a,b,c}`. To
cover another package, add it to `MAPPED` (its doc) or `README_LISTS` (the README's list).
Every package of domain/ is mapped, each by its doc naming every module as `name.py` (the
table's and the games' docs, line by line), and so are store/, api/, workers/ and cli/: each
lists its modules a line each, `name.py  what it owns`.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# packages whose __init__ doc is their map: every module on a line of its own
TABLE = "domain/manipulation/table"
MAPPED = [TABLE, "store", "api", "workers", "cli"]
# packages whose __init__ doc names every module as `name.py`, anywhere in its text
NAMED = sorted(str(p.parent.relative_to(ROOT)) for p in (ROOT / "domain").rglob("__init__.py"))
# packages the README's layout lists module by module, as `<name>/{a,b,c}`
README_LISTS = {
    "domain/manipulation/table": "table",
    "domain/gin/melds": "melds",
    "domain/bots/gin": "gin",
    "domain/bots/manipulation": "manipulation",
}
# where docstrings are read for paths and names
SOURCES = ["domain", "store", "api", "workers", "arena", "cli", "deadwood_client", "bench"]
_PATH = re.compile(
    r"(?<![\w./-])((?:domain|store|api|workers|arena|cli|deadwood_client|tests|bench|examples|"
    r"deploy|clients)/[\w/.*@-]*[\w*])"
)
_DOTTED = re.compile(r"(?<![\w.])(domain(?:\.\w+)+)")
_NAMED = re.compile(r"(?<![\w/.])(\w+)\.py\b")

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
    doc = ast.get_docstring(ast.parse((ROOT / TABLE / "__init__.py").read_text())) or ""
    lines = doc.splitlines()
    assert len(lines) <= 60 and max(map(len, lines)) <= 100


@pytest.mark.parametrize("package", NAMED)
def test_each_domain_package_doc_names_its_modules(package: str) -> None:
    """Every module of the package is named in its doc as `name.py`, and every bare
    `name.py` the doc names is a module of the package."""
    doc = ast.get_docstring(ast.parse((ROOT / package / "__init__.py").read_text())) or ""
    named = set(_NAMED.findall(doc))
    assert modules(package) - named == set(), f"{package}: not named in its doc"
    assert named - modules(package) == set(), f"{package}: named but not there"


def _docstrings() -> list[tuple[str, str]]:
    found = []
    for source in SOURCES:
        for path in sorted((ROOT / source).rglob("*.py")):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef):
                    doc = ast.get_docstring(node)
                    if doc:
                        found.append((str(path.relative_to(ROOT)), doc))
    return found


def _missing_paths(text: str) -> list[str]:
    missing = []
    for named in _PATH.findall(text):
        path = named.rstrip(".")
        if not list(ROOT.glob(path)) and not (ROOT / f"{path}.py").exists():
            missing.append(path)
    return missing


def _missing_names(text: str) -> list[str]:
    """`domain.` names that are neither a module nor an attribute of one."""
    missing = []
    for dotted in _DOTTED.findall(text):
        parts = dotted.split(".")
        for k in range(len(parts), 0, -1):
            try:
                found: object = importlib.import_module(".".join(parts[:k]))
            except ImportError:
                continue
            break
        for attr in parts[k:]:
            if not hasattr(found, attr):
                missing.append(dotted)
                break
            found = getattr(found, attr)
    return missing


def test_every_path_and_domain_name_a_docstring_gives_exists() -> None:
    """A docstring that names `domain/gin/views.py`, `tests/unit/x.py` or
    `domain.gin.views.view` names something that is there (a path may be a glob)."""
    wrong = [
        (where, missing)
        for where, doc in _docstrings()
        for missing in _missing_paths(doc) + _missing_names(doc)
    ]
    assert wrong == []


@pytest.mark.parametrize("readme", ["README.md", "bench/README.md"])
def test_every_path_a_readme_gives_exists(readme: str) -> None:
    """The README and bench/README.md (the index of the speed tricks and their tests)."""
    text = (ROOT / readme).read_text()
    assert _missing_paths(text) + _missing_names(text) == []
