"""marshmallow schemas: request bodies and queries (validated, unknown fields refused) and the
documented shapes of the simple responses (they write openapi.yaml; the bodies themselves are
built from the domain's views, so a response can never carry more than a view holds). Moves,
views and the create body are described precisely in api/contract*.py.

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
        metadata={
            "description": (
                "makes every shuffle a pure function of it (64-bit signed): a seeded match is "
                "reproducible, not secret (whoever knows or guesses the seed knows every hand)"
            )
        },
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
        metadata={
            "description": "show the match as it was right after event `at`; past the "
            "match's last event: 422 validation_error"
        },
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


class EventSchema(Schema):
    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    v = fields.Integer(required=True)
    at = fields.String(required=True, metadata={"description": "RFC 3339 UTC"})
    data = fields.Dict(required=True)


class EventsPageSchema(Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)


class BotSchema(Schema):
    name = fields.String(required=True)
    variant = fields.String(required=True)
    description = fields.String(required=True)


class HealthSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(("ok",)))


class ReplayQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    steps = fields.Boolean(
        load_default=False,
        metadata={"description": "also answer `steps`: the match after every event"},
    )
