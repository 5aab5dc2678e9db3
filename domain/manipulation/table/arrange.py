"""The searches that drive the table program (`table.dp`): every card placed, the
falling floors of branch and bound, and the free jokers placed by identity.

A lower bound (`floor`) prunes every state whose points plus all hand points still to come
cannot beat it. The first run asks for every hand card played (going out, M8.3, the usual
best on a full table, tried depth first, which on a dense table finds an arrangement long
before the full program ends); then the floor starts just below that and falls step by step
until an answer appears; the first answer is the best.

With at most two free jokers and no copy-count cap the program never carries them: each
joker is either essential at some identity Y (then a mandatory card of the jokerless
program) or an extension laid on a meld with room at the end; the identities worth trying
come from where the jokerless program runs out of states, read from below and (on the
mirrored ranks) from above. Otherwise the program carries the jokers itself.
"""

from __future__ import annotations

from dataclasses import replace

from domain.cards import JOKER, TableCard
from domain.manipulation.table.build import _extend, build
from domain.manipulation.table.dp import (
    _FIELD,
    _G,
    _P,
    _S,
    _STATE,
    JOKER_POINTS,
    Arrangement,
    Budget,
    Option,
    Run,
    Supply,
    _finish,
    _group_max,
    _options,
    _search,
    _shifted,
    _steps,
    _trace,
)


def solve(
    supply: Supply, floor: int = -1, budget: Budget | None = None, *, stage: str = "all"
) -> Arrangement | None:
    """The arrangement placing every mandatory card that sheds the most hand points (more
    than `floor`), or None. `stage` "going_out" only tries every hand card placed, "rest"
    skips that try, "all" does both. With a `budget`, OutOfWork may be raised."""
    if supply.cap is None:
        found = _solve(supply, True, floor, budget, stage)
        if found is not _NO_ROOM:
            return found if isinstance(found, Arrangement) else None
    result = _solve(supply, False, floor, budget, stage)
    return result if isinstance(result, Arrangement) else None


def extend_jokers(
    melds: tuple[tuple[TableCard, ...], ...], jokers: int
) -> tuple[tuple[tuple[TableCard, ...], ...], int]:
    """Lay up to `jokers` jokers onto melds with room; the melds and how many were laid."""
    out = list(melds)
    for laid in range(jokers):
        grown = _extend(out, 1)
        if grown is None:
            return tuple(out), laid
        out = grown
    return tuple(out), jokers


_NO_ROOM = object()
_FLOOR_STEPS = (4, 12, 30, 70)


def _solve(
    supply: Supply, normal: bool, floor: int, budget: Budget | None, stage: str
) -> Arrangement | object | None:
    """Branch and bound with a falling floor: first ask for every hand card played (going
    out, M8.3, the usual best on a full table, and with every card mandatory the program has
    few choices), then for nearly every hand point, then less; the first answer found above
    a floor is the best overall."""
    top = sum(v * n for v, n in zip(supply.values, supply.hand_real, strict=True))
    top += JOKER_POINTS * supply.jokers_hand
    by_identity = normal and supply.jokers_hand + supply.jokers_freed <= 2

    def run(trial: Supply, trial_floor: int) -> Arrangement | object | None:
        if by_identity:
            return _enumerate(trial, trial_floor, budget)
        return _best(trial, normal, trial_floor, budget)

    if top > floor and stage != "rest":
        found = run(replace(supply, hand_min=supply.hand_real), top - 1)
        if found is not None or stage == "going_out":
            return found
    for drop in _FLOOR_STEPS:
        trial = top - drop
        if trial <= floor:
            break
        found = run(supply, trial)
        if found is not None:
            return found
    return run(supply, floor)


_DFS_CAP = 60_000  # options a depth-first try may expand before handing over to the program


def _depth_first(supply: Supply, budget: Budget | None) -> Arrangement | object | None:
    """Every card mandatory and no free joker: look for one arrangement depth first (memo of
    dead states), which on a dense table finds one long before the full program ends.
    Returns the arrangement, None if there is none, or _UNKNOWN past _DFS_CAP options."""
    steps = _steps(supply)
    groups = [0] + [_group_max(steps, rank, 0) for rank in range(1, 14)]
    caches: list[dict[int, list[tuple[Option, tuple[int, ...]]]]] = [{} for _ in range(52)]
    dead: set[tuple[int, int]] = set()
    path: list[tuple[int, int, Option]] = []
    work = [0]
    points = sum(v * n for v, n in zip(supply.values, supply.hand_real, strict=True))

    def choices(k: int, key: int) -> list[tuple[Option, tuple[int, ...]]]:
        rank, suit = k // 4 + 1, k % 4
        code = key >> (12 * suit) & _FIELD
        found = caches[k].get(code)
        if found is None:
            plain = _options(rank, code, 0, steps[k], True)
            found = [(plain[fast[4]], fast) for fast in _shifted(plain, rank, suit, code)]
            found.sort(key=lambda pair: -pair[0][4])  # keep sequences going first
            caches[k][code] = found
        work[0] += len(found)
        if budget is not None:
            budget.spend(len(found))
        if work[0] > _DFS_CAP:
            raise _GiveUp
        return found

    def rank_start(k: int, key: int) -> bool:
        if (k + 52, key) in dead:
            return False
        if any(step(k, key | count << _G) for count in range(groups[k // 4 + 1] + 1)):
            return True
        dead.add((k + 52, key))
        return False

    def step(k: int, key: int) -> bool:
        if (k, key) in dead:
            return False
        rank, suit = k // 4 + 1, k % 4
        count = key >> _G
        need = 3 * count - count * (3 - suit) - (key >> _S & 31)
        aces = key >> (_P + 3 * suit) & 7 if rank >= 12 else 0
        for option, (delta, g, _, open_after, _) in choices(k, key):
            if g > count or g < need or open_after < aces:
                continue
            new_key = key + delta
            path.append((rank, suit, option))
            if suit < 3:
                ok = step(k + 1, new_key)
            elif rank < 13:
                ok = rank_start(k + 1, new_key & _STATE)
            else:
                ok = _finish(new_key & _STATE, 0, True) is not None
            if ok:
                return True
            path.pop()
        dead.add((k, key))
        return False

    try:
        if not rank_start(0, 0):
            return None
    except _GiveUp:
        return _UNKNOWN
    end = 0
    for rank, suit, option in path:  # replay the key to the end for the high aces
        end += _shifted([option], rank, suit, end >> (12 * suit) & _FIELD)[0][0]
    end &= _STATE
    finished = _finish(end, 0, True)
    assert finished is not None
    built = build(supply, path, end, finished[1], True)
    assert built is not None
    return Arrangement(built[0], built[1], points)


class _GiveUp(Exception):
    """The depth-first try passed its cap."""


_UNKNOWN = object()


def _enumerate(supply: Supply, floor: int, budget: Budget | None) -> Arrangement | object | None:
    """The normal-form best above `floor` with at most two free jokers, by their identities.

    Every free joker is placed (the value counts them all): k of them as essential jokers at
    identities Y (each then a mandatory card of the jokerless program), the others as
    extensions. The identities worth trying are few: if the jokerless program runs out of
    states after rank r, a card at rank r + 3 or above cannot help, as the ranks up to r see
    nothing of it; the same holds from the top, running the program on the mirrored ranks.
    Queens and kings (twos and threes, mirrored) bound the aces promised high at rank 1, so
    they and the aces are always tried. A try with Y resumes the jokerless run three ranks
    below Y, since nothing lower changes (unless Y is a queen or king). Returns _NO_ROOM
    when a try beat the answer but had no room for its extension jokers."""
    free = supply.jokers_hand + supply.jokers_freed
    hand_jokers = supply.jokers_hand
    offset = JOKER_POINTS * hand_jokers
    base = replace(supply, jokers_hand=0, jokers_freed=0)
    best: list[Arrangement] = []
    lost = [-1]

    def current() -> int:
        return (best[0].points if best else floor) - offset

    every = base.hand_min == base.hand_real  # going out: the value is fixed

    def attempt(chosen: tuple[int, ...], earlier: Run | None) -> Run | None:
        fixed = list(base.fixed_jokers)
        for y in chosen:
            fixed[y] += 1
        trial = replace(base, fixed_jokers=tuple(fixed))
        if every:
            quick = _depth_first(trial, budget)
            if isinstance(quick, Arrangement):
                _keep(quick, free - len(chosen))
                if best:
                    return None  # found: the caller stops
        resume = None
        rank = chosen[-1] % 13 + 1 if chosen else 0
        if earlier is not None and 4 <= rank <= 11:  # (12 and 13 shape the promises at 1)
            resume = (rank - 3, earlier)
        result = _search(trial, True, current(), budget, resume)
        found = _conclude(trial, True, current(), result)
        if isinstance(found, Arrangement):
            _keep(found, free - len(chosen))
        return result

    def _keep(found: Arrangement, leftover: int) -> None:
        melds = list(found.melds)
        if leftover:
            extended = _extend(melds, leftover)
            if extended is None:
                lost[0] = max(lost[0], found.points + offset)
                return
            melds = extended
        played = tuple(sorted((*found.played, *([JOKER] * hand_jokers))))
        best[:] = [Arrangement(tuple(melds), played, found.points + offset)]

    def done() -> bool:
        return every and bool(best)  # going out is the best there is: stop at the first

    plain = attempt((), None)
    if plain is not None and free and not done():
        low = _window_of(plain[2])
        high = set(_mirror_window(base, current(), budget))
        runs: dict[int, Run] = {}
        for y in low:
            if y in high:
                run = attempt((y,), plain)
                if run is None or done():
                    return best[0]
                runs[y] = run
        if free >= 2:
            tried: set[tuple[int, int]] = set()
            for y in low:
                if y not in runs:
                    run = attempt((y,), plain)
                    if run is None or done():
                        return best[0]
                    runs[y] = run
                for z in _window_of(runs[y][2]):
                    lower, upper = (y, z) if y % 13 <= z % 13 else (z, y)
                    if z in high and (lower, upper) not in tried:
                        tried.add((lower, upper))
                        if attempt((lower, upper), runs.get(lower)) is None or done():
                            return best[0]
    if lost[0] > (best[0].points if best else floor):
        return _NO_ROOM
    return best[0] if best else None


def _candidates(lowest: int, highest: int, always: tuple[int, ...], near: int) -> list[int]:
    """Identities of ranks lowest..highest (2..13), the aces and ranks `always`, those
    nearest rank `near` (where the program ran out) first."""
    ranks = {1, *always, *range(max(2, lowest), min(13, highest) + 1)}
    order = sorted(ranks, key=lambda r: (abs(r - near), r))
    return [s * 13 + r - 1 for r in order for s in range(4)]


def _window_of(dead: int) -> list[int]:
    """The identities a card may usefully have, seen from below (see `_enumerate`)."""
    return _candidates(2, dead + 2, (12, 13), dead)


def _mirror_window(supply: Supply, floor: int, budget: Budget | None) -> list[int]:
    """The same seen from above: the program on ranks K..2 (the ace stays the ace)."""
    dead = _search(_mirror(supply), True, floor, budget)[2]
    return _candidates(13 - dead, 13, (2, 3), 15 - dead)


def _mirror(supply: Supply) -> Supply:
    """The supply with rank r (2..13) moved to 15 - r: sequences read backwards stay valid,
    Q-K-A becomes A-2-3 and back."""
    order = [s * 13 + (0 if r == 1 else 14 - r) for s in range(4) for r in range(1, 14)]

    def flip(values: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(values[order[i]] for i in range(52))

    return replace(
        supply,
        table_real=flip(supply.table_real),
        fixed_jokers=flip(supply.fixed_jokers),
        hand_real=flip(supply.hand_real),
        hand_min=flip(supply.hand_min),
        cap=None if supply.cap is None else flip(supply.cap),
        values=flip(supply.values),
    )


def _best(
    supply: Supply, normal: bool, floor: int, budget: Budget | None = None
) -> Arrangement | object | None:
    """One run of the program; _NO_ROOM when the best normal-form arrangement has no room
    for the extension jokers (then the caller re-solves without the normal form)."""
    return _conclude(supply, normal, floor, _search(supply, normal, floor, budget))


def _conclude(supply: Supply, normal: bool, floor: int, run: Run) -> Arrangement | object | None:
    """The best finished state of a run, built; None, or _NO_ROOM (see `_best`)."""
    jokers = supply.jokers_hand + supply.jokers_freed
    history, layers, dead = run
    layer = layers[-1] if dead == 14 else {}
    best_key: int | None = None
    best = floor
    best_high: tuple[int, ...] = ()
    for key, pts in layer.items():
        finished = _finish(key, jokers, normal)
        if finished is None:
            continue
        used, high = finished
        placed = jokers if normal else used
        if placed < supply.jokers_freed:
            continue
        total = pts + JOKER_POINTS * (placed - supply.jokers_freed)
        if total > best:
            best, best_key, best_high = total, key, high
    if best_key is None:
        return None
    built = build(supply, _trace(history, best_key), best_key, best_high, normal)
    if built is None:
        return _NO_ROOM
    melds, played = built
    return Arrangement(melds, played, best)
