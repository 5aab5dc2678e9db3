"""A Deadwood bot: start a match against two built-in bots (or join a seat) and play it out.
With `make up` running:  python examples/simple_bot.py  (you are ana, vs two `basic` bots)
or, for a seat you were given:  python examples/simple_bot.py --match m_... --token ...
or rated, against whoever the server pairs you with (an account key), until Ctrl-C or N
matches:  python examples/simple_bot.py --key dwk... --seek [--games N] [--variant V --seats N]
"""

import argparse

from deadwood_client import Client, Move, View, play, play_seeking

SEATS = [{"name": "ana"}, {"name": "ben", "bot": "basic"}, {"name": "cy", "bot": "basic"}]
CLOCK = {"mode": "per_move", "move_s": 10}  # a rated match needs a clock


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
    for flag in ("--base-url", "--match", "--token", "--key", "--target-score"):
        cli.add_argument(flag)
    cli.add_argument("--seek", action="store_true")
    cli.add_argument("--variant", default="three-hand-gin")
    cli.add_argument("--games", type=int)
    cli.add_argument("--seats", type=int)
    args = cli.parse_args(argv)
    options = {"target_score": int(args.target_score)} if args.target_score else None
    with Client(args.base_url or "http://127.0.0.1:8000", args.token, key=args.key) as client:
        if args.seek:  # rated: seek, be paired, join, play; again
            return play_seeking(
                client, args.variant, CLOCK, choose, games=args.games, seats=args.seats,
                options=options, say=print,
            )[-1]  # fmt: skip
        if args.match is None:  # a new match; the token of seat 0 is ours
            created = client.create_match(args.variant, SEATS, options=options)
            args.match, client.token = created["id"], created["seats"][0]["token"]
        final = play(client, args.match, choose)
    print(f"{args.match} finished: scores {final['scores']}, winners {final['winners']}")
    return final


if __name__ == "__main__":
    main()
