"""`deadwood account ...` and `deadwood ladder ...` (issue 32).

    deadwood account create HANDLE [--kind human|bot]   prints the key once: keep it
    deadwood account show HANDLE                        the account and its ratings
    deadwood account keys HANDLE                        its keys (needs --key)
    deadwood account new-key HANDLE --scope S [...]     a new key (needs --key)
    deadwood account revoke HANDLE KEY_ID               (needs --key)
    deadwood ladder show VARIANT [--offset N] [--limit N]
    deadwood ladder rebuild [--variant V] [--check] [--logs DIR] [--scan]

The account and `ladder show` commands call a server (`--base-url`, default $DEADWOOD_URL,
else http://127.0.0.1:8000; `--key`, default $DEADWOOD_KEY). `ladder rebuild` works on the
store itself (REDIS_URL, DEADWOOD_ARCHIVE_DIR, like a worker): it rates every match of the
ledger's order again from its log (in Redis, in the archive, or in `--logs DIR` of exported
`<match id>.ndjson` files), says whether the result equals the live ratings bit for bit, and
(without `--check`) writes it in place of the ledger. `--scan` also rates, after those, the
finished rated matches the ledger lacks (a job that never ran), from the finished index and
the archive, in the order they finished.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from domain.accounts import KINDS, SCOPES
from domain.variants import NAMES

DEFAULT_URL = "http://127.0.0.1:8000"


def register(subparsers: Any) -> None:
    account = subparsers.add_parser("account", help="accounts and API keys (issue 32)")
    actions = account.add_subparsers(dest="action", required=True)
    made = _server(actions.add_parser("create", help="a new account; prints its key once"))
    made.add_argument("handle")
    made.add_argument("--kind", choices=KINDS, default="human")
    for name, text in (("show", "the account and its ratings"), ("keys", "its keys")):
        _server(actions.add_parser(name, help=text)).add_argument("handle")
    new_key = _server(actions.add_parser("new-key", help="a new key with some scopes"))
    new_key.add_argument("handle")
    new_key.add_argument("--scope", action="append", choices=SCOPES, required=True)
    new_key.add_argument("--label", default="")
    revoke = _server(actions.add_parser("revoke", help="revoke a key at once"))
    revoke.add_argument("handle")
    revoke.add_argument("key_id")
    account.set_defaults(handler=run_account)
    ladder = subparsers.add_parser("ladder", help="the rated ladder (issue 32)")
    steps = ladder.add_subparsers(dest="action", required=True)
    show = _server(steps.add_parser("show", help="a page of a variant's ladder"))
    show.add_argument("variant", choices=NAMES)
    show.add_argument("--offset", type=int, default=0)
    show.add_argument("--limit", type=int, default=50)
    again = steps.add_parser("rebuild", help="every rating again from the matches' logs")
    again.add_argument("--variant", choices=NAMES, action="append")
    again.add_argument("--check", action="store_true", help="compare only; write nothing")
    again.add_argument("--logs", type=Path, help="a directory of exported <match id>.ndjson")
    again.add_argument(
        "--scan",
        action="store_true",
        help="also rate finished rated matches the ledger lacks (finished index, archive)",
    )
    ladder.set_defaults(handler=run_ladder)


def _server(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--base-url", default=os.environ.get("DEADWOOD_URL", DEFAULT_URL))
    parser.add_argument("--key", default=os.environ.get("DEADWOOD_KEY"), help="$DEADWOOD_KEY")
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    return parser


def client(args: argparse.Namespace) -> Any:
    """The client of the server the command names (`--base-url`, `--key`)."""
    from deadwood_client.client import Client

    return Client(args.base_url, key=args.key)


def run_account(args: argparse.Namespace) -> int:
    from deadwood_client.errors import DeadwoodError

    try:
        with client(args) as caller:
            answer = _account_call(caller.accounts, args)
    except DeadwoodError as error:
        print(f"deadwood account {args.action}: {error}", file=sys.stderr)
        return 1
    print(json.dumps(answer, indent=2) if args.json else _account_text(args.action, answer))
    return 0


def _account_call(accounts: Any, args: argparse.Namespace) -> Any:
    if args.action == "create":
        return accounts.create(args.handle, args.kind)
    if args.action == "show":
        return accounts.get(args.handle)
    if args.action == "keys":
        return accounts.keys(args.handle)
    if args.action == "new-key":
        return accounts.create_key(args.handle, args.scope, args.label)
    return accounts.revoke_key(args.handle, args.key_id)


def _account_text(action: str, answer: Any) -> str:
    if action == "create":
        account, key = answer["account"], answer["key"]
        return (
            f"account {account['handle']} ({account['kind']})\n"
            f"key {key['id']} ({', '.join(key['scopes'])}), shown only this once:\n{key['key']}"
        )
    if action == "new-key":
        return (
            f"key {answer['id']} ({', '.join(answer['scopes'])}), shown only once:\n{answer['key']}"
        )
    if action == "keys":
        return "\n".join(
            f"{k['id']}  {','.join(k['scopes']):<40} last used {k['last_used'] or 'never'}"
            for k in answer
        )
    if action == "revoke":
        return f"key {answer['id']} revoked"
    lines = [f"{answer['handle']} ({answer['kind']}{', built-in' if answer['builtin'] else ''})"]
    for variant, rating in answer["ratings"].items():
        lines.append(f"  {variant}: {_rating(rating) if rating else 'not rated'}")
    return "\n".join(lines)


def _rating(r: dict[str, Any]) -> str:
    mark = " provisional" if r["provisional"] else ""
    return (
        f"{r['rating']:6.2f}  (mu {r['mu']:.2f} +- {2 * r['sigma']:.2f}, {r['games']} games{mark})"
    )


def run_ladder(args: argparse.Namespace) -> int:
    if args.action == "rebuild":
        return _rebuild(args)
    from deadwood_client.errors import DeadwoodError

    try:
        with client(args) as caller:
            page = caller.accounts.ladder(args.variant, args.offset, args.limit)
    except DeadwoodError as error:
        print(f"deadwood ladder show: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(page, indent=2))
        return 0
    print(f"{page['variant']}: {page['total']} accounts")
    for row in page["rows"]:
        kind = " [bot]" if row["bot"] else ""
        print(f"{row['place']:>5}  {row['handle'] + kind:<30} {_rating(row)}")
    return 0


def _rebuild(args: argparse.Namespace) -> int:
    from store.accounts import Accounts
    from store.config import ServiceConfig, build_service
    from store.ledger import Ledger
    from store.rebuild import ExportedLogs, StoredLogs, discover, rebuild

    service = build_service(ServiceConfig.from_env())
    accounts = Accounts(service.redis, service.pepper)
    stored = StoredLogs(service.redis, service.archive)
    logs: Any = ExportedLogs(args.logs) if args.logs else stored
    status = 0
    for variant in args.variant or NAMES:
        started = time.perf_counter()
        ledger = Ledger(service.redis)
        extra = discover(stored, variant, ledger.order(variant)) if args.scan else []
        write = not args.check
        report = rebuild(ledger, variant, logs, accounts.is_bot, extra=extra, write=write)
        took = time.perf_counter() - started
        same = "equal to the live ratings" if report.equal else "DIFFERENT from the live ratings"
        done = "checked" if args.check else "rebuilt"
        print(
            f"{variant}: {done} {report.rated} of {report.matches} matches in {took:.2f} s, "
            f"{len(report.state.skills)} accounts, {same}"
        )
        for match_id in report.missing[:10]:
            print(f"  not rated again (no finished rated log found): {match_id}")
        if args.check and not report.equal:
            status = 1
    return status
