"""A second ecosystem proves the contract (issue 29): the TypeScript bot of
examples/typescript, typed by openapi-typescript (default settings) from the committed
openapi.yaml, compiled by `tsc --strict`, plays the real app through openapi-fetch.

Once per session (the `compiled` fixture of tests/e2e/conftest.py): `npm ci` (skipped while
node_modules was installed from this very package-lock.json), `openapi-typescript
../../openapi.yaml -o src/api.d.ts`, `tsc --strict` into examples/typescript/build
(node_modules, build and api.d.ts are git-ignored). Then the compiled bot, against gunicorn
with a worker on a private Redis, creates a match with partial options, plays a seeded
three-hand-gin match to the end and a manipulation-rummy round.

Without node and npm these tests are skipped with that reason; `make test` says so in one line
(the way the browser tests do).
"""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest

from tests.e2e.conftest import BOT, NODE, NPM

pytestmark = pytest.mark.skipif(
    NODE is None or NPM is None,
    reason="TypeScript bot NOT run: no node + npm (install Node 20+ with npm)",
)


def test_generated_types_take_partial_options(compiled: str) -> None:
    """Options a create leaves out are optional in the generated types; the options a view
    shows are all there (required), each with its `@default`."""
    given = re.search(r"GinOptionsInput: \{(.*?)\n        \};", compiled, re.S)
    shown = re.search(r"GinOptions: \{(.*?)\n        \};", compiled, re.S)
    assert given is not None and shown is not None
    assert "target_score?: number;" in given.group(1)
    assert "@default" not in given.group(1)
    assert "target_score: number;" in shown.group(1) and "@default 100" in shown.group(1)


def test_typescript_bot_plays_gin_to_the_end_and_a_manipulation_round(
    stack: Any, compiled: str
) -> None:
    stack.start_api(workers=2)
    stack.start_worker()
    assert NODE is not None
    done = subprocess.run(
        [NODE, "build/bot.js", "--base-url", stack.base_url, "--seed", "3"],
        cwd=BOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    print(done.stdout)
    gin, manipulation = (json.loads(line) for line in done.stdout.splitlines())
    assert gin["variant"] == "three-hand-gin" and gin["status"] == "finished"
    assert gin["winners"] and max(gin["scores"]) >= 25  # target_score 25, the one option given
    assert {"draw", "discard", "knock"} <= set(gin["kinds"]), gin
    assert manipulation["variant"] == "manipulation-rummy" and manipulation["rounds"] == 1
    assert {"draw", "meld"} <= set(manipulation["kinds"]), manipulation
