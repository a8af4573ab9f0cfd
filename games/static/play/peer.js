/* Seven-card stud and Drawmaha tables: seats, stacks, the pot, whose turn with a countdown, the
   legal actions with their amounts (a slider between the pot-limit minimum and maximum), the
   draw and the twist, and the last hand's showdown with the winning hands named. Also the
   recall page of one hand. Everything is read from and sent to the JSON API. */
(function () {
  "use strict";
  const { h, cents, money, signed } = window.casinoPage;
  const { cardRow, pickableRow } = window.casinoCards;

  const ACTION_NAMES = {
    fold: "Fold", check: "Check", call: "Call", bet: "Bet", raise: "Raise", bring_in: "Bring-in",
    complete: "Complete", show: "Show", muck: "Muck", exchange: "Exchange", take: "Accept", reject: "Reject",
  };
  const PART_NAMES = { draw: "draw half", omaha: "Omaha half", whole: "whole pot" };

  // The last or recalled hand ------------------------------------------------------------------

  function handView(hand, game, names) {
    const who = (index) => {
      const seat = hand.seats[index];
      return names && names[seat] ? `Seat ${seat} (${names[seat]})` : `Seat ${seat}`;
    };
    const view = h("div", { class: "last-hand", "data-testid": "hand-result" });
    view.appendChild(h("p", { class: "caption" }, `Hand ${hand.nonce} · ${hand.state}`));
    if (hand.state !== "settled") {
      view.appendChild(h("p", {}, "Still being played: its cards and seed are shown once it is over."));
      return view;
    }
    if (game === "drawmaha" && hand.board && hand.board.length) {
      view.appendChild(h("div", { class: "board" }, h("h3", {}, "Board"), cardRow(hand.board)));
    }
    const shows = hand.events.filter((e) => e.kind === "show");
    for (const { data } of shows) {
      const named = game === "drawmaha" ? `${data.draw_hand} (draw) · ${data.omaha_hand} (Omaha)` : data.hand;
      view.appendChild(h("div", { class: "shown" }, h("h3", {}, `${who(data.seat)} shows`), cardRow(data.cards),
        h("p", { class: "hand-name" }, named)));
    }
    // ST-10: the history shows the hand's players a hand mucked at the showdown, and an
    // uncalled winner's hand once its winner chose to show it.
    (hand.hands || []).forEach((held, index) => {
      const why = held.showdown === "mucked" ? "mucked" : held.shown_after_the_hand ? "showed after winning" : null;
      if (why && held.down) {
        view.appendChild(h("div", { class: "shown", "data-testid": `history-${held.seat}` },
          h("h3", {}, `${who(index)} ${why}`), cardRow([...held.down, ...held.up])));
      }
    });
    const awards = h("ul", { class: "awards" });
    for (const { data } of hand.events.filter((e) => e.kind === "pot_awarded")) {
      const winners = Object.entries(data.shares).map(([index, share]) => `${who(Number(index))} wins ${money(share)}`);
      const part = data.part && data.part !== "whole" ? ` (${PART_NAMES[data.part]})` : "";
      const pot = data.pot === 0 ? "Main pot" : `Side pot ${data.pot}`;
      awards.appendChild(h("li", {}, `${pot}${part}: ${winners.join(", ")}`,
        data.hand ? ` with ${data.hand}` : " uncontested", data.rake ? ` (rake ${money(data.rake)})` : ""));
    }
    view.appendChild(awards);
    const stacks = h("ul", { class: "stacks" });
    hand.seats.forEach((seat, index) => {
      const start = cents(hand.starting_stacks[index]);
      const end = cents(hand.finishing_stacks[index]);
      stacks.appendChild(h("li", {}, `${who(index)}: ${money(start)} → ${money(end)} (${signed(end - start)})`));
    });
    view.appendChild(stacks);
    return view;
  }

  // The table ----------------------------------------------------------------------------------

  function tablePage(root) {
    const api = window.casinoApi;
    const game = root.dataset.game;
    const tableUrl = root.dataset.tableUrl;
    const joinForm = document.getElementById("join-form");
    const joinError = document.getElementById("join-error");
    const actionError = document.getElementById("action-error");
    let lastTurn = null;
    let lastHandId = null;

    async function post(path, body, errorNode) {
      errorNode.textContent = "";
      // One decision at a time: the buttons stay off until the table comes back.
      const busy = document.querySelectorAll("#actions button, #seat-panel button");
      busy.forEach((b) => { b.disabled = true; });
      try {
        render(await api.request("POST", `${tableUrl}${path}`, body));
      } catch (error) {
        errorNode.textContent = error.message;
        shown = null;  // the buttons were turned off for the request: draw them again
        await load();
      } finally {
        document.querySelectorAll("#seat-panel button").forEach((b) => { b.disabled = false; });
      }
    }

    function seatPanel(table) {
      const mine = table.your_seat;
      joinForm.hidden = mine !== null;
      document.getElementById("seated").hidden = mine === null;
      document.getElementById("my-seat").textContent = mine ?? "";
      const autoAnte = document.getElementById("auto-ante");
      if (mine !== null && autoAnte) {
        autoAnte.checked = table.seats.find((s) => s.seat === mine).auto_ante;
      }
      if (mine === null) {
        const select = document.getElementById("seat");
        const taken = new Set(table.seats.map((s) => s.seat));
        const chosen = select.value;
        select.replaceChildren();
        for (let n = 1; n <= table.limits.seats; n++) {
          if (!taken.has(n)) select.appendChild(h("option", { value: n, selected: String(n) === chosen }, `Seat ${n}`));
        }
      }
    }

    function playerCards(player) {
      if (game === "stud") {
        const row = cardRow(player.down || [], player.down ? 0 : player.down_count);
        // A copy of the up cards: appending a card moves it out of the live `children` list.
        for (const svg of [...cardRow(player.up).children]) { svg.classList.add("up"); row.appendChild(svg); }
        return row;
      }
      return cardRow(player.cards || [], player.cards ? 0 : player.card_count);
    }

    function tableView(table) {
      const view = document.getElementById("table-view");
      view.replaceChildren();
      const hand = table.hand;
      const names = Object.fromEntries(table.seats.map((s) => [s.seat, s.player]));
      if (hand) {
        view.appendChild(h("p", { class: "pot", "data-testid": "pot" },
          `Hand ${hand.nonce} · ${hand.street.replaceAll("_", " ")} · pot ${hand.pot}`));
        if (game === "drawmaha") {
          view.appendChild(h("div", { class: "board" }, h("h3", {}, "Board"),
            hand.board.length ? cardRow(hand.board) : h("p", { class: "caption" }, "No board cards yet.")));
        } else if (hand.common_card) {
          view.appendChild(h("div", { class: "board" }, h("h3", {}, "Common card"), cardRow([hand.common_card])));
        }
        view.appendChild(h("p", { class: "caption" }, "This hand: commitment ", h("code", {}, hand.commitment),
          " · client seeds ", h("code", {}, hand.client_seed)));
      } else {
        view.appendChild(h("p", {}, table.seats.length < 2 ? "Waiting for players." : "The next hand is about to be dealt."));
      }
      // Committed before the next hand's antes or blinds (FS-2); revealed once that hand is over.
      if (table.next_hand_commitment) {
        view.appendChild(h("p", { class: "caption", "data-testid": "next-hand-commitment" },
          "Next hand's server seed SHA-256: ", h("code", {}, table.next_hand_commitment)));
      }
      const seats = h("ol", { class: "seats" });
      const inHand = new Map((hand ? hand.players : []).map((p, index) => [p.seat, { ...p, index }]));
      for (const seat of table.seats) {
        const player = inHand.get(seat.seat);
        const turn = hand && hand.to_act === seat.seat;
        const item = h("li", {
          class: `seat ${turn ? "turn" : ""} ${seat.seat === table.your_seat ? "mine" : ""} ${player && player.folded ? "folded" : ""}`,
          "data-testid": `seat-${seat.seat}`,
          "aria-current": turn ? "true" : null,
        });
        item.appendChild(h("p", { class: "who" }, `Seat ${seat.seat} · ${seat.player}`,
          game === "drawmaha" && hand && player && player.index === hand.button ? h("span", { class: "tag" }, "button") : null,
          seat.status !== "seated" ? h("span", { class: "tag" }, seat.status) : null,
          seat.auto_ante === false ? h("span", { class: "tag" }, "sitting out") : null));
        item.appendChild(h("p", { class: "stack" }, `Stack ${player ? player.stack : seat.chips}`,
          player && cents(player.bet) ? ` · bet ${player.bet}` : "",
          player && player.folded ? " · folded" : "", player && player.all_in ? " · all in" : ""));
        if (player) {
          item.appendChild(playerCards(player));
          if (game === "drawmaha" && player.exchanged !== null) {
            item.appendChild(h("p", { class: "caption" },
              player.exchanged ? `Exchanged ${player.exchanged}` : "Stood pat",
              player.twist ? ` · twist card ${player.twist}` : ""));
          }
        }
        if (turn) {
          const clock = h("span", { class: "clock", "aria-label": "Time left to act" });
          item.appendChild(h("p", { class: "to-act" }, "To act ", clock));
          api.countdown(clock, hand.decision_deadline);
        }
        seats.appendChild(item);
      }
      view.appendChild(seats);
      return names;
    }

    function wagerControl(option) {
      const name = ACTION_NAMES[option.action];
      const low = cents(option.min_amount);
      const high = cents(option.max_amount);
      const to = ["bet", "bring_in"].includes(option.action) ? "" : " to";
      if (low === high) {
        return h("button", { type: "button", class: "primary",
          onclick: () => post("actions/", { action: option.action, amount: option.min_amount }, actionError) },
        `${name}${to} ${option.min_amount}${option.all_in ? " (all in)" : ""}`);
      }
      // Pot limit (DM-9): any amount from the minimum to the maximum, in cents.
      const id = `amount-${option.action}`;
      const slider = h("input", { type: "range", id: `${id}-slider`, min: low, max: high, step: 1, value: low,
        "aria-label": `${name} amount` });
      const number = h("input", { type: "number", id, min: option.min_amount, max: option.max_amount, step: "0.01",
        value: option.min_amount, inputmode: "decimal" });
      const button = h("button", { type: "button", class: "primary" }, `${name}${to} ${option.min_amount}`);
      const sync = (value) => { button.textContent = `${name}${to} ${value}`; };
      slider.addEventListener("input", () => { number.value = money(Number(slider.value)); sync(number.value); });
      number.addEventListener("input", () => { slider.value = cents(number.value || "0"); sync(number.value); });
      button.addEventListener("click", () => post("actions/", { action: option.action, amount: number.value.trim() }, actionError));
      return h("div", { class: "wager" },
        h("label", { for: id }, `${name}${to} (${option.min_amount} to ${option.max_amount})`),
        slider, number, button);
    }

    function actionsView(table) {
      const box = document.getElementById("actions");
      box.replaceChildren();
      const hand = table.hand;
      const options = hand ? hand.legal_actions : [];
      if (!options.length) {
        box.appendChild(h("p", {}, hand && hand.to_act ? `Waiting for seat ${hand.to_act}.` : "Not your turn."));
        return false;
      }
      const row = h("div", { class: "controls" });
      for (const option of options) {
        if (["bet", "raise", "complete", "bring_in", "call"].includes(option.action)) {
          if (option.action === "call") {
            row.appendChild(h("button", { type: "button",
              onclick: () => post("actions/", { action: "call" }, actionError) }, `Call ${option.min_amount}`));
          } else {
            row.appendChild(wagerControl(option));
          }
        } else if (option.action === "exchange") {
          const me = hand.players.find((p) => p.seat === table.your_seat);
          let picked = [];
          const button = h("button", { type: "button", class: "primary" }, "Exchange none (stand pat)");
          const redraw = () => {
            button.textContent = picked.length ? `Exchange ${picked.length} card${picked.length > 1 ? "s" : ""}` : "Exchange none (stand pat)";
            button.disabled = picked.length > option.max_cards;
          };
          box.appendChild(h("p", {}, `The draw: pick up to ${option.max_cards} cards to exchange.`));
          box.appendChild(pickableRow(me.cards, (cards) => { picked = cards; redraw(); }));
          button.addEventListener("click", () => post("actions/", { action: "exchange", cards: picked }, actionError));
          row.appendChild(button);
        } else if (option.action === "take" || option.action === "reject") {
          row.appendChild(h("button", { type: "button", class: option.action === "take" ? "primary" : "",
            onclick: () => post("actions/", { action: option.action }, actionError) },
          `${ACTION_NAMES[option.action]} the twist card ${option.card}`));
        } else {
          row.appendChild(h("button", { type: "button",
            onclick: () => post("actions/", { action: option.action }, actionError) }, ACTION_NAMES[option.action]));
        }
      }
      if (options.some((o) => o.action === "take")) {
        box.appendChild(h("div", { class: "twist" }, h("p", {}, "Your twist card, face up:"),
          cardRow([options.find((o) => o.action === "take").card])));
      }
      box.appendChild(row);
      return true;
    }

    async function lastHand(names) {
      const page = await api.request("GET", `${root.dataset.handsUrl}?table=${root.dataset.table}`);
      const settled = page.results.find((hand) => hand.state === "settled");
      if (!settled || settled.id === lastHandId) return;
      lastHandId = settled.id;
      const full = await api.request("GET", `${root.dataset.handsUrl}${settled.id}/`);
      document.getElementById("hand-view").replaceChildren(handView(full, game, names));
    }

    let shown = null;

    function render(table) {
      // A refresh that brings nothing new keeps the page as it is (the cards picked, the
      // amount chosen, the focus).
      const text = JSON.stringify(table);
      if (text === shown) return;
      shown = text;
      seatPanel(table);
      const names = tableView(table);
      const myTurn = actionsView(table);
      const turn = table.hand ? `${table.hand.id}:${table.hand.street}:${table.hand.to_act}` : null;
      if (turn !== lastTurn) {
        lastTurn = turn;
        if (myTurn) api.announce("Your turn.");
        else if (table.hand && table.hand.to_act) api.announce(`Seat ${table.hand.to_act} to act.`);
      }
      lastHand(names).catch(() => {});
    }

    async function load() {
      render(await api.request("GET", tableUrl));
    }

    joinForm.addEventListener("submit", (event) => {
      event.preventDefault();
      post("seats/", { seat: Number(document.getElementById("seat").value), buy_in: document.getElementById("buy-in").value.trim() }, joinError);
    });
    document.getElementById("leave").addEventListener("click", () => post("leave/", undefined, actionError));
    // Stud (source 002): the automatic ante, off to sit out, and rebuys between hands.
    const autoAnte = document.getElementById("auto-ante");
    if (autoAnte) {
      const seatError = document.getElementById("seat-error");
      autoAnte.addEventListener("change", () => post("ante/", { on: autoAnte.checked }, seatError));
      document.getElementById("rebuy-button").addEventListener("click",
        () => post("rebuy/", { amount: document.getElementById("rebuy").value.trim() }, seatError));
    }
    load().catch((error) => { actionError.textContent = error.message; });
    api.watchTable(root.dataset.eventsUrl, () => load().catch(() => {}), 10);
    // The client seed the next hands mix in (FS-2).
    window.casinoSeeds.seedPanel(document.getElementById("seeds-panel")).load();
  }

  document.addEventListener("DOMContentLoaded", () => {
    const table = document.getElementById("peer-table");
    if (table) {
      tablePage(table);
      return;
    }
    const data = document.getElementById("hand-data");
    if (data) {
      const view = document.getElementById("hand-view");
      const hand = JSON.parse(data.textContent);
      window.casinoFairness.wireVerifyButton(hand, 0);  // ST-1, DM-1: one 52-card deck
      view.replaceChildren(handView(hand, view.dataset.game, null));
    }
  });
})();
