"""Three-handed gin's bots (each module's `explain` and `choose`; the registry is
domain/bots/__init__.py):

    basic.py   a greedy player that looks only at its own deadwood
    expert.py  hand potential, a sampled opponent, a timed knock, gin against a weak opponent;
               the advisor's advice
    coach.py   `basic`'s play with `expert`'s advice
    eval.py    what a bot can work out from one seat's view, on 52-bit card masks
    reading.py what the match's earlier rounds say about the opponent (is it weak?)
"""
