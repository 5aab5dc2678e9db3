"""marshmallow schemas: request bodies and queries (validated, unknown fields refused) and the
documented shapes of the simple responses (they write openapi.yaml; the bodies themselves are
built from the domain's views, so a response can never carry more than a view holds). Moves,
views and the create body are described precisely in api/contract*.py.

Card codes are plain strings here: the domain refuses a bad code with `invalid_card` naming it
(api.md "Cards"), which a schema pattern would turn into a less precise `validation_error`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

from marshmallow import (
    EXCLUDE,
    INCLUDE,
    Schema,
    ValidationError,
    fields,
    validate,
    validates,
    validates_schema,
)

from domain.players import MAX_NAME
from domain.variants import NAMES

INT64 = validate.Range(min=-(2**63), max=2**63 - 1)
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Marks, embeddings, overrides and isolates that reorder the text shown around them."""


INVISIBLE = frozenset("\u115f\u1160\u2800\u3164\uffa0")
"""Letters and symbols that draw nothing (Hangul fillers, the blank braille pattern)."""

JOINERS = frozenset("\u200c\u200d")
"""Zero-width (non-)joiners: part of emoji sequences and of Persian and Indic words, so they
may stand between two printed characters, never at an end or beside a space."""


def _joins(value: str, index: int) -> bool:
    """True when the joiner at `index` stands between two printed characters."""
    if index == 0 or index == len(value) - 1:
        return False
    return all(_printed(value[i]) for i in (index - 1, index + 1))


def _printed(char: str) -> bool:
    return unicodedata.category(char)[0] in "LMNPS" and char not in INVISIBLE


_REFUSED = {
    "Cc": "a control",
    "Cs": "a lone surrogate",
    "Cf": "an invisible format",  # zero-width, bidi controls, tags (U+E0000-E007F), BOM
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Cn": "an unassigned",
}


def _plain_text(value: str) -> None:
    """Refuse what is not printable text: control (Cc), format (Cf: invisible, bidi and tag
    characters), line and paragraph separators, unassigned code points (Cn), lone
    surrogates, characters that draw nothing, and text that is whitespace only."""
    for index, char in enumerate(value):
        if char in JOINERS and _joins(value, index):
            continue
        category = unicodedata.category(char)
        kind = _REFUSED.get(category) or ("an invisible" if char in INVISIBLE else None)
        if char in BIDI_CONTROLS:
            kind = "a bidi control"
        if kind is not None:
            raise ValidationError(
                f"must be plain text: character {index + 1} is {kind} character (U+{ord(char):04X})"
            )
    if value and not value.strip():
        raise ValidationError("must be plain text: it is whitespace only")


PLAIN_TEXT = (
    "^[^\\x00-\\x1f\\x7f-\\x9f\\xad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890-\\u0891"
    "\\u08e2\\u115f-\\u1160\\u180e\\u200b\\u200e-\\u200f\\u2028-\\u202e\\u2060-\\u2064"
    "\\u2066-\\u206f\\u2800\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb]*$"
)
"""_plain_text as a pattern for the document: the refused characters of the Basic
Multilingual Plane (Unicode 14), but the joiners. The rest of the rule (a joiner only between
printed characters, unassigned code points, format characters above U+FFFF, whitespace only)
the pattern cannot state; the description does."""


class PlainText(validate.Regexp):
    """_plain_text, written into the document as the pattern PLAIN_TEXT."""

    def __init__(self) -> None:
        super().__init__(PLAIN_TEXT)

    def __call__(self, value: Any) -> Any:
        _plain_text(value)
        return value


NAME: list[Callable[[Any], Any]] = [validate.Length(min=1, max=MAX_NAME), PlainText()]
_ASCII_INT = re.compile(r"[+-]?[0-9]{1,20}")


class QueryInteger(fields.Integer):
    """An integer of a query string, written with the ASCII digits 0-9 only (int() would
    also read other scripts' digits, `1_000` and spaces)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str) and not _ASCII_INT.fullmatch(value):
            raise ValidationError("must be an integer written with the ASCII digits 0-9")
        return super()._deserialize(value, attr, data, **kwargs)


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


class StrictBoolean(fields.Boolean):
    """A JSON `true` or `false`, nothing else (marshmallow's takes 0, 1, "yes"...)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if type(value) is not bool:
            raise self.make_error("invalid", input=value)
        return value


class PlayerSchema(Schema):
    name = fields.String(
        validate=NAME,
        metadata={
            "example": "ana",
            "description": (
                "printable text: no control, invisible, bidi, tag or unassigned code points, "
                "not whitespace only"
            ),
        },
    )
    bot = fields.String(
        load_default=None,
        allow_none=True,
        validate=NAME,
        metadata={"description": "a bot name from GET /v1/bots; the server plays this seat"},
    )
    account = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Regexp("^[a-z0-9][a-z0-9_-]{2,23}$"),
        metadata={
            "description": "the caller's own account handle (needs its Deadwood-Key); on an "
            "open seat, the account the seat is reserved for"
        },
    )
    open = StrictBoolean(
        metadata={
            "description": "an open seat (no name, no bot): anyone may join it; with an "
            "`account`, reserved for that account (only its key joins it)"
        },
    )

    @validates_schema
    def _named_or_open(self, data: dict[str, Any], **_: object) -> None:
        if data.get("open"):
            named = data.get("name") is not None or data.get("bot")
            if set(data) - {"open", "account"} and named:
                raise ValidationError("an open seat has no name or bot", "open")
        elif "name" not in data:
            raise ValidationError("a seat needs a name, or `open: true`", "name")


class ClockSchema(Schema):
    """A match's clock (issue 31; domain/clock.py checks the values and their ranges)."""

    mode = fields.String(validate=validate.OneOf(("per_move", "fischer")))
    move_s = fields.Integer(strict=True, metadata={"description": "per_move: each move's time"})
    initial_s = fields.Integer(strict=True, metadata={"description": "fischer: the bank (cap)"})
    increment_s = fields.Integer(strict=True, metadata={"description": "fischer: per move"})
    on_timeout = fields.String(
        validate=validate.OneOf(("autoplay", "forfeit")),
        metadata={
            "description": "autoplay: the bot moves; forfeit: two seats only, the seat loses"
        },
    )
    autoplay_bot = fields.String(metadata={"description": "the bot of auto moves (basic)"})
    max_timeouts = fields.Integer(
        strict=True, metadata={"description": "after this many, the bot plays the seat on"}
    )
    first_move_s = fields.Integer(
        strict=True, metadata={"description": "the abort window: a missed first move aborts"}
    )
    claim_after_s = fields.Integer(
        strict=True, metadata={"description": "absence of the seat to act before a claim"}
    )


class ConductSchema(Schema):
    """The body of abort, resign and claim: an empty object."""


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
    clock = fields.Nested(
        ClockSchema,
        load_default=None,
        allow_none=True,
        metadata={
            "description": "a clock for every move (issue 31); none: no time limit. With "
            "open seats it is pinned at once and starts at MatchStarted"
        },
    )
    listed = StrictBoolean(
        load_default=False,
        metadata={"description": "in GET /v1/lobby"},
    )
    lobby_ttl_s = fields.Integer(
        strict=True,
        load_default=600,
        validate=validate.Range(min=1, max=86400),
        metadata={"description": "seconds to wait for the open seats"},
    )


class JoinSchema(Schema):
    name = fields.String(
        validate=NAME,
        metadata={
            "example": "dee",
            "description": "the seat's name; required without a Deadwood-Key, and with one the "
            "account's handle (the default)",
        },
    )
    seat = fields.Integer(
        strict=True,
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=15),
        metadata={"description": "the seat to take; without it, the first open one"},
    )


class LobbyQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    variant = fields.String(validate=validate.OneOf(NAMES))
    cursor = fields.String(
        validate=validate.Regexp(r"^[0-9]{14}:[A-Za-z0-9_-]{1,64}$"),
        metadata={"description": "the `next` of the previous page"},
    )
    limit = QueryInteger(load_default=50, validate=validate.Range(min=1, max=100))


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


_PLAIN_FIELDS = {
    "card": lambda v: type(v) is str and 1 <= len(v) <= 16,  # CARD
    "from": lambda v: type(v) is str and v in ("stock", "discard"),  # from_
}


def plain_move(body: Any) -> bool:
    """True for the common move bodies that MoveSchema accepts: an object of a known
    `type` with at most a `card` and a `from` that pass their fields' checks. False says
    nothing: MoveSchema then decides (tests/integration/api/test_plain_move.py: True implies the
    schema finds no error)."""
    if type(body) is not dict:
        return False
    kind = body.get("type")
    if type(kind) is not str or kind not in MOVE_TYPES:
        return False
    for key, value in body.items():
        if key != "type":
            check = _PLAIN_FIELDS.get(key)
            if check is None or not check(value):
                return False
    return True


class ViewQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    at = QueryInteger(
        validate=validate.Range(min=1, max=2**53),
        metadata={
            "description": "show the match as it was right after event `at`; past the "
            "match's last event: 422 validation_error"
        },
    )


class EventsQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    after = QueryInteger(load_default=0, validate=validate.Range(min=0, max=2**53))
    limit = QueryInteger(load_default=100, validate=validate.Range(min=1, max=1000))


class StreamQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    after = QueryInteger(
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
    clock = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(allow_none=True),
        allow_none=True,
        metadata={"description": "the clock beside the event, as exported (not checked)"},
    )


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
    request_id = fields.String(
        metadata={"description": "the request's id (also the X-Request-ID response header)"}
    )


class EventClockSchema(Schema):
    left_ms = fields.List(fields.Integer(), required=True)
    timeouts = fields.List(fields.Integer(), required=True)
    turn_seat = fields.Integer(required=True, allow_none=True)
    deadline_ms = fields.Integer(required=True, allow_none=True)


class EventSchema(Schema):
    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    v = fields.Integer(required=True)
    at = fields.String(required=True, metadata={"description": "RFC 3339 UTC"})
    data = fields.Dict(required=True)
    clock = fields.Nested(
        EventClockSchema,
        metadata={
            "description": "a clocked match, beside the last event of each append: what each "
            "seat had left right after it, and the running turn's deadline (issue 31)"
        },
    )


class EventsPageSchema(Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)


class BotSchema(Schema):
    name = fields.String(required=True)
    variant = fields.String(required=True)
    description = fields.String(required=True)


class HealthSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(("ok",)))


class LiveSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(("live",)))


class ReadySchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(("ready",)))
    checks = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={"description": "event_store, queue, workers: `ok` or why not"},
    )
    stalled = fields.Integer(
        metadata={"description": "matches stalled: a system job failed after its retries"}
    )


class ReplayQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    steps = fields.Boolean(
        load_default=False,
        metadata={"description": "also answer `steps`: the match after every event"},
    )
    format = fields.String(
        load_default="json",
        validate=validate.OneOf(["json", "ndjson"]),
        metadata={
            "description": "`ndjson`: answer application/x-ndjson, streamed: the answer, then "
            "with `steps=true` one line a step holding only the round results it added"
        },
    )
