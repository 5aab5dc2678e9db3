"""A move's response is rendered from the states the service folded once (issue 29): the
state before each event rides in `Appended`, and the events it renders are the ones a fold
from the state before the move gives, for a fresh move and for its keyed replay alike."""

from __future__ import annotations

import random

from api.common import redacted_events, shown_events
from domain.events import SYSTEM
from store.service import MatchService
from tests.support import store_play


def test_a_moves_steps_are_the_fold_from_the_state_before_it(service: MatchService) -> None:
    for variant in (store_play.GIN, store_play.MANIP):
        match_id = store_play.create(service, variant).match_id
        rng = random.Random(5)
        for turn in range(40):
            loaded = service.load(match_id)
            game, state = loaded.variant, loaded.state
            if game.is_finished(state):
                break
            pending = game.pending(state)
            seat = SYSTEM if pending is not None else game.to_act(state)
            assert seat is not None
            move = pending or rng.choice(game.legal_moves(state, seat))
            key = f"k{turn}"
            first = service.submit(
                match_id, seat, move, expected_version=None, idempotency_key=key, fingerprint="f"
            )
            again = service.submit(
                match_id, seat, move, expected_version=None, idempotency_key=key, fingerprint="f"
            )
            assert again.replayed and not first.replayed
            for appended in (first, again):
                assert len(appended.befores) == len(appended.events)
                assert appended.befores[0] == appended.before == state
                for viewer in (None, *range(len(game.bot_seats(state)))):
                    folded = redacted_events(
                        game, appended.before, appended.events, viewer, public=False
                    )
                    assert shown_events(game, appended.steps(), viewer, False) == folded
