"""Melds from a traced run of the table program (`table.state`).

The program only counts sequences per suit and group slots per rank; this module replays
its choices rank by rank with real cards: the slots of an identity are filled by its
mandatory cards, then the hand cards and free jokers the choice placed; the short
sequences continue, the first `kept` long ones continue and the others close; aces set
aside at rank 1 end sequences at the high end; the group slots of a rank are dealt round
the G groups suit after suit (each suit gives at most G, so no group repeats a suit), and
the free jokers the rank's close gave its groups (the normal form) fill them to 3. A
sequence longer than 13 (ace to ace) is split into its first 3 cards and the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.cards import JOKER, Card, TableCard
from domain.manipulation.table.depth import Fit
from domain.manipulation.table.meld import MAX_SEQUENCE, Meld, normalise_meld
from domain.manipulation.table.state import JOKER_POINTS, MIRROR, Choice, Supply


@dataclass(frozen=True, slots=True)
class Arrangement:
    """The melds found, the hand cards they use (jokers as JOKER) and the points shed."""

    melds: tuple[Meld, ...]
    played: tuple[Card, ...]
    points: int


@dataclass(slots=True)
class _Suit:
    """One suit's sequences while the ranks are replayed."""

    open: list[list[TableCard]] = field(default_factory=list)
    aside: list[TableCard] = field(default_factory=list)
    high_jokers: int = 0
    tails: int = 0  # long sequences a free joker continued: they go on (the normal form)


@dataclass(slots=True)
class _Builder:
    """The melds so far, the open sequences, and the hand cards used."""

    supply: Supply
    suits: list[_Suit] = field(default_factory=lambda: [_Suit() for _ in range(4)])
    melds: list[Meld] = field(default_factory=list)
    played: list[Card] = field(default_factory=list)
    free_jokers: int = 0


def build(supply: Supply, steps: list[Choice]) -> Arrangement:
    """Replay the 52 choices (rank by rank, suit by suit) into melds."""
    builder = _Builder(supply)
    for rank in range(1, 14):
        slots: list[TableCard] = []
        for suit in range(4):
            slots += _place(builder, rank, suit, steps[4 * (rank - 1) + suit])
        row = steps[4 * (rank - 1) : 4 * rank]
        jokers = row[3].group_jokers
        builder.free_jokers += jokers
        builder.melds += _groups(slots, [c.group for c in row], (rank, jokers))
    for number, state in enumerate(builder.suits):
        _close_high(builder, state, Card(number * 13))
    hand_jokers = builder.free_jokers - supply.jokers_freed
    played = sorted([*builder.played, *([JOKER] * hand_jokers)])
    melds = tuple(part for meld in builder.melds for part in _split_long(meld))
    points = sum(c.value for c in builder.played) + JOKER_POINTS * hand_jokers
    return Arrangement(melds, tuple(played), points)


def build_fit(fit: Fit) -> Arrangement:
    """The melds of a walk's arrangement (`depth.first_fit`), for the question asked: one
    found for its mirror (`depth.mirrored`) is turned back card by card (M2 keeps it
    valid), each meld put back in display order."""
    built = build(fit.supply, fit.choices)
    if not fit.mirrored:
        return built
    melds, played = turned_back(built.melds, built.played)
    return Arrangement(melds, played, sum(card.value for card in played))


def turned_back(
    melds: tuple[Meld, ...], played: tuple[Card, ...]
) -> tuple[tuple[Meld, ...], tuple[Card, ...]]:
    """The melds and the hand cards played of an arrangement of a mirror
    (`depth.mirrored`) as they stand in the question's: turned back card by card (M2 keeps
    each meld valid), each meld put back in display order."""
    back = tuple(normalise_meld([_unmirrored(tc) for tc in meld]) for meld in melds)
    cards = sorted(card if card.is_joker else Card(MIRROR[card.index]) for card in played)
    return back, tuple(cards)


def _unmirrored(tc: TableCard) -> TableCard:
    """A card of the mirror's melds as it stands in the question's: a joker keeps its
    card and has its declared card turned back."""
    if tc.declared is None:
        return TableCard(Card(MIRROR[tc.card.index]))
    return TableCard(tc.card, Card(MIRROR[tc.declared.index]))


def _fillers(builder: _Builder, i: int, choice: Choice) -> list[TableCard]:
    """The cards of one identity's slots: mandatory ones, then hand cards, then jokers."""
    supply = builder.supply
    card = Card(i)
    out = [TableCard(card)] * supply.table_real[i]
    out += [TableCard(JOKER, card)] * supply.fixed_jokers[i]
    out += [TableCard(card)] * choice.hand
    out += [TableCard(JOKER, card)] * choice.jokers
    builder.played += [card] * choice.hand
    builder.free_jokers += choice.jokers
    return out


def _place(builder: _Builder, rank: int, suit: int, choice: Choice) -> list[TableCard]:
    """Lay one identity's slots; returns its group slots."""
    i = suit * 13 + rank - 1
    state = builder.suits[suit]
    if not state.open and _empty(builder.supply, i, choice):
        state.high_jokers = choice.high_jokers  # as below, with no card and no sequence
        state.tails = choice.tail
        if rank == 1:
            state.aside = []
        return []
    cards = _fillers(builder, i, choice)
    if rank == 1:
        state.aside = cards[: choice.high]
        cards = cards[choice.high :]
    state.high_jokers = choice.high_jokers
    shorts = [run for run in state.open if len(run) < 3]
    longs = [run for run in state.open if len(run) >= 3]
    kept = choice.kept + state.tails
    state.tails = choice.tail
    going = shorts + longs[:kept]
    builder.melds += [tuple(run) for run in longs[kept:]]
    for run, card in zip(going, cards, strict=False):
        run.append(card)
    cards = cards[len(going) :]
    state.open = going + [[card] for card in cards[: choice.new]]
    return cards[choice.new :]


def _empty(supply: Supply, i: int, choice: Choice) -> bool:
    """Whether identity i has no slot: no mandatory card, no hand card or joker chosen."""
    return not (supply.table_real[i] or supply.fixed_jokers[i] or choice.hand or choice.jokers)


def _close_high(builder: _Builder, state: _Suit, ace: Card) -> None:
    """After the kings: free jokers (as many as the program chose) and then the aces set
    aside end sequences, the 2-card ones first."""
    runs = sorted(state.open, key=len)
    ends = [TableCard(JOKER, ace)] * state.high_jokers + state.aside
    builder.free_jokers += state.high_jokers
    for run, end in zip(runs, ends, strict=False):
        run.append(end)
    builder.melds += [tuple(run) for run in runs]
    state.open = []


def _groups(slots: list[TableCard], per_suit: list[int], jokers: tuple[int, int]) -> list[Meld]:
    """Deal a rank's group slots (in suit order) round G groups of 3-4 distinct suits, then
    its free jokers (rank, how many) each into the smallest group, as a suit it lacks."""
    rank, free = jokers
    total = len(slots) + free
    if not total:
        return []
    count = next(g for g in range(1, 8) if max(per_suit) <= g and 3 * g <= total <= 4 * g)
    groups: list[list[TableCard]] = [[] for _ in range(count)]
    for k, card in enumerate(slots):
        groups[k % count].append(card)
    for _ in range(free):
        short = min(groups, key=len)
        suit = min({0, 1, 2, 3} - {tc.acts_as.suit for tc in short})
        short.append(TableCard(JOKER, Card.of(rank, suit)))
    return [tuple(g) for g in groups]


def lay_jokers(melds: tuple[Meld, ...], count: int) -> tuple[Meld, ...] | None:
    """`count` more free jokers laid as extensions (a group of 3 takes a missing suit, a
    sequence grows at an end), or None when the melds have no room for them all."""
    out = list(melds)
    for _ in range(count):
        for k, meld in enumerate(out):
            grown = _grown(meld)
            if grown is not None:
                out[k] = grown
                break
        else:
            if not _make_room(out):
                return None
    return tuple(out)


def _make_room(out: list[Meld]) -> bool:
    """Lay one more joker on `out` by rearranging it (no copy-count cap, M5.7): cut
    a long sequence, or turn two groups of 4 of one rank into three groups of 3 around a
    joker, or three groups of 4 of consecutive ranks into four sequences with room."""
    for k, meld in enumerate(out):
        parts = _cut(meld)
        if parts is not None:
            out[k] = parts[0]
            out.append(parts[1])
            return True
    fours: dict[int, list[int]] = {}
    for k, meld in enumerate(out):
        if len(meld) == 4 and len({tc.acts_as.rank for tc in meld}) == 1:
            fours.setdefault(meld[0].acts_as.rank, []).append(k)
    for ks in fours.values():
        if len(ks) >= 2:
            a, b = (sorted(out[k], key=lambda tc: tc.acts_as.suit) for k in ks[:2])
            joker = TableCard(JOKER, a[0].acts_as)
            out[ks[0]] = (a[0], a[1], a[2])
            out[ks[1]] = (b[0], b[1], b[3])
            out.append((a[3], b[2], joker))
            return True
    for rank in fours:
        if rank + 1 in fours and rank + 2 in fours:
            ks = [fours[rank][0], fours[rank + 1][0], fours[rank + 2][0]]
            cards = [tc for k in ks for tc in out[k]]
            runs = [
                tuple(sorted((tc for tc in cards if tc.acts_as.suit == suit), key=_rank_of))
                for suit in range(4)
            ]
            for k in sorted(ks, reverse=True):
                del out[k]
            grown = _grown(runs[0])
            out.extend([runs[0] if grown is None else grown, *runs[1:]])
            return grown is not None
    return False


def _rank_of(tc: TableCard) -> int:
    return tc.acts_as.rank


def _cut(meld: Meld) -> tuple[Meld, Meld] | None:
    """A sequence of 5 or more cut after its second card, the joker taking the third
    card's place in the first part (with no copy-count cap a card may show twice, M5.7):
    room for a joker where every meld is full (a 13-card sequence, a group of 4)."""
    if len(meld) < 5 or len({tc.acts_as.rank for tc in meld}) == 1:
        return None
    ordered = normalise_meld(meld)
    first = (*ordered[:2], TableCard(JOKER, ordered[2].acts_as))
    return first, ordered[2:]


def _grown(meld: Meld) -> Meld | None:
    acting = [tc.acts_as for tc in meld]
    if len({c.rank for c in acting}) == 1:
        suits = {c.suit for c in acting}
        free = [s for s in range(4) if s not in suits]
        return (*meld, TableCard(JOKER, Card.of(acting[0].rank, free[0]))) if free else None
    if len(meld) >= MAX_SEQUENCE:
        return None
    suit = acting[0].suit
    ranks = sorted(c.rank for c in acting)
    high = (ranks[0] == 1 and ranks[-1] == 13) or (ranks[0] == 1 and 2 not in ranks)
    low, top = (ranks[1], 14) if high else (ranks[0], ranks[-1])
    if top < 14:
        return (*meld, TableCard(JOKER, Card.of(top % 13 + 1, suit)))
    return (*meld, TableCard(JOKER, Card.of(low - 1, suit)))


def _split_long(meld: Meld) -> list[Meld]:
    if len(meld) <= MAX_SEQUENCE:
        return [meld]
    return [meld[:3], meld[3:]]
