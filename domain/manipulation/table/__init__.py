"""The Manipulation table, exactly: is a submitted table a legal meld move (M2, I1-I6), and
which legal meld move sheds the most points (M6). Entry points: `rules.validate_meld_move`,
`solver.best_move`, `arrange.can_arrange` (`domain.manipulation.melds.best_move` is
`best_move` with the listed meld moves as its budget-spent fallback). Nothing here imports
from above the package.

Each module and its question, in the order `best_move` asks them (indented: asked inside):

solver.py        Which meld move sheds the most? Each freeing of table jokers (I3, M5.6)
                 and each set of small hand melds laid first, then `arrange` on the rest.
  local_moves.py   Does the whole hand go out by local moves? (validated: then the best)
  local_melds.py   Which melds does the hand make alone, which cards extend a meld?
  small.py         Which small melds (3-5 cards) can the hand lay first (I6, A-M18)?
  arrange.py       The best arrangement above a floor: going out, all but one card, the
                   window drops, jokers laid on, then a falling floor; `can_arrange`.
    quick.py         Do simple splits arrange these cards? (`can_arrange`'s certificate)
    going_out.py     Does the whole hand go out? If not, is all but one card the best?
    window_proof.py  Does a window of ranks prove that going out is impossible?
    best_above.py    The best above a floor, by one search (normal form, else full program)
    depth.py         Does everything fit? (nothing optional: two depth-first walks race)
    breadth.py       The best end state, breadth first (up and down the ranks racing)
    forms.py           the same steps on states grouped by the aces set aside for A-high
    step.py            one step over every state (`successors`: the one step loop)
    choices.py         the choices at one step (one suit at one rank)
    dominance.py       which states dominate others (dropped when a rank closes)
    state.py           what there is to place (`Supply`), the state in one int, `Budget`
    build.py         The melds of a traced run (and jokers laid on melds with room)
rules.py         Is T1 a legal meld move from T0 (I1-I6), under which options?
meld.py          Is this a valid meld (M2), and in what display order?
collector.py     The garbage collector paused while a question is answered.

Proven versus capped. `validate_meld_move` and `can_arrange` are exact with no limit. A
certificate (local moves, quick splits, a window proof) answers only when it is checked;
otherwise the next step asks. The going-out shortcuts and each window proof stop after a
set number of states (`GIVE_UP`, `PROBE`, `NEXT_BEST_STATES`, `WINDOW_DROP_STATES`,
`WINDOW_STATES`): stopping proves nothing and hands over to the next exact step, so these
cost time, never the answer. The one cap that can change an answer is `solver.BUDGET` =
100_000 states: `best_move` gives each call one `state.Budget`, and every search it makes
spends from it (each breadth step its states, the walks in chunks; a window proof only its
own `WINDOW_STATES`). When it runs out (`BudgetSpent`), `best_move` returns the best move
found so far, else the best fallback move, marked `proven=False`; `budget=None` lifts it.
Counted, never timed: the same answer on every machine.
"""
