"""The Redis event store and the match service: every Redis access of Deadwood is here.

The match service, split by concern (`MatchService` in service.py holds the parts below and
is the one object the API and the workers call):
    config.py       ServiceConfig.from_env (the environment, read in one place) and
                    build_service(config): the one wiring of the API, workers and CLI
    service.py      MatchService: create_match, submit, load, events, authenticate... each
                    handed to the part that owns it
    submit.py       submit and append: the decide-on-cache loop, one encode and one fold per
                    event, the create, the append request (snapshot, meta, follow-up jobs)
    states.py       load and the state cache: the current state checked against the stream,
                    a state at any version from the kept snapshots, fold_along
    replays.py      keyed replays: the one idempotency check, a repeated create or move
                    answered from its record
    metadata.py     metadata and tokens: the fixed fields of a match (cached), seat-token
                    checks, the create's fields, the finished flag
    outcomes.py     Created and Appended, what the writes return (with the states to render)
    lobby.py        the lobby's writes (issue 30): a match with open seats, join (the token
                    minted in the join's append), leave, cancel, expiry, rematch
    lobby_index.py  the index of listed matches waiting for players (GET /v1/lobby)
    lobby_rematch.py  the rematch: the next match of a finished one, one id for every caller
    clock_service.py  the service's clocks (issue 31): overdue timeouts applied first,
                    abort, resign, claim, presence, stalls
    deadlines.py    the deadline job's work (mixed into the clocks): a stale job does
                    nothing, a due one times out, an early one chases the deadline
    clock.py        a match's running clock beside its log (`clk`): the turn, the banks, the
                    timeout's events and the deadline job
The storage underneath:
    event_store.py  the one atomic append (append.lua) and the reads of a match's stream
    index.py        the active and finished indexes, and the scan of every match
    keys.py         the names of a match's keys (one hash tag, one cluster slot)
    codec.py        stream entries <-> events, upcast at the edge
    snapshots.py    snapshots of folded state, so a long match loads in constant time
    idempotency.py  the records of keyed requests: a repeated POST appends nothing
    tokens.py       seat tokens: random, shown once, stored only as a keyed hash
    jobs.py         which follow-up job a state needs (asked of the game) and the RQ queues
    analysis.py     a finished match's analysis, stored once (SET NX)
    archive.py      retention: finished matches archived to gzip NDJSON, read back
    durability.py   the durability promise of an acknowledged move (DEADWOOD_DURABILITY)
    connection.py   Redis clients from the environment (one server or a cluster)
    errors.py       the store's refusals, each one HTTP status and problem `code`
Every process's own plumbing:
    logs.py         logging: JSON or text lines, the request id bound, the access line
    flushing.py     access lines and metric increments written off the request path, batched
    metrics.py      Prometheus metrics of every process
Accounts and the rated ladder (issue 32), in keys of their own beside the match logs:
    accounts.py     accounts and API keys (keyed hashes, scopes, revocation)
    ratings.py      the rating model (OpenSkill Plackett-Luce) and a Skill
    ledger.py       a variant's rating ledger: a match rated once, in a recorded order
    rebuild.py      every rating again from the logs (Redis, archive, exported), in that order
    seeks.py        seeks: an account asks to be paired (one open each, expiry, the claim)
    pairing.py      the pairing: open seeks grouped, claimed at once, their matches opened

The path of one move, top to bottom: `api/moves.py` Moves.post authenticates the seat and
calls `MatchService.submit` -> `Writer.submit` (submit.py) takes the cached state
(states.py), asks the game's `decide`, encodes the events once (`codec.stored_forms`) and
folds them once with `evolve` (`fold_along`, keeping the state before each), then
`EventStore.append` writes events, idempotency record, meta, snapshot and jobs in one script
-> the `Appended` comes back to `render_move` (api/moves.py), which renders each event from
the state it was applied to and the view after the last, without folding again.
"""
