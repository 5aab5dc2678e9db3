"""The OpenAPI document: what flask-smorest generates from the blueprints, plus the prose that
api.md leaves to it (event types and data, redaction, the fair-deal commitment bytes).

`deadwood openapi > openapi.yaml` (or `make openapi`) writes it;
tests/integration/api/test_openapi.py fails when the committed file and the app disagree.
"""

from __future__ import annotations

from typing import Any

import yaml
from flask_smorest import Api

from api import contract
from api.schemas import EventSchema, ProblemSchema, ReplayEventSchema

DESCRIPTION = """\
Deadwood hosts matches of three-handed Gin Rummy and Manipulation Rummy for third-party
clients and bots. Every match is an append-only log of events; a *view* is the match as one
caller may see it. This document describes `shared/spec/api.md` exactly and adds to it:

- Problem details (`application/problem+json`) carry `type`, `title`, `status`, `detail` and
  `code`; `validation_error` adds `errors: {field: [messages]}`; `invalid_log` (a replay that
  breaks the rules) adds `event`, the seq of the first bad event. Other codes: `bad_request`
  (400), `not_found` (404, a path that is not an endpoint), `method_not_allowed` (405),
  `payload_too_large` (413), `uri_too_long` (414, a request line over 4094 bytes),
  `unsupported_media_type` (415, also for any Content-Encoding but identity),
  `headers_too_large` (431), `rate_limited` (429, with `Retry-After` in seconds),
  `replay_too_costly` (422, a replay whose check uses more CPU time than its budget),
  `internal_error` (500), `store_unavailable` (503: the event store is down or restarting;
  try again). `advice_limit` (422): the three-hand-gin advisor may advise at most 3 times per
  turn of the captain (the count starts again when the captain's turn ends and at each deal).
- Creating a match with an `Idempotency-Key`: the key is a secret. Anyone who sends the same
  key and body within 24 h gets the same match and all its seat tokens, so a create's key
  must be 16 to 200 characters: use a fresh random one (a uuid4) and never share or log it.
- `target_score` is at most 1000 (three-hand-gin) and 1500 (manipulation-rummy), ten times
  the standard target.
- JSON bodies are strict: a key twice in one object, NaN or Infinity, and numbers out of the
  range of a double are 400 `bad_request` naming the problem. Seat and bot names are plain
  text: control characters, bidirectional controls (U+202A-U+202E, U+2066-U+2069, ...) and
  lone surrogates are 422. Integers in a query string or in Last-Event-ID are ASCII digits.
- Views may carry more members than api.md lists: three-hand-gin adds `knock` (the knocker's
  spread while it is on the table) and `you.role`; manipulation-rummy adds `rounds_won` and
  `final_turns_left`.
- `GET .../legal-moves` answers `{version, seat, moves}` (seat null and no moves for a
  spectator). `GET .../events` answers `{version, events}`. A replayed idempotent POST carries
  the header `Idempotent-Replayed: true`. `GET /v1/openapi.json` serves this document.

## A document to generate from

OpenAPI 3.1, so that a nullable member keeps its type: `oneOf: [{$ref}, {type: "null"}]`
(openapi-python-client reads it as `Model | None`; the 3.0 form apispec wrote,
`anyOf: [{type: object, nullable: true}, {$ref}]`, made it an empty model) and schemathesis
4 validates it as JSON Schema 2020-12. A move is one schema per `type` (`const`, no other
members), joined by `oneOf` with a `discriminator`; each view, create body and created match
is one schema per `variant` (player counts, options with their ranges, the game's members).
`POST /v1/matches` links its `id` and each seat's token to every match operation. A number
with a zero fraction (`3.0`) is read as that integer, as JSON Schema counts it. A body that
fits this document may still be refused by the rules, never by its shape: a move (422
illegal_move, invalid_card, or validation_error for a member of the other game's move), a
log (422 invalid_log), `?at=` past the last event, a reused Idempotency-Key.

## Rate limits

A server may limit requests per client address and per seat token; a request over a limit
gets 429 `rate_limited` with `Retry-After` and changes nothing. `deadwood up` turns these on
by default: match creation 20 per minute per address; moves 4 per second and 120 per minute
per seat token, and 40 per second and 1200 per minute per address. Its `--rate-create`,
`--rate-moves` and `--rate-moves-address` flags (or `DEADWOOD_RATELIMIT_CREATE`,
`DEADWOOD_RATELIMIT_MOVES`, `DEADWOOD_RATELIMIT_MOVES_ADDRESS`) change them; `off` turns one
off. A bot waits for its turn (the events stream, or polling a few times a second), so it
stays well within them.

## Auth

`Authorization: Bearer <token>` with a token returned by `POST /v1/matches`. Without it the
caller is a spectator: they may read views, events and the log, and get 403 `forbidden` for
moves and hints. A malformed header or a token of another match is 401 `unauthorized` on every
endpoint of that match.

## Events

Each event is `{seq, type, v, at, data}`: `seq` counts from 1 and is also the SSE `id:`,
`type` a past-tense name, `v` the schema version of that type (1, but MatchCreated 2: its
options always hold `max_rounds`; a v1 one is read as `max_rounds: null`), `at` the RFC 3339
UTC time it was stored (for people; the fold never reads it). Cards are codes as in api.md.
The log alone rebuilds every state: chance is data (each deal records the hands and the stock
order; `stock` lists codes from the top). Scoring and deals are made by the service.

### three-hand-gin

| type | data |
|---|---|
| MatchCreated | `variant, players: [{name, bot}], options, seeded, seed, deal_key, salt_key` (*) |
| RolesDrawn | `draws: [[{seat, card}] per draw], tiebreak, box, captain, advisor` (G1.2) |
| RoundDealt | `round, box, captain, advisor, hands, upcard, stock, salt, commitment` (G4) |
| UpcardPassed | `seat, card` (G5.1) |
| UpcardTaken | `seat, card` (G5.1) |
| CardDrawn | `seat, from: "stock" or "discard", card` (G5.2) |
| CardDiscarded | `seat, card`; a discard that leaves 2 stock cards ends the hand as a draw (G5.6) |
| Knocked | `seat, card` (the face-down discard), `melds, deadwood_cards, count, gin` (G6) |
| AdviceGiven | `seat, captain, text, move` (G1.4) |
| RoundScored | the round result of api.md, plus `scores` (running totals) (G7) |
| MatchFinished | `scores, winners, totals, bonuses`, `ended_by` (G8.3 only) (G8) |

### manipulation-rummy

| type | data |
|---|---|
| MatchCreated | `variant, players, options, seeded, seed, deal_key`, `salt_key` (*) |
| DealerChosen | `round, dealer` (M3.1) |
| RoundDealt | `round, dealer, hands, stock: [codes, 0 = top], salt, commitment` (M3) |
| CardDrawn | `seat, card, draw` (1, 2 or 3) (M4) |
| StockExhausted | `seat`: right after the draw of the last stock card (M9.1) |
| TableMelded | `seat, table` (the whole table after), `played` (the cards from the hand) (M6) |
| Passed | `seat` (M9) |
| TurnEnded | `seat` (M4) |
| Knocked | `seat, points` (M8) |
| RoundScored | `round, outcome, hands, points, winners, knocker, hand_points` (M10) |
| MatchFinished | `scores, winners, round_scores, bonuses`, `ended_by` (M11.5 only) (M11) |

(*) `salt_key` only in a seeded match (see Fair deals).

### Redaction

In the events page, the stream and every move response, a card the caller may not see is
`null` (lists keep their length): other seats' dealt hands, the stock order, the salt, the
seed, the deal key and the salt key, a card another seat drew from the stock, the gin
knocker's face-down card, and advice (text and move) for anyone but the advisor and the
captain. The gin advisor sees the captain's cards when `advisor_sees_captain_hand` is on.
Once the match is finished nothing is hidden, and `GET .../log` serves the whole log.

## Fair deals

Each `RoundDealt` commits to the round's full deck order before any card is played:

    commitment = hex(SHA-256(UTF-8(salt + ":" + " ".join(deck))))

where `deck` is the round's whole deck as card codes in dealing order and `salt` is the
round's salt. three-hand-gin: `deck[0], deck[2], ... deck[18]` are the captain's hand and
`deck[1], deck[3], ... deck[19]` the box's (in the order of `hands`), `deck[20]` the upcard
and `deck[21:]` the stock from the top. manipulation-rummy: `deck[i]` for `i < 10 n` went to
seat `(dealer + 1 + i) mod n` (so each seat's `hands` entry lists its cards in that order) and
the rest is the stock from the top; a joker is `JK`. `salt` is 64 lower-case hex
digits and the separator between codes is one space (0x20). Example:
`salt = "ab..ef"`, deck `AS 2S 3S ...` gives the message bytes `ab..ef:AS 2S 3S ...`.
Views show `deal_commitment` from the first moment of the round; the finished match's log
reveals every round's `stock`, `hands` and `salt`, so anyone can recompute the commitments, and
`POST /v1/replays` re-derives every deal from the match's seed or deal key.

The salts are secret until the match is over: they come from the server's own random source,
in every match. An unseeded match's deals and salts come from a secret 256-bit `deal_key`. A
seeded match's deck order comes from its seed alone and its salts from a separate secret
`salt_key` (in MatchCreated, shown once the match is finished), so nobody can test guessed
seeds against the public commitments.

**A seeded match is reproducible, not secret.** The same seed always deals the same cards, so
anyone who knows or guesses the seed knows every hand and the whole stock (a player can find
a small seed from the cards of their own hand). Use seeds for tests, replays and arenas; play
that needs hidden cards uses no seed.

## Replays

`POST /v1/replays` takes the NDJSON of `GET .../log` (or a JSON array of its events). The
opening events are made again from MatchCreated (players, options, seed or deal key) and must
be equal; every later event must be exactly what `decide` gives for the move it records (or
the due scoring or deal) in the state before it. 422 `invalid_log` names the first event that
is not, with the broken rule when the move could be read back. One CPU budget covers reading,
checking, steps and their encoding (422 `replay_too_costly`, at most 5 s by default);
`?steps=true` is refused past 32 MiB of steps (413 `replay_too_large`), while
`?steps=true&format=ndjson` streams one line a step carrying only the round results its event
added.

## Every match ends

Nothing in the rules stops a match where nobody scores (gin hands that all end drawn with
`knock_limit` 0, Manipulation rounds of tied hands). So every match has the option
`max_rounds` (default `max(20, target_score // 2)` in gin, `max(20, target_score // 5)` in
Manipulation; at most 500 and 300; no bound is refused with 422 `validation_error`). After
that many rounds without the target the match ends and the standing scores decide, a tie
shared (Manipulation pays its M11.3 round bonuses first and applies `final_tie`);
MatchFinished then carries `ended_by: "max_rounds"`. A match recorded before the option
shows `max_rounds: null` and is played and replayed as it always was.
"""

SPEC_KWARGS: dict[str, Any] = {
    "info": {
        "description": DESCRIPTION,
        "license": {"name": "proprietary"},
    },
    "servers": [{"url": "/"}],
}


def finish_spec(api: Api) -> None:
    """Components the blueprints refer to: the Problem schema and the seat-token scheme."""
    spec = api.spec
    if "Event" not in spec.components.schemas:
        spec.components.schema("Event", schema=EventSchema)
    if "Problem" not in spec.components.schemas:
        spec.components.schema("Problem", schema=ProblemSchema)
    spec.components.security_scheme(
        "seatToken",
        {"type": "http", "scheme": "bearer", "description": "a seat token from POST /v1/matches"},
    )
    if "ReplayEvent" not in spec.components.schemas:
        spec.components.schema("ReplayEvent", schema=ReplayEventSchema)
    replay = spec._paths.get("/v1/replays", {}).get("post")
    if replay is not None:
        log = {"type": "array", "items": {"$ref": "#/components/schemas/ReplayEvent"}}
        replay["requestBody"] = {
            "required": True,
            "description": (
                "the log of GET /v1/matches/{id}/log: NDJSON (one event per line), or a JSON "
                "array of the same events; at most 8 MiB"
            ),
            "content": {
                "application/x-ndjson": {"schema": log},
                "application/json": {"schema": log},
            },
        }
    contract.apply(spec)
    for unused in ("Player", "NestedMove", "Error", "PaginationMetadata"):  # unreferenced
        spec.components.schemas.pop(unused, None)


def spec_dict(app: Any) -> dict[str, Any]:
    """The app's OpenAPI document as plain data."""
    api: Api = app.extensions["deadwood"]["api"]
    return dict(api.spec.to_dict())


def spec_yaml(app: Any) -> str:
    return yaml.safe_dump(spec_dict(app), sort_keys=False, allow_unicode=True, width=100)
