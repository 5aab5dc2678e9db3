"""marshmallow schemas of seeks (issue 32): the body of POST /v1/seeks (unknown fields
refused) and the documented Seek shapes. The terms are checked by store/seeks.py with the
games' own rules (options, seat counts, clocks); the ranges here only document them."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas import ClockSchema, StrictBoolean, _options_value
from domain.variants import NAMES
from store.seeks import CANCELLED, EXPIRED, OPEN, PAIRED


class CreateSeekSchema(Schema):
    variant = fields.String(required=True, validate=validate.OneOf(NAMES))
    rated = StrictBoolean(
        load_default=True,
        metadata={"description": "a rated match (needs a key with play_rated, and a clock)"},
    )
    clock = fields.Nested(
        ClockSchema,
        load_default=None,
        allow_none=True,
        metadata={"description": "the match's clock, as POST /v1/matches takes it"},
    )
    seats = fields.Integer(
        strict=True,
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=2, max=5),
        metadata={
            "description": "the match's seats (three-hand-gin: 3; manipulation-rummy: "
            "2 to 5, default 2)"
        },
    )
    options = fields.Dict(
        keys=fields.String(validate=validate.Length(min=1, max=64)),
        values=fields.Raw(validate=_options_value, allow_none=True),
        load_default=dict,
        validate=validate.Length(max=64),
        metadata={"description": "rule options (as POST /v1/matches), without `rated`"},
    )


class SeeksQuerySchema(Schema):
    variant = fields.String(validate=validate.OneOf(NAMES))


class SeekMatchSchema(Schema):
    id = fields.String(required=True, metadata={"description": "the paired match"})
    seat = fields.Integer(required=True, metadata={"description": "the seat kept for you"})
    join = fields.String(required=True, metadata={"description": "POST it with your key"})


class OpenSeekSchema(Schema):
    id = fields.String(required=True, metadata={"example": "s_Qm9vZ2xlIGl0IQ"})
    account = fields.String(required=True)
    bot = fields.Boolean(required=True, metadata={"description": "the account is a bot's"})
    variant = fields.String(required=True, validate=validate.OneOf(NAMES))
    rated = fields.Boolean(required=True)
    clock = fields.Dict(required=True, allow_none=True, metadata={"description": "its clock"})
    seats = fields.Integer(required=True)
    options = fields.Dict(required=True, metadata={"description": "its full rule options"})
    status = fields.String(
        required=True, validate=validate.OneOf((OPEN, PAIRED, CANCELLED, EXPIRED))
    )
    created = fields.String(required=True, metadata={"description": "RFC 3339"})
    expires = fields.String(required=True, metadata={"description": "RFC 3339: open until"})


class SeekSchema(OpenSeekSchema):
    match = fields.Nested(
        SeekMatchSchema,
        required=True,
        allow_none=True,
        metadata={"description": "null until paired; then the match and the seat to join"},
    )


class SeeksSchema(Schema):
    seeks = fields.List(fields.Nested(OpenSeekSchema), required=True)
