"""RQ jobs: round scoring, bot turns, and the reconciler that re-creates lost jobs.

Jobs are named by dotted path (`workers.scoring.score_round`,
`workers.bot_turn.play_bot_turn`) and take only a match id and a version, so the API and the
store enqueue them without importing this package. Each job runs the same load / decide /
append path as a client's move (`store.service.MatchService.submit`), checks the version it
was made for, and so does nothing when it is stale or runs twice.

    scoring.py      the SYSTEM-move jobs: score an ended round, deal the next, finish the match
    bot_turn.py     the bot-turn job: the bot of the seat to act plays one move
    analysis.py     the analysis job: a finished match analysed and stored once
    rating.py       the rating job: a finished rated match rated once (store/ledger.py)
    pairing.py      the pairing job (issue 32): open seeks made into matches, after each seek
                    and on rq's scheduler while seeks wait
    lobby.py        the lobby's job on rq's scheduler: a match still waiting at its deadline
                    is cancelled
    reconcile.py    the reconciler: a lost follow-up job is made again
    deadline.py     the deadline job: a clocked turn's timeout, on rq's scheduler
    retries.py      a job's last attempt: a failing bot falls back, a system job stalls
    connection.py   the MatchService a job uses (store.config.build_service, as the API's)
    run.py          the worker process: queues `scoring`, `bots`, `bots-low`, the reconciler
    lifeline.py     no orphans: a child process that dies with its parent (PR_SET_PDEATHSIG)
"""
