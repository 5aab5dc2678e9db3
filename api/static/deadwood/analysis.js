// A finished match's analysis (GET /v1/matches/{id}/analysis, or the annotations of a log
// exported with ?annotations=true): a judgment beside each move and a summary per seat.
"use strict";
(function (D) {
  const el = D.el;
  const CLASSES = ["best", "good", "inaccuracy", "mistake", "blunder"];

  // The judgment of one decision, as a small badge (its note as the tooltip).
  D.judgmentBadge = function (decision) {
    const cost = decision.cost > 0 ? " -" + decision.cost.toFixed(1) : "";
    const badge = el("span", "judgment judgment-" + decision.judgment, decision.judgment + cost);
    badge.title = decision.note + (decision.tags.length ? " [" + decision.tags.join(", ") + "]" : "");
    badge.dataset.seq = decision.seq;
    return badge;
  };

  D.judgmentText = function (decision) {
    return decision.judgment + " (cost " + decision.cost.toFixed(1) + "): " + decision.note;
  };

  // The per-seat summary table: decisions, average cost, counts per class, the worst moves.
  D.renderAnalysisSummary = function (analysis) {
    const table = el("table", "result analysis-summary");
    table.id = "analysis-summary";
    const head = el("tr");
    ["seat", "decisions", "avg cost (" + analysis.thresholds.unit + ")"].concat(CLASSES, ["worst (event)"]).forEach((h) => head.append(el("th", null, h)));
    table.append(head);
    analysis.seats.forEach((s) => {
      const row = el("tr");
      row.dataset.seat = s.seat;
      row.append(el("td", null, s.name), el("td", null, String(s.decisions)), el("td", null, s.average_cost.toFixed(2)));
      CLASSES.forEach((c) => row.append(el("td", null, String(s.counts[c] || 0))));
      row.append(el("td", null, s.worst.map((w) => "#" + w.seq + " " + w.judgment).join(", ")));
      table.append(row);
    });
    return table;
  };

  // The server's summary, worked out from a log's annotations (the replay page).
  D.summaryOf = function (decisions, names, unit) {
    const seats = names.map((name, seat) => {
      const mine = decisions.filter((d) => d.seat === seat);
      const counts = {};
      CLASSES.forEach((c) => (counts[c] = mine.filter((d) => d.judgment === c).length));
      const total = mine.reduce((sum, d) => sum + d.cost, 0);
      const worst = mine.filter((d) => d.cost > 0).sort((a, b) => b.cost - a.cost || a.seq - b.seq).slice(0, 3);
      return { seat: seat, name: name, decisions: mine.length, average_cost: mine.length ? total / mine.length : 0, counts: counts, worst: worst };
    });
    return { seats: seats, thresholds: { unit: unit }, decisions: decisions };
  };

  // The analysis of a finished match; null while it runs (202) or when there is none (404).
  D.fetchAnalysis = async function (url, headers, tries) {
    for (let i = 0; i < (tries || 30); i++) {
      const response = await fetch(url, { headers: headers, cache: "no-store" });
      if (response.status === 200) return response.json();
      if (response.status !== 202) return null;
      const wait = Number(response.headers.get("Retry-After") || "2");
      await new Promise((r) => setTimeout(r, 1000 * Math.min(Math.max(wait, 1), 10)));
    }
    return null;
  };
})(window.Deadwood);
