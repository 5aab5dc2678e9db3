"""The lobby's calls (issue 30), mixed into `Client`: list the matches waiting for players,
join one (the seat's token comes back once; with an account key, as the account: issue 32),
leave, cancel, and ask for a rematch.

Every POST carries an `Idempotency-Key` (a fresh one unless given), so a call whose answer
was lost is resent safely: a repeated join gives the same seat and token back.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, cast

import httpx

from deadwood_client.types import Joined, LobbyPage, SeatsChanged


class LobbyCalls:
    """GET /v1/lobby and POST .../join, .../leave, .../cancel, .../rematch."""

    _call: Callable[..., httpx.Response]  # Client's: one request, resent when safe

    def lobby(
        self, *, variant: str | None = None, cursor: str | None = None, limit: int = 50
    ) -> LobbyPage:
        """One page of listed matches waiting for players (`next`: the following page)."""
        params: dict[str, Any] = {"limit": limit}
        if variant is not None:
            params["variant"] = variant
        if cursor is not None:
            params["cursor"] = cursor
        return cast(LobbyPage, self._call("GET", "/lobby", params=params).json())

    def join(
        self,
        match_id: str,
        name: str | None = None,
        *,
        seat: int | None = None,
        idempotency_key: str | None = None,
    ) -> Joined:
        """Take an open seat (`seat`, or the first): its new token is in the answer, once.

        Without a key `name` is needed. With the client's account key (issue 32) the seat is
        the account's and is named after its handle (a `name` given must be that handle); a
        rated match's seat, or one reserved for the account (a seek's pairing), needs it."""
        body: dict[str, Any] = {} if name is None else {"name": name}
        if seat is not None:
            body["seat"] = seat
        return cast(Joined, self._post(f"/matches/{match_id}/join", body, idempotency_key))

    def leave(self, match_id: str, *, idempotency_key: str | None = None) -> SeatsChanged:
        """Give up this seat before the start: this client's token is dead afterwards."""
        return cast(SeatsChanged, self._post(f"/matches/{match_id}/leave", None, idempotency_key))

    def cancel(self, match_id: str, *, idempotency_key: str | None = None) -> SeatsChanged:
        """Cancel a match that waits for players (a seat the creator held)."""
        path = f"/matches/{match_id}/cancel"
        return cast(SeatsChanged, self._post(path, None, idempotency_key))

    def rematch(self, match_id: str, *, idempotency_key: str | None = None) -> Joined:
        """The next match of a finished one, this seat in it (`token` None if claimed before)."""
        path = f"/matches/{match_id}/rematch"
        return cast(Joined, self._post(path, None, idempotency_key))

    def _post(self, path: str, body: Any, key: str | None) -> Any:
        headers = {"Idempotency-Key": key or str(uuid.uuid4())}
        return self._call("POST", path, json_body=body, headers=headers).json()
