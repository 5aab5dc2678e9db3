// Cards as pictures, drawn with CSS (no images, no fonts from outside). Each card keeps its
// two-character code in a visually hidden span, so screen readers and copy-paste get "7H".
"use strict";
window.Deadwood = window.Deadwood || {};
(function (D) {
  const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  const RANKS = { T: "10" };

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function face(code) {
    const rank = code[0];
    const suit = code[1];
    const node = el("span", "card " + (suit === "D" || suit === "H" ? "red" : "black"));
    node.dataset.card = code;
    node.title = code;
    node.append(el("span", "rank", RANKS[rank] || rank), el("span", "suit", SUITS[suit] || "?"));
    node.append(el("span", "pip", SUITS[suit] || "?"));
    return node;
  }

  function joker(declared) {
    const node = el("span", "card joker");
    node.dataset.card = "JK";
    node.title = declared ? "joker as " + declared : "joker";
    node.append(el("span", "rank", "JK"), el("span", "pip", "\u2605"));
    if (declared) {
      node.dataset.as = declared;
      const suit = declared[1];
      const as = el("span", "as " + (suit === "D" || suit === "H" ? "red" : "black"));
      as.textContent = "= " + (RANKS[declared[0]] || declared[0]) + (SUITS[suit] || "?");
      node.append(as);
    }
    return node;
  }

  // One card code ("7H", "JK", "JK=8S") as a picture.
  D.card = function (code) {
    const [card, declared] = String(code).split("=");
    const node = card === "JK" ? joker(declared) : face(card);
    node.append(el("span", "code", " " + String(code) + " "));
    return node;
  };

  D.back = function () {
    const node = el("span", "card back");
    node.title = "a card you may not see";
    return node;
  };

  // A row of cards; `codes` may hold nulls (a hidden card), shown as backs.
  D.cards = function (codes, className) {
    const row = el("span", "cards " + (className || ""));
    (codes || []).forEach((code) => row.append(code ? D.card(code) : D.back()));
    return row;
  };

  D.backs = function (count) {
    const row = el("span", "cards backs");
    for (let i = 0; i < Math.min(count, 13); i++) row.append(D.back());
    if (count > 13) row.append(el("span", "more", "+" + (count - 13)));
    return row;
  };

  D.el = el;
})(window.Deadwood);
