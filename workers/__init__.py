"""RQ jobs: round scoring, bot turns, and the reconciler that re-creates lost jobs.

Jobs are named by dotted path (`workers.scoring.score_round`,
`workers.bot_turn.play_bot_turn`) and take only a match id and a version, so the API and the
store enqueue them without importing this package. Each job runs the same load / decide /
append path as a client's move (`store.service.MatchService.submit`), checks the version it
was made for, and so does nothing when it is stale or runs twice.
"""
