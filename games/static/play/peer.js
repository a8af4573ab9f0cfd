/* Seven-card stud and Drawmaha tables: the seats around an oval felt with their stacks (as a
   number and as chips), bets, cards and the dealer button; the pot and the board in the middle;
   whose turn with a countdown; the player's hand named; the legal actions with what each costs
   (a call's amount to add and the total it makes; a pot-limit slider up to the maximum); the
   draw and the twist; and the last hand's settlement, which the server words. Also the recall
   page of one hand ("Verify shuffle"). Everything is read from and sent to the JSON API. */
(function () {
  "use strict";
  // gettext, ngettext and interpolate: Django's JavaScript catalogue, loaded by the frame.
  const fmt = (format, values) => interpolate(format, values, true);
  const { h, cents, money, shown } = window.casinoPage;
  const { cardRow, pickableRow, cardSvg, drawSlots } = window.casinoCards;

  const STREETS = {
    third: gettext("Third street"), fourth: gettext("Fourth street"), fifth: gettext("Fifth street"),
    sixth: gettext("Sixth street"), seventh: gettext("Seventh street"), preflop: gettext("Before the flop"),
    flop: gettext("Flop"), draw: gettext("The draw"), turn: gettext("Turn"), river: gettext("River"),
    showdown: gettext("Showdown"), over: gettext("Hand over"),
  };
  // Chips by value in cents, largest first: a stack drawn as a few piles of them.
  const CHIPS = [[10000, "chip-100"], [2500, "chip-25"], [500, "chip-5"], [100, "chip-1"], [25, "chip-q"], [1, "chip-c"]];
  const MOST_CHIPS = 12;

  function chipPiles(amount) {
    const piles = h("span", { class: "chips", "aria-hidden": "true" });
    let left = amount;
    let drawn = 0;
    for (const [value, colour] of CHIPS) {
      const count = Math.min(Math.floor(left / value), MOST_CHIPS - drawn);
      left -= Math.floor(left / value) * value;
      if (count <= 0) continue;
      drawn += count;
      const pile = h("span", { class: `pile ${colour}` });
      for (let i = 0; i < count; i++) pile.appendChild(h("i", { class: "chip" }));
      piles.appendChild(pile);
    }
    return piles;
  }

  // Verify shuffle on the recall page of one hand ---------------------------------------------

  function recallPage(data) {
    window.casinoFairness.wireVerifyButton(JSON.parse(data.textContent), 0);  // ST-1, DM-1: one 52-card deck
    if (window.location.hash === "#fairness") document.getElementById("fairness").focus();
  }

  // The table ----------------------------------------------------------------------------------

  function tablePage(root) {
    const api = window.casinoApi;
    const game = root.dataset.game;
    const tableUrl = root.dataset.tableUrl;
    const felt = document.getElementById("table-view");
    const joinForm = document.getElementById("join-form");
    const joinError = document.getElementById("join-error");
    const actionError = document.getElementById("action-error");
    let lastTurn = null;
    let lastHandId = null;
    let drawn = null;  // the table as last drawn, to skip a refresh that brings nothing new

    /* The focused control's key, to find its successor after the page is drawn again. */
    function focusKey() {
      const active = document.activeElement;
      if (!active || active === document.body || !root.contains(active)) return null;
      return active.dataset.focus || (active.id ? `#${active.id}` : null);
    }

    /* Focus back where it was, or on the felt: never lost to the page's body when the control
       that had it was drawn again or went away. */
    function restoreFocus(key) {
      if (!key) return;
      const active = document.activeElement;
      if (active && active !== document.body && document.contains(active)) return;
      const again = key && (key.startsWith("#") ? document.getElementById(key.slice(1)) : root.querySelector(`[data-focus="${key}"]`));
      (again && !again.disabled ? again : felt).focus();
    }

    async function post(path, body, errorNode) {
      errorNode.textContent = "";
      const key = focusKey();
      // One decision at a time: the buttons stay off until the table comes back.
      const busy = document.querySelectorAll("#actions button, #seat-panel button");
      busy.forEach((b) => { b.disabled = true; });
      try {
        render(await api.request("POST", `${tableUrl}${path}`, body));
      } catch (error) {
        errorNode.textContent = error.message;
        drawn = null;  // the buttons were turned off for the request: draw them again
        await load();
      } finally {
        document.querySelectorAll("#seat-panel button").forEach((b) => { b.disabled = false; });
        restoreFocus(key);
      }
    }

    function seatPanel(table) {
      const mine = table.your_seat;
      // A player on a break is not seated (the API refuses it too): no seat form.
      joinForm.hidden = mine !== null || "onBreak" in document.getElementById("peer-table").dataset;
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
          if (!taken.has(n)) select.appendChild(h("option", { value: n, selected: String(n) === chosen }, fmt(gettext("Seat %(seat)s"), { seat: n })));
        }
      }
    }

    function playerCards(player) {
      if (game === "stud") {
        const row = cardRow(player.down || [], player.down ? 0 : player.down_count);
        for (const code of player.up) {
          const svg = cardSvg(code);
          svg.classList.add("up");
          row.appendChild(svg);
        }
        return row;
      }
      const row = cardRow(player.cards || [], player.cards ? 0 : player.card_count);
      if (!player.cards && player.twist) {
        // DM-6: a twist card is shown face up to everyone.
        const svg = cardSvg(player.twist);
        svg.classList.add("up", "twist");
        row.appendChild(svg);
      }
      return row;
    }

    function centre(table) {
      const hand = table.hand;
      const middle = h("div", { class: "centre" });
      if (!hand) {
        middle.appendChild(h("p", { class: "waiting" }, table.seats.length < 2 ? gettext("Waiting for players.") : gettext("The next hand is about to be dealt.")));
      } else {
        middle.appendChild(h("p", { class: "pot", "data-testid": "pot", "data-street": hand.street, "data-pot": hand.pot },
          h("span", { class: "street" }, fmt(gettext("Hand %(number)s · %(street)s"), { number: hand.nonce, street: STREETS[hand.street] || hand.street })),
          " ", h("span", { class: "pot-amount" }, chipPiles(cents(hand.pot)), fmt(gettext("Pot %(amount)s"), { amount: shown(cents(hand.pot)) }))));
        if (game === "drawmaha") {
          middle.appendChild(h("div", { class: "board", "data-testid": "board" }, h("h3", { class: "visually-hidden" }, gettext("Board")),
            hand.board.length ? cardRow(hand.board) : h("p", { class: "caption" }, gettext("No board cards yet."))));
        } else if (hand.common_card) {
          middle.appendChild(h("div", { class: "board", "data-testid": "board" }, h("h3", {}, gettext("Common card")), cardRow([hand.common_card])));
        }
      }
      // Committed before the next hand's antes or blinds (FS-2); revealed once that hand is over.
      if (table.next_hand_commitment) {
        middle.appendChild(h("p", { class: "caption commitment", "data-testid": "next-hand-commitment" },
          gettext("Next hand's server seed SHA-256:"), " ", h("code", {}, table.next_hand_commitment)));
      }
      return middle;
    }

    function seatView(table, seat, player, seats) {
      const hand = table.hand;
      const turn = Boolean(hand && hand.to_act === seat.seat);
      const mine = seat.seat === table.your_seat;
      const folded = Boolean(player && player.folded);
      // Around the oval, seat 1 at the bottom and clockwise, as the players sit.
      const angle = Math.PI / 2 + ((seat.seat - 1) * 2 * Math.PI) / seats;
      const item = h("li", {
        class: ["seat", turn && "turn", mine && "mine", folded && "folded"].filter(Boolean).join(" "),
        "data-testid": `seat-${seat.seat}`,
        "data-seat": seat.seat,
        style: `--x: ${(50 + 38 * Math.cos(angle)).toFixed(1)}%; --y: ${(50 + 33 * Math.sin(angle)).toFixed(1)}%`,
        "aria-current": turn ? "true" : null,
      });
      const tags = [];
      if (mine) tags.push(h("span", { class: "tag" }, gettext("you")));
      if (game === "drawmaha" && hand && player && player.index === hand.button) {
        tags.push(h("span", { class: "dealer-button", "data-testid": "dealer-button", title: gettext("Dealer button") }, "D",
          h("span", { class: "visually-hidden" }, gettext("Dealer button"))));
      }
      if (folded) tags.push(h("span", { class: "tag folded-tag" }, gettext("Folded")));
      if (player && player.all_in) tags.push(h("span", { class: "tag" }, gettext("All in")));
      if (seat.status === "leaving") tags.push(h("span", { class: "tag" }, gettext("Leaving")));
      if (seat.auto_ante === false) tags.push(h("span", { class: "tag" }, gettext("sitting out")));
      item.appendChild(h("p", { class: "who" }, h("span", { class: "name" }, fmt(gettext("Seat %(seat)s · %(player)s"), { seat: seat.seat, player: seat.player })), ...tags));
      const stack = player ? player.stack : seat.chips;
      item.appendChild(h("p", { class: "stack", "data-stack": stack }, chipPiles(cents(stack)), fmt(gettext("Stack %(amount)s"), { amount: shown(cents(stack)) })));
      if (player) {
        item.appendChild(playerCards(player));
        if (player.hand && !mine) item.appendChild(h("p", { class: "hand-name" }, player.hand));
        if (game === "drawmaha" && player.exchanged !== null) {
          item.appendChild(h("p", { class: "caption" },
            player.exchanged ? fmt(ngettext("Exchanged %(count)s card", "Exchanged %(count)s cards", player.exchanged), { count: player.exchanged }) : gettext("Stood pat")));
        }
        if (cents(player.bet)) {
          item.appendChild(h("p", { class: "bet", "data-testid": `bet-${seat.seat}`, "data-bet": player.bet },
            chipPiles(cents(player.bet)), fmt(gettext("Bet %(amount)s"), { amount: shown(cents(player.bet)) })));
        }
      }
      if (turn) {
        const clock = h("span", { class: "clock", "data-testid": "countdown", "data-deadline": hand.decision_deadline || "" });
        item.appendChild(h("p", { class: "to-act" }, gettext("To act:"), " ", clock));
        api.countdown(clock, hand.decision_deadline);
      }
      return item;
    }

    function tableView(table) {
      felt.replaceChildren();
      felt.classList.toggle("drawmaha", game === "drawmaha");
      felt.appendChild(centre(table));
      const hand = table.hand;
      const seats = h("ol", { class: "seats" });
      const inHand = new Map((hand ? hand.players : []).map((p, index) => [p.seat, { ...p, index }]));
      for (const seat of table.seats) seats.appendChild(seatView(table, seat, inHand.get(seat.seat), table.limits.seats));
      felt.appendChild(seats);
    }

    function myHand(table) {
      const box = document.getElementById("hand-name");
      const me = table.hand && table.hand.players.find((p) => p.seat === table.your_seat);
      const names = [];
      if (me && me.hand) names.push(fmt(gettext("Your hand: %(hand)s"), { hand: me.hand }));
      if (me && me.draw_hand) names.push(fmt(gettext("Draw: %(hand)s"), { hand: me.draw_hand }));
      if (me && me.omaha_hand) names.push(fmt(gettext("Omaha: %(hand)s"), { hand: me.omaha_hand }));
      box.textContent = names.join(" · ");
      return me;
    }

    function send(action, extra) {
      return () => post("actions/", { action, ...extra }, actionError);
    }

    /* A wager's button: what the action is, the total it makes this street and what it adds
       (amounts in the page's language; the inputs and data attributes keep "1.50"). */
    function wagerText(action, amount) {
      const total = shown(cents(amount));
      switch (action) {
        case "bring_in": return fmt(gettext("Bring-in %(amount)s"), { amount: total });
        case "complete": return fmt(gettext("Complete to %(amount)s"), { amount: total });
        case "bet": return fmt(gettext("Bet %(amount)s"), { amount: total });
        default: return fmt(gettext("Raise to %(amount)s"), { amount: total });
      }
    }

    function adds(amount, myBet) {
      return Math.max(0, cents(amount) - myBet);
    }

    function wagerControl(option, myBet) {
      const low = cents(option.min_amount);
      const high = cents(option.max_amount);
      const addText = (total) => fmt(gettext("adds %(amount)s"), { amount: shown(adds(total, myBet)) });
      if (low === high) {
        return h("button", { type: "button", class: "primary", "data-focus": `action-${option.action}`, onclick: send(option.action, { amount: option.min_amount }) },
          wagerText(option.action, option.min_amount), option.all_in ? ` (${gettext("all in")})` : "",
          " ", h("small", { class: "adds" }, addText(option.min_amount)));
      }
      // Pot limit (DM-9): any amount from the minimum to the maximum, in cents.
      const id = `amount-${option.action}`;
      const slider = h("input", { type: "range", id: `${id}-slider`, "data-focus": `${id}-slider`, min: low, max: high, step: 1, value: low,
        "aria-label": option.action === "bet" ? gettext("Bet amount") : gettext("Raise amount") });
      const number = h("input", { type: "number", id, "data-focus": id, min: option.min_amount, max: option.max_amount, step: "0.01",
        value: option.min_amount, inputmode: "decimal" });
      const small = h("small", { class: "adds" }, addText(option.min_amount));
      const button = h("button", { type: "button", class: "primary", "data-focus": `action-${option.action}` }, wagerText(option.action, option.min_amount));
      const sync = (value) => { button.textContent = wagerText(option.action, value); small.textContent = addText(value); };
      slider.addEventListener("input", () => { number.value = money(Number(slider.value)); sync(number.value); });
      number.addEventListener("input", () => { slider.value = cents(number.value || "0"); sync(number.value); });
      button.addEventListener("click", () => post("actions/", { action: option.action, amount: number.value.trim() }, actionError));
      const most = h("button", { type: "button", class: "pot-max", "data-focus": `${id}-max`,
        onclick: () => { slider.value = high; number.value = option.max_amount; sync(option.max_amount); } },
      fmt(gettext("Pot limit: %(amount)s"), { amount: shown(high) }));
      return h("div", { class: "wager" },
        h("label", { for: id }, fmt(option.action === "bet" ? gettext("Bet (%(low)s–%(high)s)") : gettext("Raise to (%(low)s–%(high)s)"), { low: shown(low), high: shown(high) })),
        slider, number, button, small, most);
    }

    function actionsView(table, me) {
      const box = document.getElementById("actions");
      box.replaceChildren();
      const hand = table.hand;
      const options = hand ? hand.legal_actions : [];
      if (!options.length) {
        // Out of time, the player to act may no longer decide: the timer is about to.
        const waiting = hand && hand.overdue ? gettext("Seat %(seat)s is out of time: the table acts for them.") : gettext("Waiting for seat %(seat)s.");
        box.appendChild(h("p", {}, hand && hand.to_act ? fmt(waiting, { seat: hand.to_act }) : gettext("Not your turn.")));
        return false;
      }
      const myBet = me ? cents(me.bet) : 0;
      const row = h("div", { class: "controls" });
      for (const option of options) {
        if (option.action === "call") {
          // The amount to add, and beside it the total bet it makes.
          const add = adds(option.min_amount, myBet);
          row.appendChild(h("button", { type: "button", "data-focus": "action-call", "data-testid": "call", "data-add": money(add), "data-to": option.min_amount,
            onclick: send("call") }, fmt(gettext("Call %(amount)s"), { amount: shown(add) }),
          option.all_in ? ` (${gettext("all in")})` : "",
          " ", h("small", { class: "to" }, fmt(gettext("to %(amount)s"), { amount: shown(cents(option.min_amount)) }))));
        } else if (["bet", "raise", "complete", "bring_in"].includes(option.action)) {
          row.appendChild(wagerControl(option, myBet));
        } else if (option.action === "exchange") {
          let picked = [];
          const standPat = gettext("Exchange none (stand pat)");
          const button = h("button", { type: "button", class: "primary", "data-focus": "action-exchange" }, standPat);
          const redraw = () => {
            button.textContent = picked.length ? fmt(ngettext("Exchange %(count)s card", "Exchange %(count)s cards", picked.length), { count: picked.length }) : standPat;
            button.disabled = picked.length > option.max_cards;
          };
          box.appendChild(h("p", {}, fmt(ngettext("The draw: pick up to %(count)s card to exchange.", "The draw: pick up to %(count)s cards to exchange.", option.max_cards), { count: option.max_cards })));
          box.appendChild(pickableRow(me.cards, (cards) => { picked = cards; redraw(); }));
          button.addEventListener("click", () => post("actions/", { action: "exchange", cards: picked }, actionError));
          row.appendChild(button);
        } else if (option.action === "take" || option.action === "reject") {
          const text = option.action === "take" ? gettext("Accept the twist card %(card)s") : gettext("Reject the twist card %(card)s");
          row.appendChild(h("button", { type: "button", class: option.action === "take" ? "primary" : "", "data-focus": `action-${option.action}`,
            onclick: send(option.action) }, fmt(text, { card: option.card })));
        } else {
          const names = { fold: gettext("Fold"), check: gettext("Check"), show: gettext("Show"), muck: gettext("Muck") };
          row.appendChild(h("button", { type: "button", "data-focus": `action-${option.action}`, onclick: send(option.action) }, names[option.action] || option.action));
        }
      }
      if (options.some((o) => o.action === "take")) {
        box.appendChild(h("div", { class: "twist" }, h("p", {}, gettext("Your twist card, face up:")),
          cardRow([options.find((o) => o.action === "take").card])));
      }
      box.appendChild(row);
      return true;
    }

    /* The last finished hand, as the server words it (its cards, hands and settlement). */
    async function lastHand() {
      const page = await api.request("GET", `${root.dataset.handsUrl}?table=${root.dataset.table}`);
      const finished = page.results.find((hand) => hand.state !== "deciding");
      const endsNow = lastHandId !== null;  // the page looked before the hand was over
      if (!finished) {
        lastHandId = lastHandId ?? 0;
        return;
      }
      if (finished.id === lastHandId) return;
      lastHandId = finished.id;
      const response = await fetch(root.dataset.summaryUrl.replace("/0/summary/", `/${finished.id}/summary/`), { credentials: "same-origin" });
      if (!response.ok) return;
      const view = document.getElementById("hand-view");
      view.innerHTML = await response.text();  // the server's own template, escaped there
      drawSlots(view);
      // A hand that ends while the page is open is told in the live region, line by line.
      if (endsNow) api.announce([...view.querySelectorAll(".settlement li")].map((li) => li.textContent).join(" "));
    }

    function render(table) {
      // A refresh that brings nothing new keeps the page as it is (the cards picked, the
      // amount chosen, the focus).
      const text = JSON.stringify(table);
      if (text === drawn) return;
      drawn = text;
      const key = focusKey();
      seatPanel(table);
      tableView(table);
      const me = myHand(table);
      const myTurn = actionsView(table, me);
      restoreFocus(key);
      const turn = table.hand ? `${table.hand.id}:${table.hand.street}:${table.hand.to_act}` : null;
      if (turn !== lastTurn) {
        lastTurn = turn;
        if (myTurn) api.announce(gettext("Your turn."));
        else if (table.hand && table.hand.to_act) api.announce(fmt(gettext("Seat %(seat)s to act."), { seat: table.hand.to_act }));
      }
      lastHand().catch(() => {});
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
    if (data) recallPage(data);
  });
})();
