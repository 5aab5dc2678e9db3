"""`coach` three-handed gin: `basic`'s play with `expert`'s advice (G1.3, G1.4).

As BOX or CAPTAIN it plays exactly as `basic` (and, as CAPTAIN, follows advice it is given).
As ADVISOR it advises the captain with the move `expert` would make from the captain's hand.
A line-up `coach,basic,basic` in `deadwood arena --advice` thus plays basic against basic
throughout, and only the advice differs between the rounds `coach` advises and the rest.
"""

from __future__ import annotations

import random

from domain.bots.common import Legal, Move, ViewJSON, choose_of
from domain.bots.gin import basic, expert


def explain(view: ViewJSON, legal_moves: Legal, rng: random.Random) -> tuple[Move, str]:
    """The expert's advice as ADVISOR, else the basic move."""
    if {m.get("type") for m in legal_moves} == {"advise"}:
        return expert.explain(view, legal_moves, rng)
    return basic.explain(view, legal_moves, rng)


choose = choose_of(explain)
