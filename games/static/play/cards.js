/* Cards drawn as SVG from their notation (rank 23456789TJQKA, suit cdhs, JK the joker), and
   face-down backs. Four-colour suits so that diamonds and hearts, clubs and spades, are told
   apart at a glance. */
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const RANK_NAMES = {
    2: gettext("Two"), 3: gettext("Three"), 4: gettext("Four"), 5: gettext("Five"), 6: gettext("Six"),
    7: gettext("Seven"), 8: gettext("Eight"), 9: gettext("Nine"), T: gettext("Ten"), J: gettext("Jack"),
    Q: gettext("Queen"), K: gettext("King"), A: gettext("Ace"),
  };
  const SUITS = {
    c: { name: gettext("clubs"), symbol: "\u2663", colour: "#1b7a3a" },
    d: { name: gettext("diamonds"), symbol: "\u2666", colour: "#1f5fbf" },
    h: { name: gettext("hearts"), symbol: "\u2665", colour: "#c8102e" },
    s: { name: gettext("spades"), symbol: "\u2660", colour: "#1a1a1a" },
  };

  function el(name, attrs, text) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cardName(code) {
    if (code === "JK") return gettext("Joker");
    return interpolate(gettext("%(rank)s of %(suit)s"), { rank: RANK_NAMES[code[0]], suit: SUITS[code[1]].name }, true);
  }

  function frame(label) {
    const svg = el("svg", { viewBox: "0 0 60 84", class: "card", role: "img", "aria-label": label });
    svg.appendChild(el("title", {}, label));
    return svg;
  }

  /* One card as an <svg>; null or undefined draws a face-down back. */
  function cardSvg(code) {
    if (!code) {
      const svg = frame(gettext("Face-down card"));
      svg.classList.add("back");
      svg.appendChild(el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 5, fill: "#24407a", stroke: "#0f2147" }));
      svg.appendChild(el("rect", { x: 5, y: 5, width: 50, height: 74, rx: 3, fill: "none", stroke: "#c9d6f2", "stroke-width": 1.5 }));
      svg.appendChild(el("rect", { x: 10, y: 10, width: 40, height: 64, rx: 2, fill: "#2f4f8f", stroke: "#c9d6f2", "stroke-width": 0.75 }));
      svg.appendChild(el("text", { x: 30, y: 50, "font-size": 20, "text-anchor": "middle", fill: "#c9d6f2" }, "\u2666"));
      return svg;
    }
    const svg = frame(cardName(code));
    svg.dataset.card = code;
    svg.appendChild(el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 5, fill: "#fff", stroke: "#8a8f98" }));
    if (code === "JK") {
      const colour = "#6b2fa3";
      svg.appendChild(el("text", { x: 6, y: 17, "font-size": 12, "font-weight": 700, fill: colour, "font-family": "sans-serif" }, "JK"));
      svg.appendChild(el("text", { x: 30, y: 54, "font-size": 30, "text-anchor": "middle", fill: colour }, "\u2605"));
      svg.appendChild(el("text", { x: 30, y: 75, "font-size": 9, "text-anchor": "middle", "font-weight": 700, fill: colour, "font-family": "sans-serif", "letter-spacing": 1 }, "JOKER"));
      return svg;
    }
    const rank = code[0] === "T" ? "10" : code[0];
    const suit = SUITS[code[1]];
    const font = { fill: suit.colour, "font-family": "Georgia, 'DejaVu Serif', serif", "font-weight": 700 };
    svg.appendChild(el("text", { x: 5, y: 18, "font-size": 16, ...font }, rank));
    svg.appendChild(el("text", { x: 6, y: 31, "font-size": 13, ...font }, suit.symbol));
    svg.appendChild(el("text", { x: 34, y: 62, "font-size": 34, "text-anchor": "middle", ...font }, suit.symbol));
    svg.appendChild(el("text", { x: 55, y: 78, "font-size": 16, "text-anchor": "end", ...font }, rank));
    return svg;
  }

  /* A row of cards; `count` backs are added after the known cards. */
  function cardRow(codes, backs) {
    const row = document.createElement("div");
    row.className = "cards";
    for (const code of codes || []) row.appendChild(cardSvg(code));
    for (let i = 0; i < (backs || 0); i++) row.appendChild(cardSvg(null));
    return row;
  }

  /* Cards the player can pick (to exchange): real toggle buttons, usable by keyboard. */
  function pickableRow(codes, onChange) {
    const row = document.createElement("div");
    row.className = "cards pickable";
    for (const code of codes) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "card-pick";
      button.setAttribute("aria-pressed", "false");
      button.setAttribute("aria-label", interpolate(gettext("Pick %(card)s to exchange"), { card: cardName(code) }, true));
      button.dataset.card = code;
      button.appendChild(cardSvg(code));
      // A picked card says so in a word, not by its lift or colour alone.
      const mark = document.createElement("span");
      mark.className = "pick-mark";
      mark.textContent = gettext("Exchange");
      mark.hidden = true;
      button.appendChild(mark);
      button.addEventListener("click", () => {
        const picked = button.getAttribute("aria-pressed") !== "true";
        button.setAttribute("aria-pressed", String(picked));
        mark.hidden = !picked;
        onChange([...row.querySelectorAll('[aria-pressed="true"]')].map((b) => b.dataset.card));
      });
      row.appendChild(button);
    }
    return row;
  }

  /* Cards the server wrote as text (`<span class="card-slot" data-card="Ah">`; an empty code is
     a card face down) drawn as SVG, keeping the slot's classes (`up`: a face-up stud card). */
  function drawSlots(root) {
    for (const slot of (root || document).querySelectorAll("span.card-slot")) {
      const svg = cardSvg(slot.dataset.card || null);
      if (slot.classList.contains("up")) svg.classList.add("up");
      slot.replaceWith(svg);
    }
  }

  document.addEventListener("DOMContentLoaded", () => drawSlots(document));

  window.casinoCards = { cardSvg, cardRow, pickableRow, cardName, drawSlots };
})();
