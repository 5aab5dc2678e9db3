// A Deadwood bot in TypeScript. With the service running (`make up` at the repository root):
//
//   npm ci && npm run generate && npm run build
//   node build/bot.js                                 # the demo: a gin match and a
//                                                     # manipulation round, every seat ours
//   node build/bot.js --match m_... --token 0.abc...  # play one seat you were given
//
// Options: --base-url (default http://127.0.0.1:8000), --seed (default 3),
// --only gin|manipulation. Prints one JSON line per match it played.
import { parseArgs } from "node:util";
import {
  type Api,
  type Move,
  type View,
  connect,
  createMatch,
  legalMoves,
  nextEvent,
  sendMove,
  view,
} from "./client.js";
import { chooseGin } from "./gin.js";
import { chooseManipulation } from "./manipulation.js";

/** The seat's pick among its legal moves, for either game. */
function choose(seatView: View, moves: Move[]): Move {
  return seatView.variant === "three-hand-gin"
    ? chooseGin(seatView, moves)
    : chooseManipulation(seatView, moves);
}

/** How long nothing may happen (no seat of ours to act, no move) before the bot gives up. */
const PATIENCE_MS = 120_000;

interface Played {
  view: View;
  moves: number;
  kinds: string[];
}

/**
 * Plays every seat we hold a token of until `done(view)`. The loop: read the match as a
 * spectator; when a seat of ours is to act, read its view (its hand) and its legal moves,
 * choose one and send it with If-Match. Otherwise (another seat's turn, or the server
 * scoring or dealing) wait on the live stream for the next event, and read again.
 */
async function play(
  api: Api,
  matchId: string,
  tokens: Map<number, string>,
  done: (view: View) => boolean,
): Promise<Played> {
  const kinds = new Set<string>();
  let moves = 0;
  let quiet = Date.now();
  for (;;) {
    const now = await view(api, matchId);
    if (done(now)) return { view: now, moves, kinds: [...kinds].sort() };
    const token = now.turn === null ? undefined : tokens.get(now.turn);
    if (token === undefined) {
      // Not ours to act: the server scores or deals, or another seat (a bot) plays.
      if (Date.now() - quiet > PATIENCE_MS) throw new Error(`nothing happened: ${matchId}`);
      await nextEvent(api, matchId, now.version);
      continue;
    }
    const seatView = await view(api, matchId, token);
    const legal = await legalMoves(api, matchId, token);
    if (legal.moves.length === 0 || legal.version !== seatView.version) continue;
    const move = choose(seatView, legal.moves);
    const result = await sendMove(api, matchId, token, move, legal.version);
    if (result === null) continue; // the match moved on: read it again
    moves += 1;
    kinds.add(move.type);
    quiet = Date.now();
  }
}

function report(id: string, played: Played): void {
  const { view: last, moves, kinds } = played;
  const line = {
    id,
    variant: last.variant,
    status: last.status,
    rounds: last.rounds.length,
    scores: last.scores,
    winners: last.winners,
    moves,
    kinds,
  };
  console.log(JSON.stringify(line));
}

/** A seeded three-hand-gin match, every seat ours, options given in part, to the end. */
async function ginMatch(api: Api, seed: number): Promise<void> {
  const created = await createMatch(api, {
    variant: "three-hand-gin",
    players: [{ name: "ana" }, { name: "ben" }, { name: "cy" }],
    seed,
    options: { target_score: 25 }, // the other options keep their defaults
  });
  const tokens = new Map(created.seats.flatMap((s) => (s.token ? [[s.seat, s.token]] : [])));
  const played = await play(api, created.id, tokens, (v) => v.status === "finished");
  report(created.id, played);
}

/** One round of a seeded manipulation-rummy match of three seats, every seat ours. */
async function manipulationRound(api: Api, seed: number): Promise<void> {
  const created = await createMatch(api, {
    variant: "manipulation-rummy",
    players: [{ name: "dee" }, { name: "eve" }, { name: "fay" }],
    seed,
    options: { knock_limit: 5 },
  });
  const tokens = new Map(created.seats.flatMap((s) => (s.token ? [[s.seat, s.token]] : [])));
  const played = await play(api, created.id, tokens, (v) => v.rounds.length >= 1);
  report(created.id, played);
}

/** One seat of a match someone else created, until the match is finished. */
async function oneSeat(api: Api, matchId: string, token: string): Promise<void> {
  const { seat } = await legalMoves(api, matchId, token);
  if (seat === null) throw new Error("this token is not a seat of that match");
  const tokens = new Map([[seat, token]]);
  report(matchId, await play(api, matchId, tokens, (v) => v.status === "finished"));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      "base-url": { type: "string", default: "http://127.0.0.1:8000" },
      seed: { type: "string", default: "3" },
      only: { type: "string" },
      match: { type: "string" },
      token: { type: "string" },
    },
  });
  const api = connect(values["base-url"]);
  if (values.match !== undefined && values.token !== undefined) {
    return oneSeat(api, values.match, values.token);
  }
  const seed = Number(values.seed);
  if (values.only !== "manipulation") await ginMatch(api, seed);
  if (values.only !== "gin") await manipulationRound(api, seed);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.message} ${error.cause ?? ""}` : error);
  process.exit(1);
});
