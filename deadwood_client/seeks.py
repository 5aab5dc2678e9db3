"""Seeks (issue 32), mixed into `Client`: ask to be paired, read the seek, cancel it, list
the open ones. The client's account key (`Client(url, key=...)`) is the seeker.

    with Client(url, key=key) as me:
        seek = me.seek("three-hand-gin", clock={"mode": "per_move", "move_s": 10})
        while (seek := me.get_seek(seek["id"]))["status"] == "open": time.sleep(0.5)
        if seek["status"] == "paired" and seek["match"]:
            joined = me.join(seek["match"]["id"], seat=seek["match"]["seat"])

A seek is open until the pairing job puts it in a match (`paired`, with `match`: the seat
reserved for this account), it is cancelled, or it expires. An account has one open seek at
a time (409 `SeekOpen`, whose `seek_id` names it). `deadwood_client.seeking.play_seeking`
is the whole loop: seek, wait, join, play, again.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any, cast

import httpx

from deadwood_client.types import OpenSeek, Seek


class SeekCalls:
    """POST/GET /v1/seeks, GET/DELETE /v1/seeks/{id}."""

    _call: Callable[..., httpx.Response]  # Client's: one request, resent when safe

    def seek(
        self,
        variant: str,
        *,
        clock: Mapping[str, Any] | None = None,
        rated: bool = True,
        seats: int | None = None,
        options: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Seek:
        """POST /v1/seeks: ask to be paired for a match of `variant` (a rated one needs a
        `clock`, e.g. `{"mode": "per_move", "move_s": 10}`). `seats`: the match's seat count
        (default: the variant's). The new seek, `status` open."""
        body: dict[str, Any] = {"variant": variant, "rated": rated}
        if clock:
            body["clock"] = dict(clock)
        if seats is not None:
            body["seats"] = seats
        if options:
            body["options"] = dict(options)
        headers = {"Idempotency-Key": idempotency_key or str(uuid.uuid4())}
        return cast(Seek, self._call("POST", "/seeks", json_body=body, headers=headers).json())

    def get_seek(self, seek_id: str) -> Seek:
        """GET /v1/seeks/{id}: the seek as its owner sees it (`match` once it is paired)."""
        return cast(Seek, self._call("GET", f"/seeks/{seek_id}").json())

    def cancel_seek(self, seek_id: str) -> Seek:
        """DELETE /v1/seeks/{id}: an open seek is cancelled (again: the same answer); a
        paired one is refused with 409 `SeekPaired` (its match waits: join it)."""
        return cast(Seek, self._call("DELETE", f"/seeks/{seek_id}").json())

    def seeks(self, variant: str | None = None) -> list[OpenSeek]:
        """GET /v1/seeks: every open seek (of `variant`), oldest first, public fields only."""
        params = {"variant": variant} if variant is not None else None
        page = self._call("GET", "/seeks", params=params).json()
        return cast(list[OpenSeek], page["seeks"])
