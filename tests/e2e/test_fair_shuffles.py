"""Fair shuffles (issue 6, architecture.md Events: "The deal comes from a cryptographic random
source unless the match was created with a seed").

- No deal code path uses the `random` module: the modules that deal (domain/shuffle.py, the
  engines and their deal modules, store/) import nothing from it (AST), and ruff's S311 rule
  (no `random` for security) is selected in pyproject.toml with no exemption for them.
- The store draws an unseeded match's deal key from `secrets`.
- Chi-square tests of position bias: where each card lands over many deals, for
  `domain.shuffle.DealRng` itself and for the first RoundDealt of both engines' `create`
  with many secrets. A test fails only at p < 1e-6 (a fair shuffle fails about once in a
  million runs); a deliberately biased shuffle is shown to fail it, so the test can fail.
The chi-square survival function is the Wilson-Hilferty normal approximation (stdlib only).
"""

from __future__ import annotations

import ast
import hashlib
import math
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from domain.shuffle import DealRng
from domain.variants import get_variant
from tests.support.reliability_procs import soak

ROOT = Path(__file__).resolve().parents[2]
P_FLOOR = 1e-6
DEAL_MODULES = [
    "domain/shuffle.py",
    "domain/gin/__init__.py",
    "domain/gin/deal.py",
    "domain/manipulation/__init__.py",
    "domain/manipulation/deal.py",
    "domain/manipulation/scoring.py",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "store").glob("*.py")),
]


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for chi-square with `df` degrees of freedom (Wilson-Hilferty)."""
    if x <= 0:
        return 1.0
    z = ((x / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def position_chi2(orders: Iterable[Sequence[str]]) -> tuple[float, int, float]:
    """Chi-square of the card x position table over deck orders: (statistic, df, p).

    A card code present k times in a deck of n is expected k/n of the time at each position.
    """
    counts: Counter[tuple[str, int]] = Counter()
    multiplicity: Counter[str] | None = None
    deals = 0
    size = 0
    for order in orders:
        if multiplicity is None:
            multiplicity, size = Counter(order), len(order)
        counts.update((card, i) for i, card in enumerate(order))
        deals += 1
    assert multiplicity is not None
    stat = 0.0
    for card, k in multiplicity.items():
        expected = deals * k / size
        for i in range(size):
            stat += (counts[(card, i)] - expected) ** 2 / expected
    df = (len(multiplicity) - 1) * (size - 1)
    return stat, df, chi2_sf(stat, df)


def test_chi2_survival_function_is_right_where_it_is_known() -> None:
    """Against table values: the median of chi2(k) is about k(1-2/9k)^3; the upper 0.001
    points of chi2(10) and chi2(1000) are 29.588 and 1143.917; P(chi2(100) >= 100) = 0.4813."""
    assert chi2_sf(2601 * (1 - 2 / (9 * 2601)) ** 3, 2601) == pytest.approx(0.5, abs=1e-9)
    assert chi2_sf(29.588, 10) == pytest.approx(1e-3, rel=0.1)
    assert chi2_sf(1143.917, 1000) == pytest.approx(1e-3, rel=0.05)
    assert chi2_sf(100.0, 100) == pytest.approx(0.4813, abs=0.002)


def _imports_random(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "random"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "random":
            found.append(f"from {node.module}")
    return found


def test_no_deal_code_path_uses_the_random_module() -> None:
    offenders = {m: _imports_random(ROOT / m) for m in DEAL_MODULES}
    assert not {m: f for m, f in offenders.items() if f}, offenders
    assert len(DEAL_MODULES) > 6


def test_ruff_s311_is_selected_and_not_waived_for_deal_code() -> None:
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert "S311" in lint["select"] or "S" in lint["select"]
    assert "S311" not in lint.get("ignore", [])
    for pattern, rules in lint.get("per-file-ignores", {}).items():
        if "S311" in rules:
            assert pattern.split("/")[0] in ("tests", "bench") or "bots" in pattern, pattern


def test_the_store_draws_unseeded_deal_keys_from_secrets() -> None:
    source = (ROOT / "store" / "submit.py").read_text()  # where the service creates a match
    tree = ast.parse(source)
    calls = [ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert "secrets.token_hex" in calls, "create_match draws the secret with secrets.token_hex"


def _key(i: int, salt: str) -> str:
    return hashlib.sha256(f"{salt}:{i}".encode()).hexdigest()


def test_dealrng_shuffle_has_no_position_bias() -> None:
    deals = soak(2500, 20000)

    def orders() -> Iterable[list[str]]:
        for i in range(deals):
            deck = [f"{n:02d}" for n in range(52)]
            DealRng(_key(i, "rng"), "deal:1").shuffle(deck)
            yield deck

    stat, df, p = position_chi2(orders())
    print(f"\nDealRng: {deals} shuffles of 52, chi2 {stat:.0f} on {df} df, p = {p:.3g}")
    assert p >= P_FLOOR


def test_a_biased_shuffle_fails_the_same_test() -> None:
    """The naive shuffle (swap each position with any position) is biased; the test sees it."""
    deals = 2500

    def orders() -> Iterable[list[str]]:
        for i in range(deals):
            rng = DealRng(_key(i, "naive"), "deal:1")
            deck = [f"{n:02d}" for n in range(52)]
            for a in range(52):
                b = rng.randbelow(52)
                deck[a], deck[b] = deck[b], deck[a]
            yield deck

    _, _, p = position_chi2(orders())
    assert p < P_FLOOR


def _dealt_slots(event: Any) -> list[str]:
    """The round's deal as slots: each dealt hand in seat order, the upcard, the stock."""
    data = event.data
    slots: list[str] = []
    for hand in data["hands"]:
        slots += hand or []
    if data.get("upcard") is not None:
        slots.append(data["upcard"])
    return slots + list(data["stock"])


@pytest.mark.parametrize(("variant", "n"), [("three-hand-gin", 3), ("manipulation-rummy", 4)])
def test_engine_deals_through_create_have_no_position_bias(variant: str, n: int) -> None:
    """The first RoundDealt of `create(players, options, None, secret)` over many secrets."""
    game = get_variant(variant)
    options = game.validate_options({})
    players = [{"name": f"p{i}", "bot": None} for i in range(n)]
    deals = soak(900, 8000)

    def orders() -> Iterable[list[str]]:
        for i in range(deals):
            events = game.create(players, options, None, _key(i, variant))
            dealt = next(e for e in events if e.type == "RoundDealt")
            yield _dealt_slots(dealt)

    stat, df, p = position_chi2(orders())
    print(f"\n{variant}: {deals} deals via create, chi2 {stat:.0f} on {df} df, p = {p:.3g}")
    assert p >= P_FLOOR
