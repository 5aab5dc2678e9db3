// The Deadwood API through openapi-fetch, typed by the types openapi-typescript generated
// from openapi.yaml (`npm run generate` writes src/api.d.ts). Every path, parameter, body and
// answer below is checked by `tsc --strict` against that file: a request the contract does
// not allow does not compile.
import { randomUUID } from "node:crypto";
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

export type Schemas = components["schemas"];
export type View = Schemas["View"];
export type GinView = Schemas["GinView"];
export type ManipulationView = Schemas["ManipulationView"];
export type Move = Schemas["Move"];
export type MoveResult = Schemas["MoveResult"];
export type CreateMatch = Schemas["CreateMatch"];
export type Created = Schemas["Created"];
export type Problem = Schemas["Problem"];

export type Api = ReturnType<typeof createClient<paths>>;

/** A refusal of the API: its problem+json body (`code` is the stable name to switch on). */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    super(problem ? `${status} ${problem.code}: ${problem.detail}` : `HTTP ${status}`);
  }
}

export function connect(baseUrl: string): Api {
  return createClient<paths>({ baseUrl });
}

/** The header that makes a request a seat's; none: a spectator. */
function as(token: string | null | undefined): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** How long a 429 or 503 asks us to wait (`Retry-After`, in seconds). */
function retryAfter(response: Response): number {
  const seconds = Number(response.headers.get("Retry-After") ?? "1");
  return Number.isFinite(seconds) ? Math.max(seconds, 0.1) * 1000 : 1000;
}

/**
 * Calls `call` again while the server says "later" (429 rate_limited, 503 store_unavailable)
 * or the connection failed (fetch throws a TypeError: the server may close a kept-alive
 * connection that waited out a Retry-After). Every call here is safe to repeat: GETs, and
 * POSTs that carry the same Idempotency-Key each time.
 */
async function patiently<T extends { response: Response }>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let answer: T;
    try {
      answer = await call();
    } catch (error) {
      if (!(error instanceof TypeError) || attempt >= 10) throw error;
      await sleep(100 * attempt);
      continue;
    }
    const later = answer.response.status === 429 || answer.response.status === 503;
    if (!later || attempt >= 20) return answer;
    await sleep(retryAfter(answer.response));
  }
}

export async function createMatch(api: Api, body: CreateMatch): Promise<Created> {
  // A create's Idempotency-Key is a secret (it gives back every seat token): fresh and random.
  const key = randomUUID();
  const { data, error, response } = await patiently(() =>
    api.POST("/v1/matches", { params: { header: { "Idempotency-Key": key } }, body }),
  );
  if (data === undefined) throw new ProblemError(response.status, error);
  return data;
}

export async function view(api: Api, matchId: string, token?: string | null): Promise<View> {
  const { data, error, response } = await patiently(() =>
    api.GET("/v1/matches/{match_id}", {
      params: { path: { match_id: matchId } },
      headers: as(token),
    }),
  );
  if (data === undefined) throw new ProblemError(response.status, error);
  return data;
}

export async function legalMoves(api: Api, matchId: string, token: string) {
  const { data, error, response } = await patiently(() =>
    api.GET("/v1/matches/{match_id}/legal-moves", {
      params: { path: { match_id: matchId } },
      headers: as(token),
    }),
  );
  if (data === undefined) throw new ProblemError(response.status, error);
  return data; // Schemas["LegalMoves"]: {version, seat, moves}
}

/**
 * Sends `move` for the version it was chosen at (If-Match). Returns null when the match moved
 * on first (412 version_conflict, 409 not_your_turn): read it again and choose again.
 * The Idempotency-Key makes a resend after a lost answer safe: it is applied once.
 */
export async function sendMove(
  api: Api,
  matchId: string,
  token: string,
  move: Move,
  version: number,
): Promise<MoveResult | null> {
  const key = randomUUID();
  const { data, error, response } = await patiently(() =>
    api.POST("/v1/matches/{match_id}/moves", {
      params: {
        path: { match_id: matchId },
        header: { "If-Match": `"${version}"`, "Idempotency-Key": key },
      },
      headers: as(token),
      body: move,
    }),
  );
  if (data !== undefined) return data;
  if (response.status === 409 || response.status === 412) return null;
  throw new ProblemError(response.status, error);
}

/**
 * Waits on the live stream (Server-Sent Events) until an event after `version` is stored,
 * the stream ends, or `ms` pass; then the caller reads the view again. `Last-Event-ID` starts
 * the stream after that seq. A refused or dropped stream (429 stream_limit, 503) just waits.
 */
export async function nextEvent(
  api: Api,
  matchId: string,
  version: number,
  token?: string | null,
  ms = 15_000,
): Promise<void> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), ms);
  try {
    const { data, response } = await api.GET("/v1/matches/{match_id}/events/stream", {
      params: { path: { match_id: matchId }, header: { "Last-Event-ID": String(version) } },
      headers: as(token),
      parseAs: "stream",
      signal: stop.signal,
    });
    if (!data) {
      await sleep(response.status === 429 || response.status === 503 ? retryAfter(response) : 200);
      return;
    }
    const text = new TextDecoder();
    let seen = "";
    for await (const chunk of data) {
      seen += text.decode(chunk, { stream: true });
      if (/^id: /m.test(seen)) return; // an event: the match moved on
    }
  } catch (error) {
    if (!stop.signal.aborted && !(error instanceof TypeError)) throw error;
  } finally {
    clearTimeout(timer);
    stop.abort(); // close the stream: it holds one of the caller's places
  }
}

// --- rated play with an account key (issue 32): seeks and a keyed join --------------------

type SeekPaths = paths["/v1/seeks"];
/** The body of POST /v1/seeks: `{variant, rated, clock, seats?, options?}`. */
export type SeekBody = NonNullable<SeekPaths["post"]["requestBody"]>["content"]["application/json"];
export type Seek = Schemas["Seek"];

/** The headers of a call made as the account: its key (and a fresh Idempotency-Key). */
function keyed(key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { "Deadwood-Key": key, ...extra };
}

/** POST /v1/seeks: ask to be paired. A 409 `seek_open` (this account has a seek open) names
 * the open seek in its detail: `openSeekOf` finds it. */
export async function createSeek(api: Api, key: string, body: SeekBody): Promise<Seek> {
  const idempotency = randomUUID();
  const { data, error, response } = await patiently(() =>
    api.POST("/v1/seeks", { headers: keyed(key, { "Idempotency-Key": idempotency }), body }),
  );
  if (data === undefined) throw new ProblemError(response.status, error);
  return data;
}

/** The id of the open seek a 409 `seek_open` names, if it is one. */
export function openSeekOf(error: unknown): string | undefined {
  if (!(error instanceof ProblemError) || error.problem?.code !== "seek_open") return undefined;
  return /\bs_[A-Za-z0-9_-]+/.exec(error.problem.detail ?? "")?.[0];
}

/** GET /v1/seeks/{seek_id}: the seek as its owner sees it (`match` once paired). */
export async function getSeek(api: Api, key: string, seekId: string): Promise<Seek> {
  const { data, error, response } = await patiently(() =>
    api.GET("/v1/seeks/{seek_id}", { params: { path: { seek_id: seekId } }, headers: keyed(key) }),
  );
  if (data === undefined) throw new ProblemError(response.status, error);
  return data;
}

/** DELETE /v1/seeks/{seek_id}: true when cancelled, false when it was paired first. */
export async function cancelSeek(api: Api, key: string, seekId: string): Promise<boolean> {
  const { data, error, response } = await patiently(() =>
    api.DELETE("/v1/seeks/{seek_id}", {
      params: { path: { seek_id: seekId } },
      headers: keyed(key),
    }),
  );
  if (data !== undefined) return true;
  if (response.status === 409) return false; // seek_paired: its match waits for us
  throw new ProblemError(response.status, error);
}

/** POST .../join as the account (its handle is the seat's name): the seat and its token, or
 * null when the match was called off first (410 lobby_closed). Right after the pairing the
 * match may not be written yet (404 unknown_match): that is tried again for up to 10 s. */
export async function joinAs(
  api: Api,
  key: string,
  handle: string,
  matchId: string,
  seat: number,
): Promise<{ seat: number; token: string } | null> {
  const until = Date.now() + 10_000;
  for (;;) {
    const idempotency = randomUUID();
    const { data, error, response } = await patiently(() =>
      api.POST("/v1/matches/{match_id}/join", {
        params: { path: { match_id: matchId } },
        headers: keyed(key, { "Idempotency-Key": idempotency }),
        body: { name: handle, seat },
      }),
    );
    if (data !== undefined && data.token) return { seat: data.seat, token: data.token };
    if (response.status === 410) return null;
    if (response.status !== 404 || Date.now() > until) {
      throw new ProblemError(response.status, error);
    }
    await sleep(100);
  }
}
