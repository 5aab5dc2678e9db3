// The watch page: a match live, as a spectator or as the seat whose token is pasted in.
//
// The token stays in this tab's sessionStorage and goes out only in the Authorization header
// (an EventSource cannot send headers, so the stream is read with fetch). The stream is
// followed from the last seq seen: after a drop, or when the server ends a stream, the page
// reconnects with Last-Event-ID and neither loses nor repeats an event. The slider steps
// through history with GET ?at=k; at its right end the page is live again.
"use strict";
(function (D) {
  const $ = (id) => document.getElementById(id);
  const matchId = $("match-id").textContent.trim();
  const base = "/v1/matches/" + encodeURIComponent(matchId);
  const storageKey = "deadwood-token:" + matchId;
  const page = { events: [], lastSeq: 0, live: true, view: null, names: [], connections: 0, generation: 0, refreshing: false, again: false, abort: null };

  function token() {
    return sessionStorage.getItem(storageKey);
  }

  function headers(extra) {
    const h = Object.assign({ Accept: "application/json" }, extra || {});
    if (token()) h.Authorization = "Bearer " + token();
    return h;
  }

  async function problemText(response) {
    try {
      const p = await response.json();
      return (p.code || response.status) + ": " + (p.detail || p.title || "");
    } catch (e) {
      return "HTTP " + response.status;
    }
  }

  async function getView(at) {
    const url = at ? base + "?at=" + at : base;
    const response = await fetch(url, { headers: headers(), cache: "no-store" });
    if (!response.ok) throw new Error(await problemText(response));
    return response.json();
  }

  // A clocked match's clocks (issue 31): each seat's time left, the running one ticking down
  // from what the view said when it came (the local clock only measures the time since).
  function showClocks(view) {
    page.clock = view.clock || null;
    page.clockAt = Date.now();
    tickClocks();
  }

  function clockText(ms) {
    const s = Math.max(0, Math.ceil(ms / 1000));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  function tickClocks() {
    const clock = page.clock;
    $("clocks").hidden = !clock;
    if (!clock) return;
    const spent = page.live ? Date.now() - page.clockAt : 0;
    $("clocks").textContent = "clocks: " + clock.seats.map((s) => {
      const left = s.running ? s.left_ms - spent : s.left_ms;
      const mark = s.running ? " \u25b6" : "";
      const gone = s.present === false ? " (away)" : "";
      return D.nameOf(page.view, s.seat) + " " + clockText(left) + mark + gone;
    }).join(" \u00b7 ") + (clock.stalled ? " \u00b7 stalled: " + clock.stalled : "");
  }

  setInterval(tickClocks, 250);

  function show(view) {
    page.view = view;
    showClocks(view);
    page.names = view.seats.map((s) => s.name);
    $("table").replaceChildren(D.renderTable(view));
    $("rounds").replaceChildren(D.renderRounds(view));
    $("viewer").textContent = view.you ? "as " + D.nameOf(view, view.you.seat) + " (seat " + view.you.seat + ")" : "spectator";
    const slider = $("slider");
    slider.max = Math.max(page.lastSeq, view.version, Number(slider.max));
    if (page.live) slider.value = slider.max;
    $("position").textContent = (page.live ? "live: " : "history: ") + "event " + view.version + " of " + slider.max;
    markCurrent(view.version);
    loadAnalysis();
  }

  // Once the match is finished: its analysis, a judgment beside each move, a summary per seat.
  function judged(seq) {
    return page.analysis ? page.analysis.bySeq[seq] : undefined;
  }

  function annotateItem(item) {
    const decision = judged(Number(item.dataset.seq));
    if (decision && !item.querySelector(".judgment")) item.append(D.judgmentBadge(decision));
  }

  async function loadAnalysis() {
    if (page.analysisAsked || !page.view || page.view.status !== "finished") return;
    page.analysisAsked = true;
    const generation = page.generation;
    $("analysis-panel").hidden = false;
    $("analysis-status").textContent = "analysing the match...";
    const found = await D.fetchAnalysis(base + "/analysis", headers());
    if (generation !== page.generation) return;
    if (!found) {
      $("analysis-status").textContent = "no analysis yet";
      return;
    }
    page.analysis = { bySeq: {} };
    found.decisions.forEach((d) => (page.analysis.bySeq[d.seq] = d));
    $("analysis-status").textContent = "every decision judged from its seat's own view at that moment; costs in " + found.thresholds.unit;
    $("analysis").replaceChildren(D.renderAnalysisSummary(found));
    document.querySelectorAll("#log li").forEach(annotateItem);
    markCurrent(page.view.version);
  }

  function markCurrent(seq) {
    document.querySelectorAll("#log li.current").forEach((li) => li.classList.remove("current"));
    const item = document.querySelector('#log li[data-seq="' + seq + '"]');
    if (item) item.classList.add("current");
    const event = page.events[seq - 1];
    const decision = judged(seq);
    $("event").textContent = (event ? D.describe(event, page.names) : "") + (decision ? " | " + D.judgmentText(decision) : "");
  }

  // The newest view, at most one request at a time (events that come meanwhile ask again).
  async function refresh() {
    if (page.refreshing) {
      page.again = true;
      return;
    }
    page.refreshing = true;
    try {
      do {
        page.again = false;
        const view = await getView(null);
        if (page.live) show(view);
      } while (page.again);
      $("error").textContent = "";
    } catch (e) {
      $("error").textContent = e.message;
    } finally {
      page.refreshing = false;
    }
  }

  function onEvent(event) {
    if (event.seq <= page.lastSeq) return; // already seen (a resumed stream)
    if (event.type === "MatchCreated" && !page.names.length) page.names = (event.data.players || []).map((p) => p.name);
    page.events[event.seq - 1] = event;
    page.lastSeq = event.seq;
    const item = D.el("li", null, D.describe(event, page.names).replace(/^#\d+ /, ""));
    item.value = event.seq;
    item.dataset.seq = event.seq;
    $("log").append(item);
    annotateItem(item);
    $("stream").dataset.lastSeq = event.seq;
    streamStatus(page.live ? "live" : "live stream (you are looking at the past)");
    if (page.live) refresh();
    else $("slider").max = event.seq;
  }

  function parseFrame(frame) {
    const data = frame.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart());
    if (data.length) onEvent(JSON.parse(data.join("\n")));
  }

  async function readStream(response, generation) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done || generation !== page.generation) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        parseFrame(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
      }
    }
  }

  function streamStatus(text) {
    const line = $("stream");
    line.dataset.connections = page.connections;
    if (finished()) text = "the match is finished";
    line.textContent = text + " (connection " + page.connections + ", last event #" + page.lastSeq + ")";
  }

  function finished() {
    return page.view && page.view.status === "finished" && page.lastSeq >= page.view.version;
  }

  async function follow(generation) {
    let pause = 250;
    while (generation === page.generation && !finished()) {
      page.abort = new AbortController();
      page.connections += 1;
      streamStatus("following the live stream");
      try {
        const response = await fetch(base + "/events/stream", { headers: headers({ Accept: "text/event-stream", "Last-Event-ID": String(page.lastSeq) }), signal: page.abort.signal, cache: "no-store" });
        if (!response.ok) {
          $("error").textContent = await problemText(response);
          if (response.status < 500) return streamStatus("stopped");
        } else {
          await readStream(response, generation);
          pause = 250;
        }
      } catch (e) {
        if (generation !== page.generation) return;
        streamStatus("stream dropped, resuming");
      }
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 5000);
      if (page.live) await refresh();
    }
    if (generation === page.generation) streamStatus("the match is finished");
  }

  async function start() {
    page.generation += 1;
    if (page.abort) page.abort.abort();
    Object.assign(page, { events: [], lastSeq: 0, live: true, view: null, connections: 0, analysis: null, analysisAsked: false });
    $("analysis-panel").hidden = true;
    $("analysis").replaceChildren();
    $("log").replaceChildren();
    $("error").textContent = "";
    $("slider").max = 1;
    try {
      show(await getView(null));
    } catch (e) {
      $("error").textContent = e.message;
      return;
    }
    follow(page.generation);
  }

  async function step() {
    const id = (page.stepId = (page.stepId || 0) + 1);
    const slider = $("slider");
    const at = Number(slider.value);
    page.live = at >= Number(slider.max);
    try {
      const view = await getView(page.live ? null : Math.max(at, 1));
      if (id === page.stepId) show(view);
    } catch (e) {
      $("error").textContent = e.message;
    }
  }

  $("slider").addEventListener("input", step);
  $("live").addEventListener("click", () => {
    $("slider").value = $("slider").max;
    step();
  });
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const value = $("token").value.trim();
    if (value) sessionStorage.setItem(storageKey, value);
    $("token").value = "";
    start();
  });
  $("spectate").addEventListener("click", () => {
    sessionStorage.removeItem(storageKey);
    start();
  });
  start();
})(window.Deadwood);
