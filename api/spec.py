"""The OpenAPI document: what flask-smorest generates from the blueprints, the precise schemas
of api/contract*.py, the examples of api/examples.py, and DESCRIPTION: what a client needs
(a first match, auth, versions, idempotency, errors, limits, events, redaction, fair deals).
It is written for its readers; how the document came to be belongs in the git history.

`deadwood openapi > openapi.yaml` (or `make openapi`) writes it;
tests/integration/api/test_openapi.py fails when the committed file and the app disagree.
"""

from __future__ import annotations

from typing import Any

import yaml
from flask_smorest import Api

from api import contract, examples
from api.schemas import EventSchema, ProblemSchema, ReplayEventSchema

DESCRIPTION = """\
Deadwood hosts matches of three-handed Gin Rummy and Manipulation Rummy for people and bots.
A match is an append-only log of events; a *view* is the match as one caller may see it, and
every answer shows a seat only what that seat may see. Bodies are JSON (`application/json`),
except the log (`application/x-ndjson`) and the live stream (`text/event-stream`). This
document is served at `GET /v1/openapi.json`; every operation below shows an example request
and response.

## A first match in five calls

1. **Create**: `POST /v1/matches` with `{"variant": "three-hand-gin", "players": [{"name":
   "ana"}, {"name": "ben"}, {"name": "cy"}]}`. The 201 answer has the match `id` and, for each
   seat without a `bot`, its bearer `token`, shown only this once. Options you leave out take
   their defaults; `"bot": "expert"` (see `GET /v1/bots`) makes a seat the server's.
2. **View**: `GET /v1/matches/{id}` with `Authorization: Bearer <token>`: the match as that
   seat sees it: `turn` (the seat to act, or null while the server scores or deals), `you.hand`
   and the `version` (also the `ETag` header).
3. **Legal moves**: `GET /v1/matches/{id}/legal-moves`: `{version, seat, moves}`, every move
   the seat may make now (none when it is not its turn). Choose from these; do not rely on
   phase names.
4. **Move**: `POST /v1/matches/{id}/moves` with one of those moves, `If-Match: "<version>"`
   and a fresh `Idempotency-Key`: 200 `{version, events, match}`.
5. **Stream**: `GET /v1/matches/{id}/events/stream` (Server-Sent Events) sends each event as
   it is stored; read the view again when one comes, and move when `turn` is your seat.

Repeat until the view's `status` is `finished`. Scoring a hand, dealing the next one and the
moves of bot seats are made by the server moments after the move that makes them due.

## Auth: seat tokens and spectators

`POST /v1/matches` returns one token per seat played by a client. Send it as `Authorization:
Bearer <token>` to see and act as that seat. Without the header the caller is a spectator:
they read views, legal moves (`seat: null`, no moves), events, the stream and, once the match
is finished, the log; moves and hints are 403 `forbidden`. A malformed header or a token of
another match is 401 `unauthorized` on every endpoint of that match. The server keeps only a
hash of each token: a lost token cannot be shown again.

## Versions: ETag and If-Match

A match's `version` is the number of events in its log. Every answer that shows a match
carries it, and the `ETag` header `"<version>"`. Send `If-Match: "<version>"` with a move to
make it only if the match is still at that version: otherwise 412 `version_conflict` and
nothing is appended (read the view again and choose again). An If-Match that is not one strong
tag `"<n>"` is 412 too; `*` or no If-Match: any version.

## Idempotency: retry without moving twice

Creates and moves take an `Idempotency-Key` header (1 to 200 visible ASCII characters).
Within 24 h, a repeat with the same key and the same body gets the first answer again and
appends nothing (a repeated move's answer has the header `Idempotent-Replayed: true`); the
same key with another body is 422 `idempotency_key_reused`. So when an answer is lost (a
timeout, a 503), send the same request with the same key. A create's key gives back the
match and all its seat tokens, so it is a secret of 16 to 200 characters: use a fresh random
one (a uuid4) and never share or log it.

## Errors

Every refusal is a problem (`application/problem+json`, RFC 9457): `{type, title, status,
detail, code}`. Switch on `code`; `detail` says what was wrong in words, a broken rule by its
number ("cannot knock: 69 deadwood after discarding KD, the limit is 10 (G6.2, G5.5)").
`validation_error` adds `errors: {field: [messages]}`; `invalid_log` adds `event`, the seq of
the first bad event. No problem carries a stack trace or a card another seat holds.

- 400 `bad_request`: the body is not UTF-8 JSON, nests deeper than 32 levels, repeats a key
  in one object, or holds NaN, Infinity or a number out of the range of a double.
- 401 `unauthorized`: a malformed bearer token, or one of another match.
- 403 `forbidden`: a spectator, or a seat that may not make that move; `match_in_progress`:
  the log of a match that is not finished.
- 404 `unknown_match`; `not_found`: a path that is not an endpoint. 405 `method_not_allowed`.
- 408 `request_timeout`: the request body did not arrive within 60 s.
- 409 `not_your_turn`: another seat is to act (for a hint: the seat has no move now).
- 412 `version_conflict`: If-Match names another version; nothing was appended.
- 413 `payload_too_large`: a body over 64 KiB (8 MiB for `POST /v1/replays`).
- 414 `uri_too_long`: a request line over 4094 bytes. 431 `headers_too_large`.
- 415 `unsupported_media_type`: a body that is not UTF-8 `application/json` (for replays also
  `application/x-ndjson`), or any Content-Encoding but identity.
- 422 `validation_error` (a malformed body or query), `illegal_move` (the rule in `detail`),
  `invalid_card`, `advice_limit`, `idempotency_key_reused`; for replays `invalid_log` and
  `replay_too_costly`.
- 429 `rate_limited`, `stream_limit`: see Limits; wait `Retry-After` seconds.
- 500 `internal_error`.
- 503 `store_unavailable`: the event store is down or restarting: try again (a write with the
  same Idempotency-Key); `streams_full`, `hints_busy`: see Limits.

A body that fits this document may still be refused by the rules, never by its shape: a move
(422 `illegal_move`, `invalid_card`, or `validation_error` for a member of the other game's
move), a log (422 `invalid_log`), `?at=` past the last event (422), a reused Idempotency-Key.

## Limits

- **Bodies**: 64 KiB (`POST /v1/replays`: a whole log of up to 8 MiB), arriving within 60 s.
  JSON is strict: a key twice in one object, NaN or Infinity and numbers out of the range of
  a double are 400; a number with a zero fraction (`3.0`) is read as that integer. Seat and
  bot names are printable text (no control, bidirectional-control or unassigned characters,
  not only spaces): otherwise 422. Integers in a query string or in Last-Event-ID are ASCII
  digits.
- **Rates**: a server may limit requests per client address (each IPv4 address, each IPv6
  /64) and per seat token; a request over a limit is 429 `rate_limited` with `Retry-After`
  and changes nothing. The defaults of `deadwood up`: 20 creates per minute per address;
  4 moves per second and 120 per minute per seat token, 40 per second and 1200 per minute per
  address; 1 hint per second and 30 per minute per seat token, 4 per second and 120 per
  minute per address. A bot that waits for its turn on the stream stays well within them.
- **Streams**: each live stream holds a place: 16 per address, 4 per seat token, 200 per
  server process. Beyond them the stream is refused 429 `stream_limit` or 503 `streams_full`
  with `Retry-After`. A heartbeat comment comes at least every 15 s; a stream ends when the
  match is finished or after an hour: reconnect with `Last-Event-ID` to resume.
- **Hints**: each server process works out one hint at a time and a caller waits at most 2 s
  for its turn (503 `hints_busy`, with `Retry-After`). The three-hand-gin advisor may advise 3
  times per turn of the captain (422 `advice_limit`; the count starts again when the
  captain's turn ends and at each deal).
- **Matches**: `target_score` is at most 1000 (three-hand-gin) and 1500 (manipulation-rummy),
  ten times the standard target.

## Cards and seats

A card is two characters, rank `A 2 3 4 5 6 7 8 9 T J Q K` and suit `C D H S` (`TS` the ten
of spades); `JK` is a joker in a hand or the stock, and on the Manipulation table a joker
carries the card it stands for (`JK=8S`). Codes are upper case; any other is 422
`invalid_card`, naming it. Seats are numbered from 0 in the order the players were given.

## Events

Each event is `{seq, type, v, at, data}`: `seq` counts from 1 and is also the SSE `id:`,
`type` a past-tense name, `v` the schema version of that type (1, but MatchCreated 2: its
options always hold `max_rounds`; a v1 one is read as `max_rounds: null`), `at` the RFC 3339
UTC time it was stored (for people: no rule reads it). Cards are codes (above).
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
| RoundScored | the round result (as in a view's `rounds`), plus `scores` (running totals) (G7) |
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

## Accounts, keys and the ladder

`POST /v1/accounts` with `{"handle": "ana", "kind": "human"}` (or `"bot"`: a program's
account, shown as a bot for good) answers the account and its first key, with every scope,
shown this once; the server keeps only a keyed hash of it. Send a key as the header
`Deadwood-Key: dwk.<handle>.<id>.<secret>`, beside (never instead of) a seat token in
`Authorization`: the seat token says which seat acts, the key which account calls. Keys have
scopes (`create_matches`, `join_seats`, `play_rated`), are listed with when they were last
used, and revoked at once: any request carrying a revoked, unknown or malformed key is
refused with 401 `invalid_key`, on every endpoint. Each key has its own rate limit (429
`rate_limited` with `Retry-After`, and `limit`, `retry_after` and `scope: "key"` in the body).
Without a key everything works as before, anonymously.

A match created with `options: {"rated": true}` (and a key with `play_rated`) is rated when it
finishes: it needs a `clock` (422 `rated_match_needs_clock`), takes no seed (422
`rated_match_seeded`), and each seat is the caller's own account (`"account": "<handle>"`)
or a built-in bot, which plays for its own account (`deadwood-expert`, ...; 422
`rated_seat_not_account`). Every finished rated match, in both games, is rated as a
free-for-all of its seats ranked by final score (OpenSkill's Plackett-Luce model): ties share
a rank. A match ended by a resignation, a claim or a timeout forfeit is rated too (its
winners above the others); a seat that resigned, was claimed against, forfeited, or was
replaced by a bot after timeouts ranks last. Aborted matches are not rated.
`GET /v1/ladder/{variant}` lists the accounts by `rating` = mu - 3 sigma, with
`low`..`high` = mu -+ 2 sigma, games played and `provisional` while sigma is high;
`GET /v1/accounts/{handle}` shows an account's ratings and their history.

A seat of a match waiting for players can be joined with a key (`join_seats`): the seat is
then the account's (its name is the handle; every view and lobby entry shows `account` and
`account_bot`), and a rated match may wait for players this way: its open seats take only a
key with `play_rated` (403 `rated_seat_needs_key`), one seat per account (409
`already_seated`). A seat may be reserved for an account (`{"open": true, "account": h}`):
only that account's key joins it (403 `seat_reserved`).

## Seeks and pairing

`POST /v1/seeks` with a key and `{"variant", "rated", "clock", "seats", "options"}` asks to be
paired (one open seek per account: 409 `seek_open`; it expires after a while). A pairing job
groups compatible seeks (the very same terms), nearest in ladder rating, and completes a seek
that waited long enough with built-in bots; it opens a match with a seat reserved for each
seeker and marks their seeks `paired` in one step, so a seek is in one match at most and a
cancel (`DELETE /v1/seeks/{id}`) racing it has one winner. Poll `GET /v1/seeks/{id}` until it
shows its `match`, then `POST` its `join` with the same key and play with the token.
`GET /v1/seeks` (and `GET /v1/lobby`'s `seeks`) lists the open seeks.

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
    spec.components.security_scheme(
        "accountKey",
        {
            "type": "apiKey",
            "in": "header",
            "name": "Deadwood-Key",
            "description": "an account key from POST /v1/accounts (see Accounts and keys)",
        },
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
    examples.apply(spec._paths)
    for unused in ("Player", "NestedMove", "Error", "PaginationMetadata"):  # unreferenced
        spec.components.schemas.pop(unused, None)


def spec_dict(app: Any) -> dict[str, Any]:
    """The app's OpenAPI document as plain data."""
    api: Api = app.extensions["deadwood"]["api"]
    return dict(api.spec.to_dict())


def spec_yaml(app: Any) -> str:
    return yaml.safe_dump(spec_dict(app), sort_keys=False, allow_unicode=True, width=100)
