"""The `deadwood` command: the launcher, the process kinds of a deployment, and the tools.

__main__.py     `python -m cli ...`: the `deadwood` command
up.py           the command's parser, `deadwood up` (Redis, API, workers), `openapi`
supervise.py    the children of `deadwood up` and their supervision
serve.py        `deadwood api` and `deadwood worker`: one process kind each
cluster.py      a local Redis Cluster (`deadwood up --cluster`): 3 primaries, 3 replicas
procs.py        process helpers: the redis-server binary, free ports, waiting to listen
pepper.py       the token pepper of `deadwood up`, kept in the data directory
limits.py       the rate limits `deadwood up` turns on by default
client.py       the subcommands of players and bot authors: new, play, tail, export,
                replay, verify
lobby.py        `deadwood lobby` and `deadwood join`: matches waiting for players, a seat
arena.py        `deadwood arena`: bot-against-bot matches in-process, a results table
arena_clock.py  `deadwood arena --clock`: the matches through the service, with clocks
conduct.py      `deadwood abort|resign|claim`, and `deadwood new --clock`
analyze.py      `deadwood analyze LOG`: a finished match's analysis, offline
ladder.py       `deadwood account ...` and `deadwood ladder show|rebuild` (issue 32)
seek.py         `deadwood seek create|show|cancel|list` and `deadwood play --seek` (issue 32)
"""
