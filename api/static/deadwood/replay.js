// The replay page: send a chosen NDJSON log to POST /v1/replays?steps=true&format=ndjson; show
// the first event that breaks the rules when the server refuses it, else step through every
// event with the match as it stood right after it (every hand face up: a published log hides
// nothing). Each streamed step carries only the round results its event added (issue 28): the
// page keeps them once and gives each step the rounds up to it.
"use strict";
(function (D) {
  const $ = (id) => document.getElementById(id);
  const replay = { steps: [], events: [], names: [], rounds: [], judged: {} };

  function verdict(text, className) {
    const line = $("verdict");
    line.className = className;
    line.textContent = text;
  }

  function parseLines(text) {
    return text.split("\n").filter((l) => l.trim()).map((l) => {
      try {
        return JSON.parse(l);
      } catch (e) {
        return null;
      }
    });
  }

  function refused(problem, events) {
    const seq = problem.event;
    const bad = seq ? events[seq - 1] : null;
    const names = events[0] && events[0].data ? (events[0].data.players || []).map((p) => p.name) : [];
    const line = $("verdict");
    line.className = "error";
    line.dataset.event = seq || "";
    line.replaceChildren();
    if (seq) {
      const what = bad && bad.type ? " (" + bad.type + ")" : "";
      line.append(D.el("span", null, "The log breaks the rules at event " + seq + what + (bad && bad.type ? ": " + D.describe(Object.assign({}, bad, { seq: seq }), names) : "")));
      line.append(document.createElement("br"));
    }
    line.append(D.el("span", "status", (problem.detail || problem.title) + " [" + problem.code + "]"));
  }

  function show(k) {
    const step = replay.steps[k - 1];
    $("slider").value = k;
    $("position").textContent = "event " + k + " of " + replay.steps.length;
    const event = replay.events[k - 1] || { seq: k, type: step.type, data: {} };
    $("event").textContent = D.describe(Object.assign({ seq: k }, event), replay.names);
    const decision = replay.judged[k];
    $("judgment").replaceChildren();
    if (decision) $("judgment").append(D.judgmentBadge(decision), " " + D.judgmentText(decision));
    const match = Object.assign({}, step.match, { rounds: replay.rounds.slice(0, step.rounds) });
    $("table").replaceChildren(D.renderTable(match, step.hands));
    $("rounds").replaceChildren(D.renderRounds(match));
  }

  function passed(result, steps, events) {
    replay.rounds = [];
    replay.steps = steps.map((step) => {
      replay.rounds.push(...(step.rounds_added || []));
      return { seq: step.seq, type: step.type, match: step.match, hands: step.hands, rounds: replay.rounds.length };
    });
    replay.events = events;
    replay.names = result.match.seats.map((s) => s.name);
    const m = result.match;
    const scores = m.seats.map((s) => s.name + " " + m.scores[s.seat]).join(", ");
    const winners = m.winners.map((s) => replay.names[s]).join(", ") || "nobody";
    verdict(result.version + " events follow the rules; the match is " + m.status + (m.status === "finished" ? ": " + winners + " won" : "") + "; scores " + scores, "ok");
    $("slider").max = replay.steps.length;
    $("stepper").hidden = false;
    $("rounds-panel").hidden = false;
    showAnalysis(events);
    show(1);
  }

  // A log exported with ?annotations=true carries each decision's judgment (`annotation`).
  function showAnalysis(events) {
    const decisions = events.filter((e) => e && e.annotation).map((e) => e.annotation);
    replay.judged = {};
    decisions.forEach((d) => (replay.judged[d.seq] = d));
    $("analysis-panel").hidden = !decisions.length;
    if (!decisions.length) return;
    const unit = variantOf(events) === "three-hand-gin" ? "deadwood" : "points";
    $("analysis").replaceChildren(D.renderAnalysisSummary(D.summaryOf(decisions, replay.names, unit)));
  }

  function variantOf(events) {
    return events[0] && events[0].data ? events[0].data.variant : null;
  }

  // The rules check reads the events only: the annotations stay on this page.
  function plainLog(text) {
    return parseLines(text).map((e) => {
      if (!e || typeof e !== "object") return JSON.stringify(e);
      const copy = Object.assign({}, e);
      delete copy.annotation;
      delete copy.hindsight;
      return JSON.stringify(copy);
    }).join("\n");
  }

  async function upload(file) {
    verdict("checking " + file.name + "...", "status");
    $("stepper").hidden = true;
    $("table").replaceChildren();
    const text = await file.text();
    const sent = text.indexOf('"annotation"') >= 0 || text.indexOf('"hindsight"') >= 0 ? plainLog(text) : text;
    const response = await fetch("/v1/replays?steps=true&format=ndjson", { method: "POST", body: sent, headers: { "Content-Type": "application/x-ndjson", Accept: "application/x-ndjson, application/problem+json" } });
    const answer = await response.text().catch(() => "");
    const lines = response.ok ? parseLines(answer) : [];
    const last = lines[lines.length - 1];
    if (response.ok && lines.length && lines.every((l) => l) && !(last && last.problem)) {
      passed(lines[0], lines.slice(1), parseLines(text));
      return;
    }
    let problem = last && last.problem;
    if (!problem) {
      try {
        problem = JSON.parse(answer);
      } catch (e) {
        problem = { code: "bad_response", detail: "HTTP " + response.status };
      }
    }
    refused(problem, parseLines(text));
  }

  const go = (k) => replay.steps.length && show(Math.min(Math.max(k, 1), replay.steps.length));
  $("log-file").addEventListener("change", (e) => e.target.files[0] && upload(e.target.files[0]));
  $("slider").addEventListener("input", (e) => go(Number(e.target.value)));
  $("first").addEventListener("click", () => go(1));
  $("prev").addEventListener("click", () => go(Number($("slider").value) - 1));
  $("next").addEventListener("click", () => go(Number($("slider").value) + 1));
  $("last").addEventListener("click", () => go(replay.steps.length));
})(window.Deadwood);
