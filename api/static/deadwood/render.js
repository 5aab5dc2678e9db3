// A match view (api.md "Views") as pictures: the table, the seats, and each round explained.
// Used by the watch page (a live view) and the replay page (a replayed step).
"use strict";
(function (D) {
  const el = D.el;

  function names(view) {
    return (view.seats || []).map((s) => s.name);
  }

  function nameOf(view, seat) {
    const list = names(view);
    return seat === null || seat === undefined ? "nobody" : list[seat] || "seat " + seat;
  }

  function fact(list, label, value, key) {
    const row = el("div");
    const dd = el("dd", null, value);
    dd.dataset.fact = key;
    row.append(el("dt", null, label), dd);
    list.append(row);
  }

  // A match with open seats (issue 30): "waiting for players" until every seat is taken.
  function lobbyText(lobby) {
    if (lobby.status === "waiting") {
      const open = lobby.open_seats.length;
      return "waiting for players: " + open + " open seat" + (open === 1 ? "" : "s") + ", until " + lobby.expires_at;
    }
    if (lobby.status === "cancelled") return "cancelled before it started (" + lobby.cancelled + ")";
    return "started";
  }

  function facts(view) {
    const list = el("dl", "facts");
    list.id = "facts";
    fact(list, "event", view.version, "version");
    fact(list, "status", view.status, "status");
    if (view.lobby && view.lobby.status !== "started") fact(list, "lobby", lobbyText(view.lobby), "lobby");
    fact(list, "round", view.round, "round");
    fact(list, "phase", view.phase, "phase");
    fact(list, "to act", view.turn === null ? "nobody" : nameOf(view, view.turn), "turn");
    fact(list, "stock", view.stock_size, "stock_size");
    if (view.variant === "three-hand-gin") fact(list, "discards", view.discard_size, "discard_size");
    if (view.variant === "manipulation-rummy") {
      fact(list, "dealer", nameOf(view, view.dealer), "dealer");
      fact(list, "draws this turn", view.draws_this_turn, "draws_this_turn");
    }
    return list;
  }

  function seatBox(view, seat, hand) {
    const box = el("div", "seat" + (view.turn === seat.seat ? " turn" : ""));
    box.dataset.seat = seat.seat;
    const who = el("div", "who");
    who.append(el("span", "name", seat.open ? "open seat" : seat.name));
    if (seat.open) who.append(el("span", "badge open", "waiting for a player"));
    if (seat.role) who.append(el("span", "badge", seat.role));
    if (seat.bot) who.append(el("span", "badge bot", "bot " + seat.bot));
    if ((view.winners || []).includes(seat.seat)) who.append(el("span", "badge", "winner"));
    const score = el("span", "score", "score " + view.scores[seat.seat]);
    score.dataset.score = view.scores[seat.seat];
    const size = el("span", "label", seat.hand_size + " cards");
    size.dataset.handSize = seat.hand_size;
    who.append(score, size);
    box.append(who, hand ? D.cards(hand, "hand") : D.backs(seat.hand_size));
    return box;
  }

  function ginPile(view) {
    const pile = el("div", "pile");
    const discard = el("div");
    discard.id = "discard";
    discard.append(el("div", "label", "discard pile (" + view.discard_size + ")"));
    discard.append(view.discard_top ? D.card(view.discard_top) : el("span", "label", "empty"));
    const stock = el("div");
    stock.append(el("div", "label", "stock (" + view.stock_size + ")"), D.backs(view.stock_size ? 1 : 0));
    pile.append(stock, discard);
    if (view.knock) pile.append(knockSpread(view));
    return pile;
  }

  function knockSpread(view) {
    const k = view.knock;
    const box = el("div", "knock");
    const verb = k.gin ? " went gin" : " knocked with " + k.count;
    box.append(el("div", "label", nameOf(view, k.seat) + verb));
    const melds = el("div", "melds");
    k.melds.forEach((m) => melds.append(D.cards(m)));
    if (k.deadwood_cards.length) melds.append(D.cards(k.deadwood_cards, "deadwood"));
    box.append(melds);
    return box;
  }

  function manipTable(view) {
    const box = el("div", "table");
    box.id = "melds";
    box.append(el("div", "label", "the table: " + (view.table || []).length + " melds"));
    const melds = el("div", "melds");
    (view.table || []).forEach((m) => melds.append(D.cards(m, "meld")));
    box.append(melds);
    return box;
  }

  function moveText(move) {
    const rest = Object.entries(move)
      .filter(([k, v]) => k !== "type" && v !== null && v !== undefined)
      .map(([, v]) => (Array.isArray(v) ? v.map((m) => [].concat(m).join(" ")).join(" | ") : v));
    return [move.type].concat(rest).join(" ");
  }

  function youBox(view) {
    const you = view.you;
    const box = el("div", "you");
    box.id = "you";
    box.append(el("div", "label", "you are " + nameOf(view, you.seat) + (you.role ? ", " + you.role : "")));
    box.append(D.cards(you.hand, "hand"));
    if (you.team_hand) {
      box.append(el("div", "label", "your captain's hand"), D.cards(you.team_hand, "team"));
    }
    const moves = (you.legal_moves || []).map(moveText);
    box.append(el("div", "moves", moves.length ? "you may: " + moves.slice(0, 12).join(", ") + (moves.length > 12 ? ", ..." : "") : "nothing to do now"));
    return box;
  }

  // The table as `view` shows it; `hands` (replay) gives every seat's hand face up.
  D.renderTable = function (view, hands) {
    const root = el("div", "felt");
    root.dataset.version = view.version;
    root.append(facts(view));
    if (view.variant === "three-hand-gin") root.append(ginPile(view));
    if (view.variant === "manipulation-rummy") root.append(manipTable(view));
    const seats = el("div", "seats");
    view.seats.forEach((seat) => {
      const own = view.you && view.you.seat === seat.seat ? view.you.hand : null;
      seats.append(seatBox(view, seat, hands ? hands[seat.seat] : own));
    });
    root.append(seats);
    if (view.you) root.append(youBox(view));
    return root;
  };

  function explainGin(view, r) {
    const knocker = nameOf(view, r.knocker);
    const winners = r.winners.map((s) => nameOf(view, s)).join(", ") || "nobody";
    const dead = (r.deadwood || [])[r.knocker];
    if (r.outcome === "draw") return "The stock ran down to two cards: a draw, nobody scores.";
    if (r.outcome === "gin") return knocker + " went gin (no deadwood); " + winners + " scores " + r.points[r.winners[0]] + ".";
    const how = r.outcome === "undercut" ? " but was undercut" : "";
    return knocker + " knocked with " + dead + " deadwood" + how + "; " + winners + " scores " + Math.max(...r.points) + ".";
  }

  function explainManip(view, r) {
    const winners = r.winners.map((s) => nameOf(view, s)).join(", ") || "nobody";
    if (r.outcome === "out") return nameOf(view, r.knocker === null ? r.winners[0] : r.knocker) + " went out; " + winners + " won the round.";
    if (r.outcome === "exhausted") return "The stock ran out; " + winners + " won the round with the fewest points in hand.";
    return nameOf(view, r.knocker) + " knocked; " + winners + " won the round.";
  }

  // The cards of a seat's final hand that are in none of its melds (nor laid off).
  function unmatched(r, seat) {
    const left = (r.hands && r.hands[seat] ? r.hands[seat] : []).slice();
    const used = [].concat(...((r.melds && r.melds[seat]) || []), r.knocker === seat ? [] : r.layoffs || []);
    used.forEach((c) => {
      const at = left.indexOf(c);
      if (at >= 0) left.splice(at, 1);
    });
    return left;
  }

  function resultRow(view, r, seat) {
    const row = el("tr");
    row.dataset.seat = seat;
    row.append(el("td", null, nameOf(view, seat)));
    const cell = el("td");
    const melds = r.melds ? r.melds[seat] : null;
    if (melds) melds.forEach((m) => cell.append(D.cards(m), " "));
    const rest = r.melds ? unmatched(r, seat) : (r.hands && r.hands[seat]) || [];
    if (rest.length) cell.append(D.cards(rest, "deadwood"));
    row.append(cell);
    const counted = r.deadwood ? r.deadwood[seat] : r.hand_points ? r.hand_points[seat] : null;
    row.append(el("td", null, counted === null || counted === undefined ? "" : counted));
    row.append(el("td", null, (r.points[seat] > 0 ? "+" : "") + r.points[seat]));
    return row;
  }

  function roundBox(view, r) {
    const box = el("div", "round");
    box.dataset.round = r.round;
    box.append(el("h3", null, "Round " + r.round + ": " + r.outcome));
    const gin = view.variant === "three-hand-gin";
    box.append(el("p", "why", gin ? explainGin(view, r) : explainManip(view, r)));
    if (gin && r.layoffs && r.layoffs.length) {
      const lay = el("p", null, "the defender laid off on the knocker's melds: ");
      lay.append(D.cards(r.layoffs));
      box.append(lay);
    }
    const table = el("table", "result");
    const head = el("tr");
    ["seat", gin ? "melds, then deadwood (faded)" : "hand left", gin ? "deadwood" : "hand points", "points"].forEach((h) => head.append(el("th", null, h)));
    table.append(head);
    view.seats.forEach((s) => table.append(resultRow(view, r, s.seat)));
    box.append(table);
    return box;
  };

  // Every round's result, newest first, each explained in a sentence.
  D.renderRounds = function (view) {
    const root = el("div");
    const rounds = (view.rounds || []).slice().reverse();
    if (!rounds.length) root.append(el("p", "status", "no round scored yet"));
    rounds.forEach((r) => root.append(roundBox(view, r)));
    return root;
  };

  const cards = (list) => (list || []).filter((c) => c).join(" ");
  const melds = (list) => (list || []).map(cards).join(" | ");
  const LINES = {
    MatchCreated: (d) => "match created: " + d.variant + " for " + (d.players || []).map((p) => p.name + (p.bot ? " (bot " + p.bot + ")" : "")).join(", "),
    RolesDrawn: (d, n) => "roles drawn: box " + n(d.box) + ", captain " + n(d.captain) + ", advisor " + n(d.advisor),
    DealerChosen: (d, n) => "dealer: " + n(d.dealer),
    RoundDealt: (d) => "round " + d.round + " dealt" + (d.upcard ? ", upcard " + d.upcard : ""),
    UpcardTaken: (d, n) => n(d.seat) + " took the upcard " + (d.card || ""),
    UpcardPassed: (d, n) => n(d.seat) + " passed the upcard " + (d.card || ""),
    CardDrawn: (d, n) => n(d.seat) + " drew " + (d.card ? d.card + " " : "") + "from " + (d.from === "discard" ? "the discard pile" : "stock"),
    CardDiscarded: (d, n) => n(d.seat) + " discarded " + d.card,
    Knocked: (d, n) => d.count === undefined ? n(d.seat) + " knocked" : n(d.seat) + (d.gin ? " went gin: " : " knocked with " + d.count + ": ") + melds(d.melds),
    AdviceGiven: (d, n) => n(d.seat) + " advised" + (d.text ? ': "' + d.text + '"' : ""),
    TableMelded: (d, n) => n(d.seat) + " melded " + cards(d.played),
    TurnEnded: (d, n) => n(d.seat) + " ended the turn",
    Passed: (d, n) => n(d.seat) + " passed",
    StockExhausted: () => "the stock is exhausted",
    RoundScored: (d, n) => "round " + d.round + " scored: " + d.outcome + ", won by " + ((d.winners || []).map(n).join(", ") || "nobody"),
    SeatJoined: (d) => d.name + " took seat " + d.seat,
    SeatLeft: (d) => d.name + " left seat " + d.seat,
    MatchStarted: () => "every seat is taken: the match starts",
    MatchCancelled: (d) => "the match was cancelled before it started (" + d.reason + ")",
    MatchFinished: (d, n) => "match finished: " + ((d.winners || []).map(n).join(", ") || "nobody") + " won",
  };

  // One event as a line ("#58 ben discarded 9H"); `seatNames` is the list of player names.
  D.describe = function (event, seatNames) {
    const n = (s) => (s === null || s === undefined ? "?" : seatNames[s] || "seat " + s);
    const line = LINES[event.type];
    let text;
    try {
      text = line ? line(event.data || {}, n) : event.type;
    } catch (e) {
      text = event.type;
    }
    return "#" + event.seq + " " + text;
  };

  D.nameOf = nameOf;
})(window.Deadwood);
