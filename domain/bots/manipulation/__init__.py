"""Manipulation Rummy's bots (each module's `explain` and `choose`; the registry is
domain/bots/__init__.py):

    basic.py   a greedy player that never rearranges the table
    expert.py  the best-shed solver and a sampled knock
    eval.py    what a bot can work out from one seat's view (M1.4, M6, M8, M10)
"""
