"""The choices at one step of the program (one suit at one rank, `table.state`): how many
slots the identity takes (mandatory cards, hand cards, free jokers) and how they split
between the suit's open sequences, new ones, groups and (rank 1) aces set aside for the
high end (`choices`), and the same as state deltas (`options`, memoised per cell shape).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from domain.manipulation.table.state import SUM, USED, WIDTH, Cell, Choice, code, decode

Option = tuple[int, int, int, Choice]  # state delta, group slots, points, the choice


def choices(cell: Cell, suit_code: int, left: int) -> list[tuple[int, Choice]]:
    """Every choice from this suit's open sequences with `left` free jokers to use:
    (the suit's code after it, the choice), duplicates of the same outcome dropped.

    In the normal form (`cell.normal`) a free joker is never where it could be taken off
    with the meld still valid at the high end of a sequence: it does not end a sequence of
    4 or more (one that a joker continues must go on), nor is it an ace set aside for the
    high end (a free joker takes the high ace only of a Q-K sequence, at the end). Nor does
    it start a sequence below Q (J-x-y is as good as x-y-J, and J-x-y-z as x-y-z with the
    joker taken off; at Q, J-K-A cannot move), nor sit in a group here: the groups of a
    rank take free jokers only when the rank closes, as few as make its group slots into
    groups (`NEED`; a joker in a group of 4 comes off). Every arrangement becomes one in
    the normal form by moving or taking off such jokers (never using more, never moving a
    real card), and `table.best_above` lays the taken-off ones back on melds with room."""
    seen: dict[tuple[int, int, int, int], tuple[int, Choice]] = {}
    for n in range(cell.mandatory, min(cell.limit, cell.mandatory + cell.hand + left) + 1):
        for hand in range(max(cell.hand_min, n - cell.mandatory - left), cell.hand + 1):
            jokers = n - cell.mandatory - hand
            if jokers < 0:
                break
            for after, choice in _splits(cell, suit_code, (n, jokers), left - jokers):
                key = (after, choice.group, jokers + choice.high_jokers, hand)
                if key not in seen:
                    c = choice
                    made = Choice(
                        hand, jokers, c.kept, c.new, c.group, c.high, c.tail, c.high_jokers
                    )
                    seen[key] = (after, made)
    return list(seen.values())


def _splits(
    cell: Cell, suit_code: int, slots: tuple[int, int], left: int
) -> list[tuple[int, Choice]]:
    """How the slots (n of them, `jokers` free jokers among them) split between the open
    sequences, new ones, groups and set-aside aces."""
    n, jokers = slots
    short1, short2, long, high, tail = decode(suit_code)
    opened = (short1, short2, high, tail)
    if cell.lone:
        if short1 or short2 or tail or (cell.normal and jokers):
            return []
        return _keep(cell, opened, [Choice(0, 0, 0, 0, n, 0)], left)
    rest = n - short1 - short2 - tail
    found: list[Choice] = []
    for kept in range(min(long, rest) + 1):
        free = rest - kept
        most_new = free if kept == long and cell.rank <= 12 else 0
        for new in range(most_new + 1):
            for aside in _asides(cell, free - new, n - jokers):
                group = free - new - aside
                others = short1 + short2 + (new if cell.rank >= 12 else 0)
                for x in _tails(cell, jokers, kept + tail, others):
                    found.append(Choice(0, 0, kept, new, group, aside, x))
    return _keep(cell, opened, found, left)


def _asides(cell: Cell, most: int, real: int) -> range:
    """Aces set aside for the high end: rank 1 only; real cards only in the normal form."""
    if cell.rank != 1:
        return range(1)
    return range(min(most, cell.high_reach, real if cell.normal else most) + 1)


def _tails(cell: Cell, jokers: int, longs: int, others: int) -> range:
    """How many of the free jokers continue long sequences; the rest (normal form) continue
    short ones or start one at Q (see `choices`)."""
    if not cell.normal:
        return range(1)
    return range(max(0, jokers - others), min(jokers, longs) + 1)


def _keep(
    cell: Cell, opened: tuple[int, int, int, int], found: list[Choice], left: int
) -> list[tuple[int, Choice]]:
    out = []
    for choice in found:
        after = _after(cell, opened, choice, left)
        if after is not None:
            if after[1] != choice.high_jokers:
                choice = replace(choice, high_jokers=after[1])
            out.append((after[0], choice))
    return out


def _after(
    cell: Cell, opened: tuple[int, int, int, int], choice: Choice, left: int
) -> tuple[int, int] | None:
    """The suit's code after the choice (and the free jokers the high end takes), or None
    when its sequences cannot be finished."""
    short1, short2, high, tail = opened
    if cell.rank == 1:
        high = choice.high
    plain = short2 + choice.kept + tail - choice.tail  # long ones ending in a real card
    if cell.rank == 13:
        return _close(cell, (short1, plain, choice.tail), high, left - choice.jokers)
    if cell.rank == 12 and not cell.normal and choice.new > high:
        return None  # a sequence started at Q needs K and a high ace
    room = min(cell.next_limit, cell.next_reach + left)
    shorts = choice.new + short1 + choice.tail  # these must go on at the next rank
    if shorts > room:
        return None
    long = min(plain, room - shorts)
    return code(choice.new, short1, long, high, choice.tail), 0


def _close(cell: Cell, runs: tuple[int, int, int], high: int, left: int) -> tuple[int, int] | None:
    """After the king: Q-K sequences must take a high ace, sequences ending in a free joker
    a real one; every set-aside ace must end a sequence. (0, free jokers taken) or None."""
    twos, plain, tails = runs
    if not cell.normal:
        return (0, 0) if twos <= high <= twos + plain else None
    if high < tails:
        return None
    spare = high - tails
    covered = min(twos, spare)
    need = twos - covered
    if need > left or spare - covered > plain:
        return None
    return 0, need


@lru_cache(maxsize=1 << 16)
def options(cell: Cell, suit_code: int, left: int) -> tuple[Option, ...]:
    """The choices as state deltas (memoised: cells repeat across positions)."""
    shift = WIDTH * cell.suit
    shape = _shape(cell)
    if shape.rank == 2:
        suit_code &= ~HIGH_FIELD  # passed through unchanged: the delta is the same
    out: list[Option] = []
    for after, choice in _shaped(shape, suit_code, left):
        delta = (after - suit_code) << shift
        delta += (choice.jokers + choice.high_jokers) << USED
        delta += choice.group << SUM
        out.append((delta, choice.group, choice.hand * cell.value, choice))
    return tuple(out)


HIGH_FIELD = 7 << 9  # the aces set aside, in a suit's code


def _shape(cell: Cell) -> Cell:
    """`cell` with only what `choices` reads: not its suit or value; ranks 2..11 alike
    (as 2: only ranks 1, 12 and 13 have rules of their own), whose choices pass the
    set-aside aces through unchanged; `high_reach` at rank 1 only, the next rank's reach
    below 13 only. Cells of one shape have the same choices, so the shapes are memoised
    (`_shaped`) and a new table mostly meets choices already worked out."""
    rank = cell.rank if cell.rank in (1, 12, 13) else 2
    return cell._replace(
        rank=rank,
        suit=0,
        value=0,
        high_reach=cell.high_reach if rank == 1 else 0,
        next_reach=cell.next_reach if rank < 13 else 0,
        next_limit=cell.next_limit if rank < 13 else 0,
    )


@lru_cache(maxsize=1 << 14)
def _shaped(shape: Cell, suit_code: int, left: int) -> tuple[tuple[int, Choice], ...]:
    return tuple(choices(shape, suit_code, left))
