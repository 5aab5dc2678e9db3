"""The pairing job (issue 32): `pairing-<variant>` on queue `scoring` runs
`pair_seeks(variant)` after every new seek (store/seeks.py `enqueue_pairing`: one queued job
however many seeks arrive at once), and again on rq's scheduler every DEADWOOD_PAIRING_EVERY_S
while open seeks of the variant remain (`schedule_pairing`), so a seek that waits past the
bot-fill delay is completed with built-in bots without a new seek to wake the pairing.

A run is store/pairing.py's: pending pairings opened first (a run that died after its claim),
then open seeks grouped and each group claimed in one atomic step and its match opened. Runs
may overlap (several workers, a tick and a seek's job): a seek is claimed by one run at most.
"""

from __future__ import annotations

from store.pairing import Pairing, describe
from store.seeks import seek_service
from workers.connection import service


def pair_seeks(variant: str) -> str:
    """One pairing run over `variant`'s open seeks; a short JSON note (the job result)."""
    seeks = seek_service(service())
    report = Pairing(seeks).run(variant)
    if report.left:
        seeks.schedule_pairing(variant)
    return describe(report)
