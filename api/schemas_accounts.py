"""marshmallow schemas of accounts, keys and the ladder (issue 32): request bodies (unknown
fields refused) and the documented response shapes. The rules (handle, kinds, scopes) are the
domain's (domain/accounts.py); a pattern here only documents them."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domain.accounts import HANDLE_RULE, KINDS, SCOPES
from domain.variants import NAMES

HANDLE_PATTERN = "^[a-z0-9][a-z0-9_-]{2,23}$"
HANDLE = fields.String(
    required=True,
    validate=validate.Regexp(HANDLE_PATTERN, error=f"must be {HANDLE_RULE}"),
    metadata={"example": "ana", "description": HANDLE_RULE},
)


class CreateAccountSchema(Schema):
    handle = HANDLE
    kind = fields.String(
        required=True,
        validate=validate.OneOf(KINDS),
        metadata={"description": "`bot` for a program: shown as a bot everywhere, for good"},
    )


class CreateKeySchema(Schema):
    scopes = fields.List(
        fields.String(validate=validate.OneOf(SCOPES)),
        required=True,
        validate=validate.Length(min=1, max=len(SCOPES)),
        metadata={"description": "create_matches, join_seats, play_rated"},
    )
    label = fields.String(
        load_default="",
        validate=validate.Length(max=40),
        metadata={"description": "a note to tell keys apart"},
    )


class LadderQuerySchema(Schema):
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=1_000_000))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class AccountSchema(Schema):
    handle = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    bot = fields.Boolean(required=True, metadata={"description": "kind is bot (for good)"})
    builtin = fields.Boolean(required=True, metadata={"description": "a built-in bot's"})
    created_at = fields.String(required=True)


class KeyInfoSchema(Schema):
    id = fields.String(required=True)
    scopes = fields.List(fields.String(validate=validate.OneOf(SCOPES)), required=True)
    label = fields.String(required=True)
    created_at = fields.String(required=True)
    last_used = fields.String(allow_none=True, required=True)


class NewKeySchema(KeyInfoSchema):
    key = fields.String(
        required=True,
        metadata={"description": "the key, shown this once: send it as the Deadwood-Key header"},
    )


class CreatedAccountSchema(Schema):
    account = fields.Nested(AccountSchema, required=True)
    key = fields.Nested(NewKeySchema, required=True)


class RevokedSchema(Schema):
    id = fields.String(required=True)
    revoked = fields.Boolean(required=True, validate=validate.Equal(True))


class KeysSchema(Schema):
    keys = fields.List(fields.Nested(KeyInfoSchema), required=True)


class RatingSchema(Schema):
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    rating = fields.Float(required=True, metadata={"description": "mu - 3 sigma (ordering)"})
    low = fields.Float(required=True, metadata={"description": "mu - 2 sigma"})
    high = fields.Float(required=True, metadata={"description": "mu + 2 sigma"})
    games = fields.Integer(required=True)
    provisional = fields.Boolean(required=True, metadata={"description": "sigma still high"})


class HistoryEntrySchema(RatingSchema):
    match = fields.String(required=True)
    place = fields.Integer(required=True, metadata={"description": "n-th match rated"})
    seat = fields.Integer(required=True)
    rank = fields.Integer(required=True, metadata={"description": "1 = best; ties share"})
    seats = fields.Integer(required=True)
    at = fields.String(required=True, metadata={"description": "when the match finished"})


class AccountViewSchema(AccountSchema):
    ratings = fields.Dict(
        keys=fields.String(validate=validate.OneOf(NAMES)),
        values=fields.Nested(RatingSchema, allow_none=True),
        required=True,
        metadata={"description": "per variant; null before the first rated match"},
    )
    history = fields.Dict(
        keys=fields.String(validate=validate.OneOf(NAMES)),
        values=fields.List(fields.Nested(HistoryEntrySchema)),
        required=True,
        metadata={"description": "per variant, the last 50 ratings, oldest first"},
    )


class LadderRowSchema(RatingSchema):
    place = fields.Integer(required=True)
    handle = fields.String(required=True)
    bot = fields.Boolean(required=True)


class LadderSchema(Schema):
    variant = fields.String(required=True, validate=validate.OneOf(NAMES))
    total = fields.Integer(required=True, metadata={"description": "accounts on the ladder"})
    offset = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    rows = fields.List(fields.Nested(LadderRowSchema), required=True)
