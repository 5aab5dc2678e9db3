// A three-hand-gin strategy: keep the hand that leaves the least deadwood, knock as soon as
// the server lists a knock. It only ever picks one of the seat's legal moves.
import type { GinView, Move } from "./client.js";

const RANKS = "A23456789TJQK";

function rank(card: string): number {
  return RANKS.indexOf(card[0] ?? "");
}

/** A card's deadwood points: ace 1, number cards their number, T J Q K 10. */
function points(card: string): number {
  return Math.min(rank(card) + 1, 10);
}

/** Every meld within `hand`: sets of 3 or 4 of a rank, runs of 3 or more in a suit. */
function melds(hand: string[]): number[][] {
  const found: number[][] = [];
  for (let r = 0; r < RANKS.length; r++) {
    const same = hand.flatMap((card, i) => (rank(card) === r ? [i] : []));
    if (same.length >= 3) found.push(same);
    if (same.length === 4) {
      for (let skip = 0; skip < 4; skip++) found.push(same.filter((_, j) => j !== skip));
    }
  }
  for (const suit of "CDHS") {
    const index = new Map<number, number>();
    hand.forEach((card, i) => card[1] === suit && index.set(rank(card), i));
    for (let start = 0; start < RANKS.length; start++) {
      const run: number[] = [];
      for (let r = start; index.has(r); r++) {
        run.push(index.get(r)!);
        if (run.length >= 3) found.push([...run]);
      }
    }
  }
  return found;
}

/** The least deadwood `hand` can be arranged to leave (no card in two melds). */
export function deadwood(hand: string[]): number {
  const all = melds(hand);
  const total = hand.reduce((sum, card) => sum + points(card), 0);
  const best = (from: number, used: Set<number>): number => {
    let most = 0;
    for (let m = from; m < all.length; m++) {
      const meld = all[m]!;
      if (meld.some((i) => used.has(i))) continue;
      const covered = meld.reduce((sum, i) => sum + points(hand[i]!), 0);
      const next = new Set([...used, ...meld]);
      most = Math.max(most, covered + best(m + 1, next));
    }
    return most;
  };
  return total - best(0, new Set());
}

const without = (hand: string[], card: string) => {
  const i = hand.indexOf(card);
  return i < 0 ? hand : [...hand.slice(0, i), ...hand.slice(i + 1)];
};

/** The least deadwood after taking `card` and throwing another one away. */
function afterTaking(hand: string[], card: string): number {
  const taken = [...hand, card];
  return Math.min(...hand.map((out) => deadwood(without(taken, out))));
}

export function chooseGin(view: GinView, moves: Move[]): Move {
  const hand = view.you?.hand ?? [];
  const first = moves[0];
  if (first === undefined) throw new Error("no legal move to choose from");
  const byType = <T extends Move["type"]>(type: T) =>
    moves.filter((m): m is Extract<Move, { type: T }> => m.type === type);

  // The opening offer and the draw: take the face-up card only when it lowers the deadwood.
  const up = view.discard_top;
  const takes = up != null && afterTaking(hand, up) < deadwood(hand);
  const take = byType("take_upcard")[0];
  const pass = byType("pass_upcard")[0];
  if (take && pass) return takes ? take : pass;
  const draws = byType("draw");
  if (draws.length > 0) {
    const fromDiscard = draws.find((m) => m.from === "discard");
    const fromStock = draws.find((m) => m.from === "stock");
    return (takes && fromDiscard) || fromStock || draws[0]!;
  }

  // Eleven cards: knock when the server lists a knock (the knock with the least deadwood),
  // else throw away the card that leaves the least deadwood (the higher card on a tie).
  const cost = (card: string) => deadwood(without(hand, card)) * 100 - points(card);
  const cheapest = <M extends { card?: string }>(listed: M[]) =>
    listed.reduce((a, b) => (cost(b.card ?? "") < cost(a.card ?? "") ? b : a));
  const knocks = byType("knock");
  if (knocks.length > 0) return cheapest(knocks);
  const discards = byType("discard");
  if (discards.length > 0) return cheapest(discards);
  return first;
}
