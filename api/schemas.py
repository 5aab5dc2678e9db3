"""marshmallow schemas: request bodies and queries (validated, unknown fields refused) and the
documented shapes of responses (they write openapi.yaml; the bodies themselves are built from
the domain's views, so a response can never carry more than a view holds).

Card codes are plain strings here: the domain refuses a bad code with `invalid_card` naming it
(api.md "Cards"), which a schema pattern would turn into a less precise `validation_error`.
"""

from __future__ import annotations

from marshmallow import EXCLUDE, INCLUDE, Schema, ValidationError, fields, validate, validates

from domain.variants import NAMES

INT64 = validate.Range(min=-(2**63), max=2**63 - 1)
NAME = validate.Length(min=1, max=40)
CARD = fields.String(validate=validate.Length(min=1, max=16), metadata={"example": "7H"})
MAX_MELD = 120
"""No meld or table can hold more cards than the biggest deck (106)."""

GIN_MOVES = ("take_upcard", "pass_upcard", "draw", "discard", "knock", "advise")
MANIP_MOVES = ("draw", "meld", "knock", "end_turn", "pass")
MOVE_TYPES = tuple(dict.fromkeys(GIN_MOVES + MANIP_MOVES))


def _card_list(max_len: int) -> fields.List[str]:
    return fields.List(
        fields.String(validate=validate.Length(min=1, max=16)),
        validate=validate.Length(max=max_len),
    )


def _options_value(value: object) -> None:
    if value is not None and not isinstance(value, str | int | float | bool):
        raise ValidationError("an option value is a string, number, boolean or null")


# ----------------------------------------------------------------------------- requests


class PlayerSchema(Schema):
    name = fields.String(required=True, validate=NAME, metadata={"example": "ana"})
    bot = fields.String(
        load_default=None,
        allow_none=True,
        validate=NAME,
        metadata={"description": "a bot name from GET /v1/bots; the server plays this seat"},
    )


class CreateMatchSchema(Schema):
    variant = fields.String(required=True, validate=validate.OneOf(NAMES))
    players = fields.List(
        fields.Nested(PlayerSchema),
        required=True,
        validate=validate.Length(min=1, max=8),
        metadata={"description": "three-hand-gin: exactly 3; manipulation-rummy: 2 to 5"},
    )
    seed = fields.Integer(
        strict=True,
        load_default=None,
        allow_none=True,
        validate=INT64,
        metadata={"description": "makes every shuffle a pure function of it (64-bit signed)"},
    )
    options = fields.Dict(
        keys=fields.String(validate=validate.Length(min=1, max=64)),
        values=fields.Raw(validate=_options_value, allow_none=True),
        load_default=dict,
        validate=validate.Length(max=64),
        metadata={"description": "rule options of rules.md section 5; unknown keys are refused"},
    )


class NestedMoveSchema(Schema):
    """A move as the advisor may suggest it (no nested advice)."""

    type = fields.String(required=True, validate=validate.OneOf(MOVE_TYPES))
    from_ = fields.String(data_key="from", validate=validate.OneOf(("stock", "discard")))
    card = CARD
    melds = fields.List(_card_list(MAX_MELD), validate=validate.Length(max=40))
    table = fields.List(_card_list(MAX_MELD), validate=validate.Length(max=60))
    text = fields.String(validate=validate.Length(max=500))


class MoveSchema(NestedMoveSchema):
    """One move of api.md "Moves"; which fields a type takes is checked by the game."""

    move = fields.Nested(NestedMoveSchema, metadata={"description": "advise: the suggestion"})

    @validates("type")
    def _known(self, value: str, **_: object) -> None:  # pragma: no cover - OneOf covers it
        if value not in MOVE_TYPES:
            raise ValidationError("unknown move type")


class ViewQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    at = fields.Integer(
        validate=validate.Range(min=1, max=2**53),
        metadata={"description": "show the match as it was right after event `at`"},
    )


class EventsQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**53))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class StreamQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    after = fields.Integer(
        validate=validate.Range(min=0, max=2**53),
        metadata={"description": "start after this seq (the Last-Event-ID header wins)"},
    )


class ReplayEventSchema(Schema):
    """One line of an exported log (GET .../log); `seq` and `at` are optional."""

    seq = fields.Integer(strict=True, validate=validate.Range(min=1, max=2**53))
    type = fields.String(required=True, validate=validate.Length(min=1, max=64))
    v = fields.Integer(strict=True, load_default=1, validate=validate.Range(min=1, max=1000))
    at = fields.String(validate=validate.Length(max=64))
    data = fields.Dict(keys=fields.String(), values=fields.Raw(allow_none=True), required=True)


# ---------------------------------------------------------------------------- responses


class ProblemSchema(Schema):
    """RFC 9457 problem details."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "stable snake_case code"})
    errors = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.String()),
        metadata={"description": "validation_error: the messages of each field"},
    )
    event = fields.Integer(metadata={"description": "invalid_log: seq of the first bad event"})


class CreatedSeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    bot = fields.String(required=True, allow_none=True)
    token = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "bearer token of this seat, shown only here; null for a bot"},
    )


class CreatedSchema(Schema):
    id = fields.String(required=True, metadata={"example": "m_7QxkV2"})
    variant = fields.String(required=True)
    version = fields.Integer(required=True)
    seeded = fields.Boolean(required=True)
    options = fields.Dict(required=True)
    seats = fields.List(fields.Nested(CreatedSeatSchema), required=True)


class SeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    bot = fields.String(required=True, allow_none=True)
    hand_size = fields.Integer(required=True)
    role = fields.String(
        allow_none=True, metadata={"description": "three-hand-gin: box, captain or advisor"}
    )


class YouSchema(Schema):
    seat = fields.Integer(required=True)
    role = fields.String(allow_none=True, metadata={"description": "three-hand-gin"})
    hand = fields.List(fields.String(), required=True)
    legal_moves = fields.List(
        fields.Dict(),
        required=True,
        metadata={
            "description": (
                "Every legal move of this seat now. Manipulation: draw, knock, end_turn and "
                "pass are listed exactly; meld moves are a representative "
                "set from cheap rules: each new meld from the hand alone, each one-card "
                "extension of a table meld, and each joker swap (a hand card takes a table "
                "joker's place and the freed joker extends a meld or joins two hand cards); "
                "any other table that passes I1-I6 is accepted too, and GET /hint gives the "
                "solver's best meld."
            )
        },
    )
    team_hand = fields.List(
        fields.String(),
        allow_none=True,
        metadata={"description": "three-hand-gin advisor: the captain's hand"},
    )


class RoundResultSchema(Schema):
    """A scored round; the game-specific members are described in api.md "Views"."""

    class Meta:
        unknown = INCLUDE

    round = fields.Integer(required=True)
    outcome = fields.String(required=True)
    hands = fields.List(fields.List(fields.String(), allow_none=True), required=True)
    points = fields.List(fields.Integer(), required=True)
    winners = fields.List(fields.Integer(), required=True)


class RolesSchema(Schema):
    box = fields.Integer(required=True, allow_none=True)
    captain = fields.Integer(required=True, allow_none=True)
    advisor = fields.Integer(required=True, allow_none=True)


class KnockSchema(Schema):
    """three-hand-gin: the knocker's spread while it is on the table (G6.3)."""

    seat = fields.Integer(required=True)
    melds = fields.List(fields.List(fields.String()), required=True)
    deadwood_cards = fields.List(fields.String(), required=True)
    count = fields.Integer(required=True)
    gin = fields.Boolean(required=True)


class ViewSchema(Schema):
    """The match as one caller may see it (api.md "Views")."""

    id = fields.String(required=True, allow_none=True)
    variant = fields.String(required=True)
    version = fields.Integer(required=True)
    seeded = fields.Boolean(required=True)
    status = fields.String(required=True, validate=validate.OneOf(("active", "finished")))
    options = fields.Dict(required=True)
    round = fields.Integer(required=True)
    phase = fields.String(required=True)
    turn = fields.Integer(required=True, allow_none=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    scores = fields.List(fields.Integer(), required=True)
    winners = fields.List(fields.Integer(), required=True)
    stock_size = fields.Integer(required=True)
    rounds = fields.List(fields.Nested(RoundResultSchema), required=True)
    deal_commitment = fields.String(required=True, allow_none=True)
    you = fields.Nested(YouSchema, required=True, allow_none=True)
    roles = fields.Nested(RolesSchema, allow_none=True, metadata={"description": "three-hand-gin"})
    knock = fields.Nested(KnockSchema, allow_none=True, metadata={"description": "three-hand-gin"})
    discard_top = fields.String(allow_none=True, metadata={"description": "three-hand-gin"})
    discard_size = fields.Integer(metadata={"description": "three-hand-gin"})
    dealer = fields.Integer(allow_none=True, metadata={"description": "manipulation-rummy"})
    table = fields.List(
        fields.List(fields.String()), metadata={"description": "manipulation-rummy"}
    )
    draws_this_turn = fields.Integer(metadata={"description": "manipulation-rummy"})
    rounds_won = fields.List(
        fields.Integer(), metadata={"description": "manipulation-rummy: rounds won per seat"}
    )
    final_turns_left = fields.Integer(
        metadata={"description": "manipulation-rummy: turns left in the last lap (M9.2)"}
    )


class EventSchema(Schema):
    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    v = fields.Integer(required=True)
    at = fields.String(required=True, metadata={"description": "RFC 3339 UTC"})
    data = fields.Dict(required=True)


class MoveResultSchema(Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)
    match = fields.Nested(ViewSchema, required=True)


class EventsPageSchema(Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)


class LegalMovesSchema(Schema):
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True, allow_none=True)
    moves = fields.List(fields.Dict(), required=True)


class HintSchema(Schema):
    move = fields.Dict(required=True)
    reason = fields.String(required=True)
    bot = fields.String(required=True, metadata={"description": "the bot that chose the move"})


class BotSchema(Schema):
    name = fields.String(required=True)
    variant = fields.String(required=True)
    description = fields.String(required=True)


class HealthSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(("ok",)))


class ReplayResultSchema(Schema):
    version = fields.Integer(required=True, metadata={"description": "events replayed"})
    match = fields.Nested(ViewSchema, required=True, metadata={"description": "spectator view"})
    hands = fields.List(
        fields.List(fields.String(), allow_none=True),
        required=True,
        metadata={"description": "every seat's final hand (null for a seat with no hand)"},
    )
    rounds = fields.List(fields.Nested(RoundResultSchema), required=True)
