// A manipulation-rummy strategy: play the listed meld that puts the most cards on the table,
// else draw, else knock, else end the turn (or pass in the final turns).
import type { ManipulationView, Move } from "./client.js";

const ORDER: Move["type"][] = ["draw", "knock", "end_turn", "pass"];

export function chooseManipulation(_view: ManipulationView, moves: Move[]): Move {
  const melds = moves.filter((m) => m.type === "meld");
  const size = (m: Move) => (m.type === "meld" ? m.table.flat().length : 0);
  if (melds.length > 0) return melds.reduce((a, b) => (size(b) > size(a) ? b : a));
  for (const type of ORDER) {
    const found = moves.find((m) => m.type === type);
    if (found) return found;
  }
  const first = moves[0];
  if (first === undefined) throw new Error("no legal move to choose from");
  return first;
}
