"""The cyclic garbage collector paused while a table question is answered.

A search of the table program keeps every step's states and back pointers until it is
read back: on a 60-card table with two free jokers that is 10^5 dicts, lists and tuples
held at once, none of them in a reference cycle (each is freed by its reference count
when the search ends). Yet the allocations trigger collections, and each collection of
an older generation walks them all again: measured (`bench/table.py`, a 2-joker search
of 116,000 states), about 45% of the search's CPU time, and a third of the 60-card
tail. Pausing the collector changes no answer (it frees only cycles, and the table code
makes none) and leaves what the question allocated to reference counting, as before.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Pause the collector for the block, if it is running; only the pause that stopped it
    starts it again (a nested or concurrent one finds it stopped and leaves it be)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
