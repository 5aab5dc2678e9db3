"""The best arrangement of a supply above a floor, by one search (`best_above`): the
normal form first (`table.breadth.race`, up and down the ranks; with nothing optional the
depth-first walk, `table.depth`), the jokers it took off laid back on; the full program
when they find no room. `Shortcut` is what one step of `table.arrange` settles.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.cards import JOKER
from domain.manipulation.table.breadth import best_final, race, search, trace
from domain.manipulation.table.build import Arrangement, build, build_fit, lay_jokers, turned_back
from domain.manipulation.table.depth import first_fit
from domain.manipulation.table.state import JOKER_POINTS, USED, VALUES, Supply
from domain.manipulation.table.window_proof import Window


@dataclass(frozen=True, slots=True)
class Shortcut:
    """What one shortcut of `solve` settled. `known` False: it could not say (its states ran
    out, or the jokers it took off found no room to go back on), and the next step asks.
    Otherwise `found` is the answer (None: there is none above the floor asked), and
    `window` a window of ranks that refuted going out on the way (`table.window_proof`)."""

    found: Arrangement | None = None
    known: bool = True
    window: Window | None = None


UNKNOWN = Shortcut(known=False)


BOTH: tuple[bool, ...] = (False, True)  # the ways `breadth.race` runs: up the ranks and down


def best_above(supply: Supply, floor: int, ways: tuple[bool, ...] = BOTH) -> Arrangement | None:
    """The best arrangement above `floor`: the normal form first (`choices.choices`, run the
    `ways` of `breadth.race`), the full program when taken-off jokers find no room to go
    back on."""
    if supply.cap is None:
        found = normal_best(supply, floor, ways)[0]
        if found.known:
            return found.found
    run = search(supply, floor)
    best = best_final(supply, run)
    if best is None or best[1] <= floor:
        return None
    return build(supply, trace(run, best[0]))


def normal_best(supply: Supply, floor: int, ways: tuple[bool, ...]) -> tuple[Shortcut, bool]:
    """Every end state of the normal form, best hope first, with the jokers it left out
    laid back on (each hand joker placed is worth the most). If a state that could beat
    the best so far has no room for them, only the full program can say: unknown. With
    the answer, the way that answered (`breadth.race`: True down the ranks)."""
    fixed = not any(supply.hand_real) and not supply.jokers_hand
    if fixed:
        return (
            normal_fit(supply) if floor < 0 else Shortcut(None)
        ), False  # nothing optional: no point
    ran, run = race(supply, floor, ways)
    way = ran is not supply
    best: Arrangement | None = None
    ends = sorted(run.final.items(), key=lambda item: -item[1])
    for key, pts in ends:
        used = key >> USED
        if used > supply.jokers or pts + JOKER_POINTS * supply.jokers_hand <= floor:
            continue
        if best is not None and pts + JOKER_POINTS * supply.jokers_hand <= best.points:
            break
        built = build(ran, trace(run, used))
        melds = lay_jokers(built.melds, supply.jokers - used)
        if melds is None:
            return UNKNOWN, way
        real = tuple(card for card in built.played if not card.is_joker)
        if way:
            melds, real = turned_back(melds, real)
        played = tuple(sorted([*real, *[JOKER] * supply.jokers_hand]))
        best = Arrangement(melds, played, pts + JOKER_POINTS * supply.jokers_hand)
    return Shortcut(best), way


def normal_fit(supply: Supply) -> Shortcut:
    """`normal_best` with nothing optional: any one arrangement is the answer, so it is found
    depth first (`table.depth`), the jokers it left out laid back on (or unknown)."""
    fit = first_fit(supply)
    if fit is None:
        return Shortcut(None)
    built = build_fit(fit)
    melds = lay_jokers(built.melds, supply.jokers - fit.used)
    real = tuple(sorted(card for card in built.played if not card.is_joker))
    return UNKNOWN if melds is None else Shortcut(Arrangement(melds, real, 0))


def top_points(supply: Supply) -> int:
    """The points of every hand card and hand joker: no arrangement sheds more."""
    cards = sum(n * VALUES[i] for i, n in enumerate(supply.hand_real))
    return cards + JOKER_POINTS * supply.jokers_hand
