"""A Deadwood bot: start a match against two built-in bots (or join a seat) and play it out.
With `make up` running:  python examples/simple_bot.py  (you are ana, vs two `basic` bots)
or, for a seat you were given:  python examples/simple_bot.py --match m_... --token ...
"""

import argparse

from deadwood_client import Client, Move, View, play

SEATS = [{"name": "ana"}, {"name": "ben", "bot": "basic"}, {"name": "cy", "bot": "basic"}]


def choose(view: View) -> Move:
    """Knock when allowed, else draw from the stock, else throw the highest card away."""
    assert view["you"] is not None  # play() asks only when it is this seat's turn
    moves = [m for m in view["you"]["legal_moves"] if m["type"] != "advise"]
    for kind in ("knock", "meld", "draw", "pass_upcard", "end_turn", "pass"):
        if found := [m for m in moves if m["type"] == kind and m.get("from") != "discard"]:
            return found[0]
    return max(moves, key=lambda m: "A23456789TJQK".find(m.get("card", "A")[0]))


def main(argv: list[str] | None = None) -> View:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag in ("--base-url", "--match", "--token", "--target-score"):
        cli.add_argument(flag)
    args = cli.parse_args(argv)
    with Client(args.base_url or "http://127.0.0.1:8000", args.token) as client:
        if args.match is None:  # a new match; the token of seat 0 is ours
            options = {"target_score": int(args.target_score or 100)}
            created = client.create_match("three-hand-gin", SEATS, options=options)
            args.match, client.token = created["id"], created["seats"][0]["token"]
        final = play(client, args.match, choose)
    print(f"{args.match} finished: scores {final['scores']}, winners {final['winners']}")
    return final


if __name__ == "__main__":
    main()
