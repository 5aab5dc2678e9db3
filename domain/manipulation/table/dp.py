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

The reconstruction of melds from a traced run is in `table.build`; the searches that drive
the program (going out, the floors, the free jokers) in `table.arrange`.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.cards import Card, TableCard

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
                # at most one per queen and king there could be (so a card added at rank
                # 12 or 13 changes rank 1: see `_enumerate`)
                promise = min(plain[13][suit], plain[12][suit]) + jokers
                promise = min(promise, here[0] + here[1] + jokers, _M)
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
