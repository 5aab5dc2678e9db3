// The ladder page: pages of GET /v1/ladder/{variant}, 50 rows at a time, built with DOM
// calls (textContent only: a handle is never read as HTML).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const table = $("ladder");
  const variant = table.dataset.variant;
  const limit = 50;
  let offset = 0;
  let total = 0;

  function cell(row, text, className) {
    const td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
  }

  function show(page) {
    const body = table.querySelector("tbody");
    body.textContent = "";
    total = page.total;
    for (const r of page.rows) {
      const row = document.createElement("tr");
      cell(row, String(r.place));
      cell(row, r.handle + (r.bot ? " [bot]" : ""));
      cell(row, r.rating.toFixed(2));
      cell(row, r.mu.toFixed(2) + " \u00b1 " + (2 * r.sigma).toFixed(2));
      cell(row, String(r.games));
      cell(row, r.provisional ? "provisional" : "", "status");
      body.appendChild(row);
    }
    const last = Math.min(total, offset + page.rows.length);
    $("position").textContent = total ? `${offset + 1}-${last} of ${total}` : "no rated account yet";
    $("prev").disabled = offset === 0;
    $("next").disabled = last >= total;
  }

  async function load() {
    const url = `/v1/ladder/${encodeURIComponent(variant)}?offset=${offset}&limit=${limit}`;
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    if (!response.ok) {
      $("position").textContent = `the ladder did not load (${response.status})`;
      return;
    }
    show(await response.json());
  }

  $("prev").addEventListener("click", () => { offset = Math.max(0, offset - limit); load(); });
  $("next").addEventListener("click", () => { offset += limit; load(); });
  load();
})();
