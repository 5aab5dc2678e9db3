"""Deadwood's rules: pure Python, standard library only, no clock, no global random, no I/O.

The games are packages (gin/, manipulation/), the bots bots/, the analysis analysis/; the
modules here are what every game shares:

    variants.py   the game surface `Game[S, M, V]` and the registry that finds a game by name
    shapes.py     JSON values, the shapes both games share, MatchCreated's and the lobby's
                  payloads, the
                  pattern for a new event's payload
    events.py     `Event`: type, version and JSON data, the only record of a match
    creation.py   MatchCreated, written once for both games (seed, deal key, secret)
    players.py    the roster of a new match, checked once for every game
    lobby.py      open seats (issue 30): a match that waits for its players, joins, leaves,
                  the start (the game's own opening) and a cancel, and their fold steps
    lobby_shapes.py  the lobby's view and list entries (its payloads are in shapes.py)
    options.py    the option tables both games check a match's options against
    cards.py      `Card` and `TableCard`: the codes, parsed and printed
    shuffle.py    the deal's randomness: HMAC-SHA256 from the deal key, the commitment
    errors.py     `RulesError` and its precise subclasses
    replay.py     `fold`: a log folded into its state
    upcast.py     old event payloads read as current ones (at the store's edge)
    log_check.py  a match log (a client's upload) checked event by event against the rules
    frozen.py     read-only JSON parts a view shares between states (a speed trick, bench/README.md)
    memo.py       memoising a pure function by the identity of its argument (a speed trick)
    clock.py      match clocks as pure arithmetic: the options, a move's effect on a bank
    clock_shapes.py  the clock's option and view shapes, the payloads of time's events
    conduct.py    timeouts, bots taking seats, aborts, resignations, claims: their events
                  and how both games fold them (the store decides when, issue 31)
    accounts.py   account handles, kinds and key scopes; the built-in bots' handles (issue 32)
    rated.py      rated matches: the create rules, and a finished match's placings and ranks
    pairing.py    seeks paired (issue 32): compatible terms, rating neighbours, bots to fill
"""
