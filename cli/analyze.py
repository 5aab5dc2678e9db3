"""`deadwood analyze LOG`: the move-by-move analysis of a finished match's log, offline.

The log is any exported (`deadwood export`, GET .../log, with or without `?annotations=true`)
or replayed NDJSON log; it is checked with the rules first (as `deadwood replay`), then
analysed by the same analyser the server's job runs (domain.analysis). It prints the summary
per seat and the costliest decisions, or with `--json` the whole analysis as the API serves it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

HELP = """examples:
  deadwood export --match m_7Qx... > match.ndjson
  deadwood analyze match.ndjson            # the summary per seat and the biggest mistakes
  deadwood analyze match.ndjson --json     # every judged decision, as GET .../analysis
"""


def register(subparsers: Any) -> None:
    """Add `analyze` to a `deadwood` parser's subparsers."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "analyze",
        help="judge every decision of a finished match's log (offline)",
        description="judge every decision of a finished match's log (offline)",
        epilog=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", help="an NDJSON log (deadwood export), or - for standard input")
    parser.add_argument("--json", action="store_true", help="print the whole analysis as JSON")
    parser.add_argument("--top", type=int, default=10, help="the costliest decisions to list")
    parser.set_defaults(handler=analyze)


def analyze(args: argparse.Namespace) -> int:
    from deadwood_client.logfile import LogError, check, read_log
    from domain.analysis import MatchNotFinished, analyse
    from domain.events import Event
    from domain.upcast import upcast

    try:
        items = read_log(args.file)
        check(items)
    except LogError as error:
        print(f"deadwood analyze: rejected at {error}", file=sys.stderr)
        return 1
    events: list[Event] = []
    for item in items:
        event = Event(str(item["type"]), dict(item["data"]), int(item.get("v", 1)))
        events.append(upcast(event, str(items[0]["data"].get("variant"))))
    try:
        found = analyse(events).as_json()
    except MatchNotFinished as error:
        print(f"deadwood analyze: {error}: no analysis during play", file=sys.stderr)
        return 1
    print(json.dumps(found, indent=1) if args.json else report(found, args.top))
    return 0


def report(analysis: dict[str, Any], top: int) -> str:
    """The summary table per seat and the `top` costliest decisions, as text."""
    unit = analysis["thresholds"]["unit"]
    lines = [f"{analysis['variant']}: {analysis['events']} events, costs in {unit}"]
    lines.append(f"{'seat':<14}{'decisions':>10}{'avg cost':>10}  best/good/inacc/mistake/blunder")
    for seat in analysis["seats"]:
        counts = "/".join(str(n) for n in seat["counts"].values())
        name = f"{seat['seat']} {seat['name']}"[:13]
        lines.append(f"{name:<14}{seat['decisions']:>10}{seat['average_cost']:>10.2f}  {counts}")
    costly = sorted(analysis["decisions"], key=lambda d: (-d["cost"], d["seq"]))[:top]
    if costly:
        lines.append("costliest decisions:")
    for d in costly:
        lines.append(f"  #{d['seq']:<5} seat {d['seat']} {d['judgment']:<10} {d['note']}")
    for fact in analysis["hindsight"]:
        if fact["kind"] != "discard_taken":
            lines.append(f"  hindsight #{fact['seq']} seat {fact['seat']}: {fact['note']}")
    return "\n".join(lines)
