"""Three-handed Gin: a JSON move of api.md parsed once into a `Move` (its fields checked, its
cards read), and a parsed move written back as its canonical JSON (`move_json`).

`parse_move` raises MalformedMove (bad shape) or InvalidCard (bad code), naming the field;
the rules that decide whether a well-formed move may be made now are in moves.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple, cast

from domain.cards import Card
from domain.errors import InvalidCard, MalformedMove
from domain.gin.knock import Melds
from domain.gin.shapes import GinMove, Source
from domain.gin.state import CARD_OF

PLAY_TYPES = ("take_upcard", "pass_upcard", "draw", "discard", "knock")
SYSTEM_TYPES = ("draw_roles", "deal_round", "score_round", "finish_match")
MAX_ADVICE = 1000
_FIELDS: dict[str, tuple[set[str], set[str]]] = {  # type: (required, optional) fields
    "take_upcard": (set(), set()),
    "pass_upcard": (set(), set()),
    "draw": ({"from"}, set()),
    "discard": ({"card"}, set()),
    "knock": ({"card"}, {"melds"}),
    "advise": (set(), {"text", "move"}),
}


class Move(NamedTuple):
    """A parsed move: only the fields of its type are set (a NamedTuple: one is made per
    move, and a frozen dataclass's field-by-field `__init__` cost more than the parsing)."""

    type: str
    card: Card | None = None
    source: str | None = None
    melds: Melds | None = None
    text: str = ""
    advice: GinMove | None = None


def _card(value: object, field: str) -> Card:
    if type(value) is str:
        plain = CARD_OF.get(value)  # a plain card's code: one lookup, no parsing
        if plain is not None:
            return plain
    card = Card.parse(value)
    if card.is_joker:
        raise InvalidCard(f"{field} 'JK': three-hand-gin is played without jokers (G2.1)")
    return card


def _melds(value: object) -> Melds:
    if not isinstance(value, list | tuple) or not all(isinstance(m, list | tuple) for m in value):
        raise MalformedMove("knock 'melds' must be a list of lists of card codes")
    return tuple(tuple(_card(c, "meld card") for c in meld) for meld in value)


def parse_move(move: object) -> Move:
    """Check the shape of a JSON move of api.md; MalformedMove / InvalidCard name the field."""
    if type(move) is not dict and not isinstance(move, Mapping):  # the ABC check is slow
        raise MalformedMove(f"a move must be an object with a 'type', not {move!r:.80}")
    kind = move.get("type")
    if kind in SYSTEM_TYPES and set(move) == {"type"}:
        return Move(str(kind))
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise MalformedMove(
            f"move type {kind!r:.40} is unknown: expected one of {', '.join(_FIELDS)}"
        )
    _check_fields(kind, move)
    return _PARSERS[kind](kind, move)


_ALLOWED = {
    kind: frozenset({"type", *required, *optional})
    for kind, (required, optional) in _FIELDS.items()
}


def _check_fields(kind: str, move: Mapping[str, object]) -> None:
    """A move of `kind` has every field it needs and no other."""
    required, optional = _FIELDS[kind]
    if _ALLOWED[kind].issuperset(move) and required.issubset(move.keys()):
        return
    extra = set(move) - required - optional - {"type"}
    if extra:
        raise MalformedMove(f"{kind} move has unknown field {sorted(extra)[0]!r:.40}")
    missing = required - set(move)
    if missing:
        raise MalformedMove(f"{kind} move needs the field {sorted(missing)[0]!r}")


def _parse_plain(kind: str, move: Mapping[str, object]) -> Move:
    return Move(kind)


def _parse_draw(kind: str, move: Mapping[str, object]) -> Move:
    source = move["from"]
    if not isinstance(source, str) or source not in ("stock", "discard"):
        raise MalformedMove(f"draw 'from' must be 'stock' or 'discard', not {source!r:.40}")
    return Move(kind, source=source)


def _parse_discard(kind: str, move: Mapping[str, object]) -> Move:
    return Move(kind, card=_card(move["card"], "card"))


def _parse_knock(kind: str, move: Mapping[str, object]) -> Move:
    named = move.get("melds")
    return Move(
        kind, card=_card(move["card"], "card"), melds=None if named is None else _melds(named)
    )


def _parse_advise(kind: str, move: Mapping[str, object]) -> Move:
    text = move.get("text", "")
    if text is None:
        text = ""
    if not isinstance(text, str) or len(text) > MAX_ADVICE:
        raise MalformedMove(f"advise 'text' must be a string of at most {MAX_ADVICE} characters")
    suggested = move.get("move")
    if suggested is None:
        return Move(kind, text=text)
    parsed = parse_move(suggested)
    if parsed.type not in PLAY_TYPES:
        raise MalformedMove(f"advise 'move' must be a play move ({', '.join(PLAY_TYPES)})")
    return Move(kind, text=text, advice=move_json(parsed))


_PARSERS: dict[str, Callable[[str, Mapping[str, object]], Move]] = {
    "take_upcard": _parse_plain,
    "pass_upcard": _parse_plain,
    "draw": _parse_draw,
    "discard": _parse_discard,
    "knock": _parse_knock,
    "advise": _parse_advise,
}


def move_json(move: Move) -> GinMove:
    """The canonical JSON of a parsed move."""
    out: GinMove = {"type": move.type}
    if move.source is not None:
        out["from"] = cast("Source", move.source)  # _parse_draw allows these two only
    if move.card is not None:
        out["card"] = str(move.card)
    if move.melds is not None:
        out["melds"] = [[str(c) for c in meld] for meld in move.melds]
    return out
