"""Accounts, keys and the ladder (issue 32), through a `Client` (`client.accounts`).

    with Client(url) as anonymous:
        made = anonymous.accounts.create("mybot", "bot")   # the key is in made["key"]["key"],
    with Client(url, key=made["key"]["key"]) as me:       # shown this once: keep it
        me.accounts.keys("mybot")
        me.accounts.create_key("mybot", ["play_rated"], label="ladder")
        me.accounts.ladder("three-hand-gin")

The key travels as the `Deadwood-Key` header (never in a URL), beside a seat token in
`Authorization` when the client has both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deadwood_client.client import Client


class Accounts:
    """The account operations of one client."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def create(self, handle: str, kind: str = "human") -> dict[str, Any]:
        """POST /v1/accounts: {account, key}; `key.key` is shown this once."""
        response = self.client._call(
            "POST", "/accounts", json_body={"handle": handle, "kind": kind}
        )
        found: dict[str, Any] = response.json()
        return found

    def get(self, handle: str) -> dict[str, Any]:
        """GET /v1/accounts/{handle}: the account, its ratings and their history."""
        found: dict[str, Any] = self.client._get(f"/accounts/{handle}")
        return found

    def keys(self, handle: str) -> list[dict[str, Any]]:
        """GET /v1/accounts/{handle}/keys (with one of its keys): never the keys themselves."""
        found: list[dict[str, Any]] = self.client._get(f"/accounts/{handle}/keys")["keys"]
        return found

    def create_key(self, handle: str, scopes: Sequence[str], label: str = "") -> dict[str, Any]:
        """POST /v1/accounts/{handle}/keys: a new key (in `key`, shown this once)."""
        body = {"scopes": list(scopes), "label": label}
        found: dict[str, Any] = self.client._call(
            "POST", f"/accounts/{handle}/keys", json_body=body
        ).json()
        return found

    def revoke_key(self, handle: str, key_id: str) -> dict[str, Any]:
        """DELETE /v1/accounts/{handle}/keys/{key_id}: refused from the next request on."""
        found: dict[str, Any] = self.client._call(
            "DELETE", f"/accounts/{handle}/keys/{key_id}"
        ).json()
        return found

    def ladder(self, variant: str, offset: int = 0, limit: int = 50) -> dict[str, Any]:
        """GET /v1/ladder/{variant}: the accounts best first, from `offset`."""
        found: dict[str, Any] = self.client._get(
            f"/ladder/{variant}", params={"offset": offset, "limit": limit}
        )
        return found
