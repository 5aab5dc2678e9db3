"""Undoing a test's `store.logs.configure`: the handlers it added to the root logger go, and
the next `configure` starts afresh."""

from __future__ import annotations

import logging

from store import logs


def unconfigure_logs() -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_deadwood", False):
            root.removeHandler(handler)
    logs._configured = None
