"""The OpenAPI schemas of moves: one schema per move `type`, and the unions a client reads.

Each move schema fixes `type` with `const` and refuses other members, so a union of them
(`oneOf` with a `discriminator` on `type`) has exactly one matching branch and a code
generator (or a reader) sees which fields belong to which move. Both games share `draw` and
`knock`; their schemas list the members of either game and say which game takes which.
The limits are those of api/schemas.py, which validates the body before the game does.
"""

from __future__ import annotations

from typing import Any

from api.schemas import MAX_MELD

REF = "#/components/schemas/"
CARD: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 16,
    "description": "a card code of api.md (`7H`, `TS`, `JK`, `JK=QC` for a placed joker)",
}


def _cards(max_items: int) -> dict[str, Any]:
    return {"type": "array", "maxItems": max_items, "items": CARD}


def _move(kind: str, description: str, **members: Any) -> dict[str, Any]:
    required = [name for name, (_, needed) in members.items() if needed]
    return {
        "type": "object",
        "description": description,
        "required": ["type", *required],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": kind},
            **{name: schema for name, (schema, _) in members.items()},
        },
    }


MOVES: dict[str, dict[str, Any]] = {
    "TakeUpcardMove": _move("take_upcard", "three-hand-gin: take the upcard (G5.1)"),
    "PassUpcardMove": _move("pass_upcard", "three-hand-gin: pass the upcard (G5.1)"),
    "DrawMove": _move(
        "draw",
        "three-hand-gin: draw `from` the stock or the discard pile, `from` required (G5.2); "
        "manipulation-rummy: draw the next stock card, no `from` (M4)",
        **{"from": ({"type": "string", "enum": ["stock", "discard"]}, False)},
    ),
    "DiscardMove": _move("discard", "three-hand-gin: discard `card` (G5.3)", card=(CARD, True)),
    "KnockMove": _move(
        "knock",
        "three-hand-gin: knock, discarding `card` face down (required), `melds` the optional "
        "arrangement of the rest (G6); manipulation-rummy: knock with no members (M8)",
        card=(CARD, False),
        melds=({"type": "array", "maxItems": 40, "items": _cards(MAX_MELD)}, False),
    ),
    "AdviseMove": _move(
        "advise",
        "three-hand-gin advisor: advice to the captain, a text and/or a suggested move (G1.4)",
        text=({"type": "string", "maxLength": 500}, False),
        move=({"$ref": REF + "AdvisedMove"}, False),
    ),
    "MeldMove": _move(
        "meld",
        "manipulation-rummy: the whole table after the turn's melding (M6)",
        table=({"type": "array", "maxItems": 60, "items": _cards(MAX_MELD)}, True),
    ),
    "EndTurnMove": _move("end_turn", "manipulation-rummy: end the turn (M4)"),
    "PassMove": _move("pass", "manipulation-rummy: pass in the last lap (M9)"),
}

GIN = ("TakeUpcardMove", "PassUpcardMove", "DrawMove", "DiscardMove", "KnockMove", "AdviseMove")
MANIPULATION = ("DrawMove", "MeldMove", "KnockMove", "EndTurnMove", "PassMove")
ADVISED = ("TakeUpcardMove", "PassUpcardMove", "DrawMove", "DiscardMove", "KnockMove")


def union(names: tuple[str, ...], description: str) -> dict[str, Any]:
    """`oneOf` the move schemas `names`, discriminated by `type`."""
    mapping = {MOVES[name]["properties"]["type"]["const"]: REF + name for name in names}
    return {
        "description": description,
        "oneOf": [{"$ref": REF + name} for name in names],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }


def components() -> dict[str, dict[str, Any]]:
    """Every move schema and the unions: Move (any), GinMove, ManipulationMove, AdvisedMove."""
    everything = tuple(MOVES)
    return {
        **MOVES,
        "Move": union(
            everything,
            'one move of api.md "Moves"; a move that fits this schema may still be refused '
            "by the game: 422 illegal_move (the rule), invalid_card, or validation_error for a "
            "member of the other game (`from` of a manipulation-rummy draw)",
        ),
        "GinMove": union(GIN, "a three-hand-gin move"),
        "ManipulationMove": union(MANIPULATION, "a manipulation-rummy move"),
        "AdvisedMove": union(ADVISED, "a move the advisor suggests (a play move, no advice)"),
    }
