"""The clock's conduct calls (issue 31), mixed into `Client`: abort a match nobody has
started, resign a seat, claim against an absent seat to act. Each answers like a move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import httpx

from deadwood_client.types import MoveResult


class ConductCalls:
    """POST .../abort, .../resign and .../claim."""

    _call: Callable[..., httpx.Response]  # Client's: one request, resent when safe
    _note_version: Callable[[str, Any], None]  # Client's: the version last seen of a match

    def abort(self, match_id: str) -> MoveResult:
        """POST .../abort: end a clocked match before every seat has moved (unscored)."""
        return self._conduct(match_id, "abort")

    def resign(self, match_id: str) -> MoveResult:
        """POST .../resign: two seats, the other wins; more, a bot plays this seat on."""
        return self._conduct(match_id, "resign")

    def claim(self, match_id: str) -> MoveResult:
        """POST .../claim against the absent seat to act (ClaimNotAvailable.seconds_left)."""
        return self._conduct(match_id, "claim")

    def _conduct(self, match_id: str, action: str) -> MoveResult:
        path = f"/matches/{match_id}/{action}"
        result = cast(MoveResult, self._call("POST", path, json_body={}).json())
        self._note_version(match_id, result["version"])
        return result
