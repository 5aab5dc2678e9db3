"""`python -m deadwood_client play|tail|export|replay|verify ...` (the `deadwood` subcommands)."""

from __future__ import annotations

from deadwood_client.cli import main

raise SystemExit(main())
