"""`python -m cli ...`: the `deadwood` command (up, openapi, arena and the client subcommands)."""

from __future__ import annotations

from cli.up import main

raise SystemExit(main())
