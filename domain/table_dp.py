"""The value-by-value dynamic program that arranges cards into melds (M2), after van Rijn,
Takes and Vis, "The Complexity of Rummikub Problems" (2015).

The cards to place are counted per *identity* i = suit * 13 + rank - 1 (the card a slot
counts as). At each identity some cards are mandatory (table cards, and table jokers that
keep their declared card, I3), some optional (hand cards, worth their points M1.4), and free
jokers (freed table jokers, which must be placed; hand jokers, 25 points each) may fill slots.

Ranks are processed 1 (ace low) .. 13, suit by suit, then the ace-high position 14. The state
holds, per suit, how many open sequences end at the previous rank with length 1, 2, 3-or-more,
and 4-or-more ending in a free joker; the free jokers used; and how many aces of each suit
are promised to the ace-high position (the ace cards are filled at rank 1, their slots used
at 14). Per rank and suit the choice is how many length-3+ sequences continue, how many new
ones start (only when every open one continues: closing one and starting another is the
same as continuing it) and how many slots go into groups. The group slots of a rank form
groups of 3-4 distinct suits exactly when 3 * max(slots of a suit) <= total slots. Each slot
is filled by the mandatory cards, then hand cards or free jokers. The program maximises the
points of the hand cards placed with every mandatory card placed. A sequence of 14 (ace to
ace) is allowed here and split 11 + 3 on output.

Free jokers are where the states multiply, so without the copy-count cap (M5.7) the program
searches only arrangements in a normal form, which loses nothing: (a) no free joker sits at
an end of a sequence of 4+ or in a group of 4, where it could be taken off and the meld stays
valid (such jokers are "extensions"; every free joker not needed is added back at the end
onto a meld with room, and the result is re-solved without the normal form in the rare case
that no meld has room); (b) no free joker starts a sequence below rank 10 (move it to the far
end, or split the sequence first when it reaches the high ace); (c) a high ace taken by a
free joker is decided at the end rather than promised at rank 1; (d) no free joker takes a
card's place while a hand copy of that card stays unplayed (swap them: more points, and the
joker becomes an extension). Group jokers are not otherwise restricted (groups leave nothing
in the state). With the cap, every joker is counted as is.

A lower bound (`floor`) prunes every state whose points plus all hand points still to come
cannot beat it (branch and bound). The first run asks for every hand card played (going
out, the usual best on a full table); then the floor starts just below that and falls step
by step until an answer appears; the first answer is the best.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from domain.cards import JOKER, Card, TableCard
from domain.table import is_group, is_sequence

JOKER_POINTS = 25
_NO_CAP = 99
_M = 7  # the most sequences of one kind per suit a state holds (3 bits)


@dataclass(frozen=True, slots=True)
class Supply:
    """What there is to place, per identity 0..51 (see the module docstring)."""

    table_real: tuple[int, ...]  # real table cards of this identity (mandatory)
    fixed_jokers: tuple[int, ...]  # table jokers that keep this declared card (mandatory)
    hand_real: tuple[int, ...]  # real hand cards of this identity (optional, scored)
    hand_min: tuple[int, ...]  # at least this many hand cards here (to free a joker, I3)
    cap: tuple[int, ...] | None  # at most this many slots here (copy count, M5.7)
    jokers_hand: int  # optional free jokers, 25 points each
    jokers_freed: int  # mandatory free jokers (freed table jokers)
    values: tuple[int, ...] = tuple(min(i % 13 + 1, 10) for i in range(52))  # points, M1.4


@dataclass(frozen=True, slots=True)
class Arrangement:
    """The melds found, the hand cards they use (jokers as JOKER) and the points shed."""

    melds: tuple[tuple[TableCard, ...], ...]
    played: tuple[Card, ...]
    points: int


def _code(n1: int, n2: int, n3: int, nj: int) -> int:
    return n1 | n2 << 3 | n3 << 6 | nj << 9


def _decode(code: int) -> tuple[int, int, int, int]:
    return code & 7, code >> 3 & 7, code >> 6 & 7, code >> 9 & 7


# new code, group slots, free jokers, points, k3 (rank 1: aces promised), new, hand cards,
# jokers continuing long sequences
Option = tuple[int, int, int, int, int, int, int, int]
Step = dict[int, tuple[int, Option | None]]


@dataclass(frozen=True, slots=True)
class _Rank:
    """The per-(rank, suit) inputs of one step of the program."""

    here: tuple[int, int, int, int]  # mandatory, hand cards, hand cards required, cap
    after: tuple[int, int, int, int]  # cards and cap at the next rank, and the one after
    promise_max: int
    value: int  # points of a hand card here


def _options(rank: int, code: int, budget: int, step: _Rank, normal: bool) -> list[Option]:
    """Every choice for one suit at one rank from open sequences `code`, `budget` jokers
    left. Short sequences must find slots at the next ranks; long ones beyond the slots the
    next rank can hold are closed now (closing later would change nothing)."""
    mand, opt, hmin, cap = step.here
    cards1, cap1, cards2, cap2 = step.after
    n1, n2, n3, nj = _decode(code)
    value = step.value
    start_ok = not normal or rank >= 10
    most = min(cap, mand + opt + budget, _M)
    must = n1 + n2 + nj
    out: list[Option] = []
    for k3 in range(n3 + 1):
        base = must + k3
        if base > most:
            break
        new_max = most - base if k3 == n3 and rank <= 12 else 0
        for new in range(new_max + 1):
            for extra in range(most - base - new + 1):
                n = base + new + extra
                if n < mand:
                    continue
                free = n - mand
                for h in range(max(hmin, free - budget), min(opt, free) + 1):
                    j = free - h
                    if normal and j and h < opt:
                        continue  # (d) a hand card of this identity beats a joker here
                    left = budget - j
                    next1 = min(cap1, cards1 + left)
                    if new > min(cap2, cards2 + left):
                        continue
                    for a in range(min(extra, step.promise_max) + 1 if rank == 1 else 1):
                        g = extra - a
                        jl = 0
                        if normal:
                            if a > mand + h:
                                continue
                            jl = max(0, j - (n1 + n2 + g + (new if start_ok else 0)))
                            if jl > k3 + nj:
                                continue
                        short = new + n1 + jl
                        if short > next1:
                            continue
                        long = n2 + k3 + nj - jl
                        if rank < 13:
                            long = min(long, max(0, next1 - short))
                        code2 = _code(new, n1, long, jl)
                        out.append((code2, g, j, h * value, a if rank == 1 else k3, new, h, jl))
    return out


def _steps(supply: Supply) -> list[_Rank]:
    jokers = supply.jokers_hand + supply.jokers_freed
    plain = [[0] * 4 for _ in range(16)]
    caps = [[_NO_CAP] * 4 for _ in range(16)]
    for suit in range(4):
        for rank in range(1, 15):
            i = suit * 13 + (rank - 1) % 13
            cap = _NO_CAP if supply.cap is None else supply.cap[i]
            cards = supply.table_real[i] + supply.fixed_jokers[i] + supply.hand_real[i]
            plain[rank][suit] = min(cards, cap, _M)
            caps[rank][suit] = cap
    steps = []
    for rank in range(1, 14):
        for suit in range(4):
            i = suit * 13 + rank - 1
            here = (
                supply.table_real[i] + supply.fixed_jokers[i],
                supply.hand_real[i],
                supply.hand_min[i],
                caps[rank][suit],
            )
            r2 = rank + 2
            after = (
                plain[rank + 1][suit],
                caps[rank + 1][suit],
                plain[r2][suit] if r2 <= 14 else 0,
                caps[r2][suit] if r2 <= 14 else 0,
            )
            promise = 0
            if rank == 1:
                # not capped by the queens and kings present, so that a card added at
                # rank 12 or 13 leaves rank 1 unchanged (see `_enumerate`)
                promise = min(here[0] + here[1] + jokers, _M)
            steps.append(_Rank(here, after, promise, supply.values[i]))
    return steps


def _rest_points(supply: Supply) -> list[int]:
    """rest[k]: points of the hand cards at the steps after step k = 4 * (rank - 1) + suit."""
    suffix = [0] * 53
    for k in range(51, -1, -1):
        rank, suit = k // 4 + 1, k % 4
        i = suit * 13 + rank - 1
        suffix[k] = suffix[k + 1] + supply.hand_real[i] * supply.values[i]
    return suffix[1:]


# A state is one int: 12 bits of open sequences per suit, then the free jokers used, the aces
# promised high (3 bits per suit) and, inside a rank, the group slots so far and the number
# of groups this rank makes.
_U = 48
_P = 51
_S = 63
_G = 68
_STATE = (1 << _S) - 1
_FIELD = 0xFFF


def _shifted(options: list[Option], rank: int, suit: int, code: int) -> list[tuple[int, ...]]:
    """The options as (key delta, group slots, points, open sequences after, index)."""
    out: list[tuple[int, ...]] = []
    for index, option in enumerate(options):
        code2, g, j, gain, k3, _, _, _ = option
        delta = (code2 - code) << (12 * suit)
        delta += j << _U
        if rank == 1:
            delta += k3 << (_P + 3 * suit)
        delta += g << _S
        out.append((delta, g, gain, _open(code2), index))
    out.sort(key=lambda entry: entry[1])  # by group slots, so a search can stop early
    return out


def _group_max(steps: list[_Rank], rank: int, jokers: int) -> int:
    """The most groups a rank can make: a third of its slots, at most a suit's slots."""
    most = [
        min(steps[4 * (rank - 1) + s].here[3], sum(steps[4 * (rank - 1) + s].here[:2]) + jokers)
        for s in range(4)
    ]
    return min(max(most), sum(most) // 3, 7)


class OutOfWork(Exception):
    """A search used up its work budget (see `Budget`)."""


class Budget:
    """A deterministic cap on the options a search may expand (the domain has no clock)."""

    __slots__ = ("left",)

    def __init__(self, left: int) -> None:
        self.left = left

    def spend(self, work: int) -> None:
        self.left -= work
        if self.left < 0:
            raise OutOfWork


Run = tuple[list[Step], list[dict[int, int]], int]


def _search(
    supply: Supply,
    normal: bool,
    floor: int,
    budget: Budget | None = None,
    resume: tuple[int, Run] | None = None,
) -> Run:
    """The program, rank by rank. Returns the steps' back pointers (five per rank), the
    states after each rank (index 0: before rank 1) and the first rank after which no state
    was left (14 if none). `resume` = (rank r, an earlier run on a supply that differs only
    at ranks above r + 2): start from that run's states after rank r."""
    jokers = supply.jokers_hand + supply.jokers_freed
    bonus = JOKER_POINTS * supply.jokers_hand
    steps = _steps(supply)
    rest = _rest_points(supply)
    layer: dict[int, int] = {0: 0}
    history: list[Step] = []
    layers: list[dict[int, int]] = [layer]
    first = 1
    if resume is not None:
        first = resume[0] + 1
        history = resume[1][0][: 5 * resume[0]]
        layers = resume[1][1][: resume[0] + 1]
        layer = layers[-1]
    for rank in range(first, 14):
        groups = _group_max(steps, rank, jokers)
        inner = {key | g << _G: pts for key, pts in layer.items() for g in range(groups + 1)}
        for suit in range(4):
            k = 4 * (rank - 1) + suit
            step = steps[k]
            bound = floor - rest[k] - bonus  # a state needs more points than this
            later = 3 - suit  # suits still to come at this rank, for the group test
            shift = 12 * suit
            promise_shift = _P + 3 * suit
            check_aces = rank >= 12
            cache: dict[tuple[int, int], tuple[list[Option], list[tuple[int, ...]]]] = {}
            nxt: dict[int, int] = {}
            back: Step = {}
            for key, pts in inner.items():
                used = key >> _U & 7
                code = key >> shift & _FIELD
                ck = (code, jokers - used)
                entry = cache.get(ck)
                if entry is None:
                    options = _options(rank, code, jokers - used, step, normal)
                    entry = (options, _shifted(options, rank, suit, code))
                    cache[ck] = entry
                options, fast = entry
                if budget is not None:
                    budget.spend(len(fast))
                count = key >> _G
                need = 3 * count - count * later - (key >> _S & 31)
                aces = key >> promise_shift & 7 if check_aces else 0
                for delta, g, gain, open_after, index in fast:
                    if g > count:
                        break
                    total = pts + gain
                    if total <= bound or g < need or open_after < aces:
                        continue
                    new_key = key + delta
                    if nxt.get(new_key, -1) < total:
                        nxt[new_key] = total
                        back[new_key] = (key, options[index])
            if normal and jokers:
                _drop_fewer_jokers(nxt)
            history.append(back)
            inner = nxt
        layer = {}
        back = {}
        for key, pts in inner.items():
            short = key & _STATE
            if layer.get(short, -1) < pts:
                layer[short] = pts
                back[short] = (key, None)
        _drop_shorter_runs(layer, normal)
        history.append(back)
        layers.append(layer)
        if not layer:
            return history, layers, rank
    return history, layers, 14


def _open(code: int) -> int:
    n1, n2, n3, nj = _decode(code)
    return n1 + n2 + n3 + nj


def _drop_fewer_jokers(states: dict[int, int]) -> None:
    """In the normal form every free joker ends up placed, so of two states alike but for the
    jokers used, the one that used fewer and has at least the points is as good or better."""
    for key in [k for k in states if k >> _U & 7]:
        pts = states[key]
        for fewer in range(1, (key >> _U & 7) + 1):
            other = states.get(key - (fewer << _U))
            if other is not None and other >= pts:
                del states[key]
                break


# one suit's open sequences made "better": one more long one; a length-2 one long; a
# length-1 one of length 2; a joker-tailed one closable. The better state can copy every
# later move of the worse one (closing what it has extra), so it is kept alone.
_BETTER = (1 << 6, (1 << 6) - (1 << 3), (1 << 3) - 1, (1 << 6) - (1 << 9))
_NEEDS = ((6, 7, 0), (3, 7, 1), (0, 7, 1), (9, 7, 1))
_RAISES: dict[int, tuple[int, ...]] = {}


def _raises(code: int) -> tuple[int, ...]:
    """The _BETTER changes that apply to one suit's open sequences `code`."""
    found = _RAISES.get(code)
    if found is None:
        found = tuple(
            delta
            for delta, (bit, mask, low) in zip(_BETTER, _NEEDS, strict=True)
            if ((code >> bit & mask) >= 1 if low else (code >> bit & mask) < 7)
        )
        _RAISES[code] = found
    return found


def _drop_shorter_runs(states: dict[int, int], normal: bool) -> None:
    """Drop each state another one dominates: better sequences in one suit (see _BETTER),
    and in the normal form no more jokers used, with at least the points."""
    get = states.get
    for key in list(states):
        pts = states[key]
        used = key >> _U & 7 if normal else 0
        dominated = False
        for shift in (0, 12, 24, 36):
            for delta in _raises(key >> shift & _FIELD):
                better = key + (delta << shift)
                for fewer in range(used + 1):
                    other = get(better - (fewer << _U))
                    if other is not None and other >= pts:
                        dominated = True
                        break
                if dominated:
                    break
            if dominated:
                break
        if dominated:
            del states[key]


def _finish(key: int, jokers: int, normal: bool) -> tuple[int, tuple[int, ...]] | None:
    """Close every sequence after rank 13 (M2.4). A length-1 one cannot end; a length-2 one
    takes a high ace (a promised real one, or a free joker in the normal form); a 4+ one
    ending in a joker needs a real high ace; 3+ ones may take one. Every promised ace must be
    taken. Returns (free jokers the program used, high-ace jokers per suit) or None."""
    high: list[int] = []
    for suit in range(4):
        n1, n2, n3, nj = _decode(key >> (12 * suit) & _FIELD)
        aces = key >> (_P + 3 * suit) & 7
        if n1 or not nj <= aces <= nj + n2 + n3:
            return None
        need = max(0, n2 - (aces - nj))
        if need and not normal:
            return None
        high.append(need)
    used = (key >> _U & 7) + sum(high)
    if used > jokers:
        return None
    return used, tuple(high)


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
    built = _build(supply, path, end, finished[1], True)
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
    A try with Y resumes the jokerless run three ranks below Y, since nothing lower changes.
    Returns _NO_ROOM when a try beat the answer but had no room for its extension jokers."""
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
        if earlier is not None and rank >= 4:
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


def _candidates(lowest: int, highest: int, near: int) -> list[int]:
    """Identities of ranks lowest..highest (2..13) and the aces, those nearest rank `near`
    (where the program ran out) first."""
    ranks = {1, *range(max(2, lowest), min(13, highest) + 1)}
    order = sorted(ranks, key=lambda r: (abs(r - near), r))
    return [s * 13 + r - 1 for r in order for s in range(4)]


def _window_of(dead: int) -> list[int]:
    """The identities a card may usefully have, seen from below (see `_enumerate`)."""
    return _candidates(2, dead + 2, dead)


def _mirror_window(supply: Supply, floor: int, budget: Budget | None) -> list[int]:
    """The same seen from above: the program on ranks K..2 (the ace stays the ace)."""
    dead = _search(_mirror(supply), True, floor, budget)[2]
    return _candidates(13 - dead, 13, 15 - dead)


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
    built = _build(supply, _trace(history, best_key), best_key, best_high, normal)
    if built is None:
        return _NO_ROOM
    melds, played = built
    return Arrangement(melds, played, best)


def _trace(history: list[Step], key: int) -> list[tuple[int, int, Option]]:
    """The choices (rank, suit, option) from rank 1 to 13."""
    steps: list[tuple[int, int, Option]] = []
    position = len(history)
    for rank in range(13, 0, -1):
        position -= 1
        key = history[position][key][0]
        for suit in range(3, -1, -1):
            position -= 1
            before, option = history[position][key]
            assert option is not None
            steps.append((rank, suit, option))
            key = before
        key &= _STATE
    steps.reverse()
    return steps


class _Run:
    """A sequence being built: its cards, and whether it ends in a free joker."""

    __slots__ = ("cards", "joker_end")

    def __init__(self, card: TableCard, joker: bool) -> None:
        self.cards = [card]
        self.joker_end = joker

    def add(self, card: TableCard, joker: bool) -> None:
        self.cards.append(card)
        self.joker_end = joker

    def joker_tail(self, normal: bool) -> bool:
        """A 4+ sequence ending in a free joker: in the normal form it must go on."""
        return normal and len(self.cards) >= 4 and self.joker_end


def _build(
    supply: Supply,
    steps: list[tuple[int, int, Option]],
    key: int,
    high_jokers: tuple[int, ...],
    normal: bool,
) -> tuple[tuple[tuple[TableCard, ...], ...], tuple[Card, ...]] | None:
    """The melds of a traced solution, with the extension jokers added (None: no room)."""
    runs: list[list[_Run]] = [[] for _ in range(4)]
    melds: list[list[TableCard]] = []
    high_aces: list[list[TableCard]] = [[] for _ in range(4)]
    played: list[Card] = []
    jokers_used = 0
    groups: list[list[TableCard]] = [[] for _ in range(4)]
    for rank, suit, option in steps:
        code2, g, j, _, k3, new, h, _ = option
        i = suit * 13 + rank - 1
        card = Card(i)
        real = [TableCard(JOKER, card)] * supply.fixed_jokers[i]
        real += [TableCard(card)] * (supply.table_real[i] + h)
        free = [TableCard(JOKER, card)] * j
        played += [card] * h
        jokers_used += j
        if rank == 1:  # aces promised high: real cards first (the normal form needs them)
            take = min(k3, len(real))
            high_aces[suit] = real[:take] + free[: k3 - take]
            real, free = real[take:], free[k3 - take :]
            k3 = 0
        groups[suit] = _advance(runs[suit], melds, real, free, (k3, new, g), rank, normal)
        _close_extra(runs[suit], melds, code2, normal)
        if suit == 3:
            melds += _groups(groups)
    for suit in range(4):
        jokers_high = [TableCard(JOKER, Card.of(1, suit))] * high_jokers[suit]
        _high_end(runs[suit], melds, high_aces[suit], jokers_high, normal)
        jokers_used += high_jokers[suit]
    out = [part for meld in melds for part in _split_long(tuple(meld))]
    jokers = supply.jokers_hand + supply.jokers_freed
    if normal and jokers > jokers_used:
        extended = _extend(out, jokers - jokers_used)
        if extended is None:
            return None
        out, jokers_used = extended, jokers
    played += [JOKER] * (jokers_used - supply.jokers_freed)
    return tuple(out), tuple(sorted(played))


def _advance(
    open_runs: list[_Run],
    melds: list[list[TableCard]],
    real: list[TableCard],
    free: list[TableCard],
    counts: tuple[int, int, int],
    rank: int,
    normal: bool,
) -> list[TableCard]:
    """Apply one step to a suit's open sequences; returns the suit's group slots.

    Free jokers go to the soft roles first (short sequences, groups, new sequences where a
    joker may start one), the rest to long sequences; real cards fill every other slot."""
    k3, new, g = counts
    short = [run for run in open_runs if len(run.cards) < 3]
    tails = [run for run in open_runs if len(run.cards) >= 3 and run.joker_tail(normal)]
    closable = [run for run in open_runs if len(run.cards) >= 3 and not run.joker_tail(normal)]
    melds += [run.cards for run in closable[k3:]]
    long_slots = tails + closable[:k3]
    start_ok = not normal or rank >= 10
    soft: list[_Run | str] = [*short, *(["group"] * g), *(["new"] * (new if start_ok else 0))]
    hard_new = 0 if start_ok else new
    jokers = list(free)
    reals = list(real)
    group_slots: list[TableCard] = []
    fresh: list[_Run] = []
    for role in soft:
        is_joker = bool(jokers)
        item = jokers.pop() if is_joker else reals.pop()
        if role == "group":
            group_slots.append(item)
        elif role == "new":
            fresh.append(_Run(item, is_joker))
        else:
            assert isinstance(role, _Run)
            role.add(item, is_joker)
    for run in long_slots:
        is_joker = bool(jokers)
        run.add(jokers.pop() if is_joker else reals.pop(), is_joker)
    fresh += [_Run(reals.pop(), False) for _ in range(hard_new)]
    assert not jokers and not reals
    open_runs[:] = short + long_slots + fresh
    return group_slots


def _close_extra(
    open_runs: list[_Run], melds: list[list[TableCard]], code: int, normal: bool
) -> None:
    """Close the long sequences the state no longer keeps open (see `_options`)."""
    keep = _decode(code)[2]
    closable = [run for run in open_runs if len(run.cards) >= 3 and not run.joker_tail(normal)]
    for run in closable[keep:]:
        melds.append(run.cards)
        open_runs.remove(run)


def _high_end(
    open_runs: list[_Run],
    melds: list[list[TableCard]],
    aces: list[TableCard],
    jokers: list[TableCard],
    normal: bool,
) -> None:
    """Rank 14: real high aces go to joker-tailed sequences, then short ones, then long
    ones; high-ace jokers to the short ones left. Then every sequence closes."""
    tails = [run for run in open_runs if len(run.cards) >= 3 and run.joker_tail(normal)]
    short = [run for run in open_runs if len(run.cards) < 3]
    rest = [run for run in open_runs if len(run.cards) >= 3 and not run.joker_tail(normal)]
    order = tails + short + rest
    items = list(aces)
    for run in order:
        if not items:
            break
        run.add(items.pop(0), False)
    for run in short:
        if len(run.cards) < 3:
            run.add(jokers.pop(), True)
    assert not jokers and not items
    melds += [run.cards for run in open_runs]


def _groups(slots: list[list[TableCard]]) -> list[list[TableCard]]:
    """Group slots of one rank into 3-4 card groups of distinct suits (3 * max <= total)."""
    count = max(len(s) for s in slots)
    if count == 0:
        return []
    built: list[list[TableCard]] = [[] for _ in range(count)]
    omit = 0  # each group misses at most one suit; hand the misses out one group each
    for suit_slots in slots:
        skipped = count - len(suit_slots)
        targets = [k for k in range(count) if not omit <= k < omit + skipped]
        omit += skipped
        for k, item in zip(targets, suit_slots, strict=True):
            built[k].append(item)
    return built


def _split_long(meld: tuple[TableCard, ...]) -> list[tuple[TableCard, ...]]:
    """A 14-card ace-to-ace sequence becomes A..J and Q-K-A (M2.4)."""
    if len(meld) > 13:
        return [meld[:11], meld[11:]]
    return [meld]


def _extend(melds: list[tuple[TableCard, ...]], jokers: int) -> list[tuple[TableCard, ...]] | None:
    """Add `jokers` free jokers onto melds with room (a sequence end, a group of three; a
    13-card sequence splits 11 + 2 and the two take the joker)."""
    out = list(melds)
    for _ in range(jokers):
        for k, meld in enumerate(out):
            grown = _grow(meld)
            if grown is not None:
                out[k] = grown
                break
        else:
            for k, meld in enumerate(out):
                if len(meld) == 13 and is_sequence(meld):
                    ordered = _in_order(meld)
                    head, tail = ordered[:11], ordered[11:]
                    out[k : k + 1] = [head, _grow(tail) or tail]
                    break
            else:
                return None
    return out


def _in_order(meld: tuple[TableCard, ...]) -> tuple[TableCard, ...]:
    """A sequence in rank order (a high ace last)."""
    ranks = {tc.acts_as.rank for tc in meld}
    high = 1 in ranks and 13 in ranks and 2 not in ranks
    return tuple(
        sorted(meld, key=lambda tc: 14 if high and tc.acts_as.rank == 1 else tc.acts_as.rank)
    )


def _grow(meld: tuple[TableCard, ...]) -> tuple[TableCard, ...] | None:
    acting = [tc.acts_as for tc in meld]
    if is_group(meld):
        if len(meld) == 4:
            return None
        suit = next(s for s in range(4) if all(c.suit != s for c in acting))
        return (*meld, TableCard(JOKER, Card.of(acting[0].rank, suit)))
    suit = acting[0].suit
    ranks = {c.rank for c in acting}
    for rank in range(1, 14):
        trial = (*meld, TableCard(JOKER, Card.of(rank, suit)))
        if rank not in ranks and is_sequence(trial):
            return trial
    return None
