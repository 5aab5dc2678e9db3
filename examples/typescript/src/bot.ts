// A Deadwood bot in TypeScript. With the service running (`make up` at the repository root):
//
//   npm ci && npm run generate && npm run build
//   node build/bot.js                                 # the demo: a gin match and a
//                                                     # manipulation round, every seat ours
//   node build/bot.js --match m_... --token 0.abc...  # play one seat you were given
//   node build/bot.js --key dwk... --seek [--games N]  # rated matches against whoever the
//                                                     # server pairs us with, until Ctrl-C
//                                                     # or N matches were played
//
// Options: --base-url (default http://127.0.0.1:8000), --seed (default 3),
// --only gin|manipulation; with --seek: --variant (default three-hand-gin), --seats,
// --move-s (the per-move clock, default 10), --target-score. Prints one JSON line per match
// it played.
import { parseArgs } from "node:util";
import {
  type Api,
  type Move,
  type Seek,
  type SeekBody,
  type View,
  cancelSeek,
  connect,
  createMatch,
  createSeek,
  getSeek,
  joinAs,
  legalMoves,
  nextEvent,
  openSeekOf,
  sendMove,
  sleep,
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

/** Set by Ctrl-C (SIGINT) or SIGTERM: finish the match under way, cancel an open seek, stop. */
let stopping = false;

/** POST /v1/seeks; a seek this account left open (an earlier run) is cancelled first, or
 * returned when it was paired meanwhile (its match is ours to play). */
async function seekAgain(api: Api, key: string, body: SeekBody): Promise<Seek> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await createSeek(api, key, body);
    } catch (error) {
      const stale = openSeekOf(error);
      if (stale === undefined || attempt >= 2) throw error;
      if (!(await cancelSeek(api, key, stale))) return getSeek(api, key, stale);
    }
  }
}

/** Seek and poll the seek every 0.5 s until it is paired (an expired or cancelled seek is made
 * again): the seek with its match. Null when stopped first (the open seek is cancelled). */
async function waitPaired(api: Api, key: string, body: SeekBody): Promise<Seek | null> {
  let seek = await seekAgain(api, key, body);
  for (;;) {
    if (seek.status === "paired" && seek.match) return seek;
    if (seek.status === "expired" || seek.status === "cancelled") {
      seek = await seekAgain(api, key, body);
      continue;
    }
    if (stopping) {
      if (await cancelSeek(api, key, seek.id)) return null;
    } else {
      await sleep(500);
    }
    seek = await getSeek(api, key, seek.id);
  }
}

/** Rated play: seek, be paired, join the reserved seat with the key, play it to the end;
 * again, until stopped or `games` matches were finished. */
async function seekAndPlay(api: Api, key: string, body: SeekBody, games?: number): Promise<void> {
  for (let played = 0; games === undefined || played < games; ) {
    const seek = await waitPaired(api, key, body);
    if (seek === null || !seek.match) return;
    const { id, seat } = seek.match;
    const joined = await joinAs(api, key, seek.account, id, seat);
    if (joined === null) continue; // called off before we joined: seek again
    const tokens = new Map([[joined.seat, joined.token]]);
    // A match called off before it started (a seat never joined) is finished, unplayed.
    const result = await play(api, id, tokens, (v) => v.status === "finished");
    report(id, result);
    if (result.view.lobby?.status !== "cancelled") played += 1;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      "base-url": { type: "string", default: "http://127.0.0.1:8000" },
      seed: { type: "string", default: "3" },
      only: { type: "string" },
      match: { type: "string" },
      token: { type: "string" },
      key: { type: "string" },
      seek: { type: "boolean", default: false },
      games: { type: "string" },
      variant: { type: "string", default: "three-hand-gin" },
      seats: { type: "string" },
      "move-s": { type: "string", default: "10" },
      "target-score": { type: "string" },
    },
  });
  const api = connect(values["base-url"]);
  if (values.seek) {
    if (values.key === undefined) throw new Error("--seek needs --key (an account key)");
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        stopping = true;
        console.error("stopping after the match under way");
      });
    }
    const { variant, seats, "target-score": target } = values;
    if (variant !== "three-hand-gin" && variant !== "manipulation-rummy") {
      throw new Error(`--variant ${variant}: three-hand-gin or manipulation-rummy`);
    }
    const body: SeekBody = {
      variant,
      rated: true,
      clock: { mode: "per_move", move_s: Number(values["move-s"]) },
      ...(seats === undefined ? {} : { seats: Number(seats) }),
      ...(target === undefined ? {} : { options: { target_score: Number(target) } }),
    };
    const games = values.games === undefined ? undefined : Number(values.games);
    return seekAndPlay(api, values.key, body, games);
  }
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
