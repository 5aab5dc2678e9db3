"""The domain is pure: stdlib only, no clock, no global random, no I/O (architecture.md)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

DOMAIN = Path(__file__).resolve().parents[2] / "domain"
SOURCES = sorted(DOMAIN.rglob("*.py"))

# Standard-library modules that reach the clock, the OS, the network or a global generator.
IMPURE_MODULES = {
    "time",
    "datetime",
    "secrets",
    "os",
    "io",
    "socket",
    "subprocess",
    "pathlib",
    "threading",
    "multiprocessing",
    "asyncio",
    "urllib",
    "http",
    "logging",
    "sqlite3",
    "shutil",
    "tempfile",
    "select",
    "signal",
    "uuid",
    "ssl",
    "glob",
    "pickle",
    "shelve",
    "builtins",
}
IMPURE_CALLS = {"open", "print", "input", "exec", "eval", "__import__", "breakpoint"}
# `random` may only be used for explicitly seeded generator instances (bots), never its globals.
RANDOM_ALLOWED = {"Random"}


def _imports(tree: ast.AST) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno))
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(DOMAIN)))
def test_domain_imports_only_the_standard_library(path: Path) -> None:
    tree = ast.parse(path.read_text(), str(path))
    for name, line in _imports(tree):
        top = name.split(".")[0]
        if top == "domain":
            continue
        assert top in sys.stdlib_module_names, f"{path.name}:{line} imports {name} (not stdlib)"
        assert top not in IMPURE_MODULES, f"{path.name}:{line} imports impure module {name}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(DOMAIN)))
def test_domain_makes_no_io_and_no_global_random_calls(path: Path) -> None:
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in IMPURE_CALLS, (
                f"{path.name}:{node.lineno} calls {node.func.id}"
            )
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
        ):
            assert node.attr in RANDOM_ALLOWED, (
                f"{path.name}:{node.lineno} uses random.{node.attr}; only seeded random.Random"
            )
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            names = {alias.name for alias in node.names}
            assert names <= RANDOM_ALLOWED, f"{path.name}:{node.lineno} imports {names} from random"


def test_the_layers_test_sees_the_domain() -> None:
    assert any(p.name == "cards.py" for p in SOURCES)


# --- the arrows between the packages (issue 12; STYLE.md, Layout) -----------------------------

ROOT = DOMAIN.parent
PACKAGES = ("domain", "store", "api", "workers", "deadwood_client", "arena", "cli")
# Which first-party packages each package may import (itself aside). cli is on top: it may
# import anything, and nothing imports it (tests and bench aside).
MAY_IMPORT = {
    "domain": set(),
    "store": {"domain"},
    "api": {"store", "domain"},
    "workers": {"store", "domain"},
    "deadwood_client": {"domain"},
    "arena": {"domain"},
    "cli": {"domain", "store", "api", "workers", "deadwood_client", "arena"},
}
# Third-party packages a bot author's client may pull in (not Flask, gunicorn, rq or redis).
CLIENT_THIRD_PARTY = {"httpx", "httpx_sse", "tqdm"}


def _first_party_imports(package: str) -> list[tuple[str, str]]:
    """(file:line, imported top-level package) for every import of another package."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for name, line in _imports(ast.parse(path.read_text(), str(path))):
            top = name.split(".")[0]
            if top in PACKAGES and top != package:
                found.append((f"{path.relative_to(ROOT)}:{line}", top))
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_packages_import_only_along_the_arrows(package: str) -> None:
    """domain <- store <- api, workers; deadwood_client and arena use domain only; cli on top."""
    for where, top in _first_party_imports(package):
        assert top in MAY_IMPORT[package], f"{where} imports {top} ({package} may not)"


def test_the_client_pulls_in_no_server_dependency() -> None:
    for path in sorted((ROOT / "deadwood_client").rglob("*.py")):
        for name, line in _imports(ast.parse(path.read_text(), str(path))):
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top in PACKAGES:
                continue
            assert top in CLIENT_THIRD_PARTY, f"{path.name}:{line} imports {name}"


def test_the_arrows_test_sees_every_package() -> None:
    assert all((ROOT / package / "__init__.py").exists() for package in PACKAGES)
    assert any(top == "domain" for _, top in _first_party_imports("store"))
