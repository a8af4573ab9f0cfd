/* Joker draw poker: the table page (stakes, the player's decisions, the dealer's reveal and
   draw, results and the new balance) and the round's recall page (with "Verify shuffle").
   Everything is read from and sent to the JSON API; its refusals are shown as they come. */
(function () {
  "use strict";
  const { cardRow, pickableRow } = window.casinoCards;

  const { h, cents, money } = window.casinoPage;
  const signedText = (text) => window.casinoPage.signed(cents(text));
  
  function dealerView(round) {
    const settled = round.state === "settled";
    if (!settled || !round.dealer) {
      return h("div", { class: "dealer" }, h("h3", {}, "Dealer"), cardRow([], 5));
    }
    const dealer = round.dealer;
    const first = cardRow(dealer.cards);
    first.querySelectorAll("svg").forEach((svg) => {
      if (dealer.discarded.includes(svg.dataset.card)) svg.classList.add("discarded");
    });
    return h(
      "div", { class: "dealer", "data-testid": "dealer" },
      h("h3", {}, "Dealer"),
      h("p", { class: "caption" }, "Turned up",
        dealer.discarded.length ? ` · exchanges ${dealer.discarded.join(" ")}` : " · stands pat"),
      first,
      dealer.discarded.length ? h("p", { class: "caption" }, "After the draw") : null,
      dealer.discarded.length ? cardRow(dealer.final) : null,
      h("p", { class: "hand-name" },
        `${dealer.hand} · ${dealer.qualifies ? "the dealer has a game" : "no game (below a pair of jacks)"}`),
    );
  }

  function resultView(box) {
    const r = box.result;
    const total = cents(r.total);
    return h(
      "div", { class: `result ${total > 0 ? "won" : total < 0 ? "lost" : "push"}`, "data-testid": `result-${box.box}` },
      h("p", { class: "hand-name" }, `${box.hand}`),
      h("dl", { class: "amounts" },
        h("div", {}, h("dt", {}, "Ante"), h("dd", {}, signedText(r.ante))),
        h("div", {}, h("dt", {}, "Bet"), h("dd", {}, signedText(r.bet))),
        box.bonus ? h("div", {}, h("dt", {}, "BONUS"), h("dd", {}, signedText(r.bonus))) : null,
        h("div", { class: "total" }, h("dt", {}, "Result"), h("dd", {}, signedText(r.total))),
      ),
    );
  }

  function boxView(round, box, act) {
    const toAct = round.to_act && round.to_act.box === box.box ? round.to_act : null;
    const ante = cents(box.ante);
    const baseAnte = ante / (1 + box.exchanges);
    const section = h("div", { class: `box ${toAct ? "to-act" : ""}`, "data-testid": `box-${box.box}` });
    section.appendChild(h("h3", {}, `Box ${box.box}`, h("span", { class: "tag" }, box.status)));
    section.appendChild(h("p", { class: "caption" },
      `Ante ${box.ante}`, box.bet ? ` · bet ${box.bet}` : "", box.bonus ? ` · BONUS ${box.bonus}` : "",
      box.exchanges ? ` · ${box.exchanges} exchange${box.exchanges > 1 ? "s" : ""}` : ""));
    if (!box.cards) {
      section.appendChild(cardRow([], 5));
      return section;
    }
    if (!toAct || !act) {
      section.appendChild(cardRow(box.cards));
      if (box.initial_cards && box.initial_cards.join() !== box.cards.join()) {
        section.appendChild(h("p", { class: "caption" }, `Dealt ${box.initial_cards.join(" ")}`));
      }
      if (box.result) section.appendChild(resultView(box));
      return section;
    }
    let picked = [];
    const exchange = h("button", { type: "button", class: "primary", disabled: true }, "Exchange");
    const redraw = () => {
      exchange.disabled = picked.length === 0;
      exchange.textContent = picked.length
        ? `Exchange ${picked.length} card${picked.length > 1 ? "s" : ""} (ante +${money(baseAnte)})`
        : "Exchange (pick cards first)";
    };
    const canExchange = toAct.options.includes("exchange");
    section.appendChild(canExchange
      ? pickableRow(box.cards, (cards) => { picked = cards; redraw(); })
      : cardRow(box.cards));
    const controls = h("div", { class: "controls" });
    if (canExchange) {
      redraw();
      exchange.addEventListener("click", () => act(box.box, "exchange", picked));
      controls.appendChild(exchange);
      controls.appendChild(h("span", { class: "hint" },
        box.exchanges === 0 ? "Pick 1 to 5 cards to exchange." : "Pick exactly one card to exchange."));
    }
    if (toAct.options.includes("bet")) {
      controls.appendChild(h("button", { type: "button", class: "primary", onclick: () => act(box.box, "bet", []) },
        `Bet ${money(2 * ante)}`));
    }
    if (toAct.options.includes("fold")) {
      controls.appendChild(h("button", { type: "button", onclick: () => act(box.box, "fold", []) },
        `Fold (lose ${money(ante)})`));
    }
    const clock = h("span", { class: "clock", "aria-label": "Time left to decide" });
    controls.appendChild(clock);
    section.appendChild(controls);
    if (window.casinoApi) window.casinoApi.countdown(clock, round.decision_deadline);
    return section;
  }

  function roundView(round, act) {
    const view = h("div", { class: "round" });
    view.appendChild(h("p", { class: "caption" },
      `Round ${round.id} · nonce ${round.nonce} · ${round.state}`, " · commitment ", h("code", {}, round.commitment.slice(0, 16) + "…")));
    view.appendChild(dealerView(round));
    const boxes = h("div", { class: "boxes" });
    for (const box of round.boxes) boxes.appendChild(boxView(round, box, act));
    view.appendChild(boxes);
    if (round.state === "settled") {
      const total = round.boxes.reduce((sum, b) => sum + cents(b.result.total), 0);
      view.appendChild(h("p", { class: "payout", "data-testid": "payout" },
        total > 0 ? `You win ${money(total)}` : total < 0 ? `You lose ${money(-total)}` : "Push: your stakes are returned",
        ` (round result ${window.casinoPage.signed(total)}).`));
    }
    return view;
  }

  function summary(round) {
    if (round.state !== "settled") {
      return round.to_act ? `Box ${round.to_act.box} to decide.` : "Waiting.";
    }
    const total = round.boxes.reduce((sum, b) => sum + cents(b.result.total), 0);
    const dealer = round.dealer ? `Dealer: ${round.dealer.hand}. ` : "";
    return `${dealer}Round over: ${total >= 0 ? "+" : ""}${money(total)}.`;
  }

  // The table page -----------------------------------------------------------------------------

  function tablePage(root) {
    const api = window.casinoApi;
    const tableId = Number(root.dataset.table);
    const form = document.getElementById("stake-form");
    const stakeError = document.getElementById("stake-error");
    const actionError = document.getElementById("action-error");
    const roundPanel = document.getElementById("round-panel");
    const view = document.getElementById("round-view");
    let current = null;

    async function showBalance() {
      const wallets = await api.request("GET", root.dataset.walletsUrl);
      const mine = wallets.find((w) => w.currency === root.dataset.currency);
      document.getElementById("balance").textContent = mine ? mine.balance : "0.00";
    }

    let shown = null;

    function show(round) {
      // A refresh that brings nothing new keeps the page as it is (the cards picked, the focus).
      const text = JSON.stringify(round);
      if (text === shown) return;
      shown = text;
      current = round;
      roundPanel.hidden = !round;
      // Rendered disabled: dealing waits until the page knows whether a round is still open.
      form.querySelector('button[type="submit"]').disabled = Boolean(round) && round.state === "deciding";
      view.replaceChildren();
      if (!round) return;
      view.appendChild(roundView(round, round.state === "deciding" ? act : null));
    }

    // The seed pair's hash, shown before the stake, with the next nonce (FS-2).
    const loadSeeds = window.casinoSeeds.seedPanel(document.getElementById("seeds-panel")).load;

    async function load() {
      await loadSeeds();
      const page = await api.request("GET", `${root.dataset.roundsUrl}?table=${tableId}`);
      const latest = page.results[0] || null;
      const before = current;
      show(latest);
      if (latest && before && before.id === latest.id && before.state !== latest.state) {
        api.announce(summary(latest));
      }
      await showBalance();
    }

    async function act(box, action, cards) {
      actionError.textContent = "";
      view.querySelectorAll("button").forEach((b) => { b.disabled = true; });  // one at a time
      try {
        const round = await api.request("POST", `${root.dataset.roundsUrl}${current.id}/actions/`, { box, action, cards });
        show(round);
        await showBalance();
        api.announce(summary(round));
      } catch (error) {
        actionError.textContent = error.message;
        shown = null;  // the buttons were turned off for the request: draw them again
        await load();
      }
    }

    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      stakeError.textContent = "";
      const boxes = [];
      for (const fieldset of form.querySelectorAll("fieldset[data-box]")) {
        const number = Number(fieldset.dataset.box);
        if (!fieldset.querySelector(`[name="play-${number}"]`).checked) continue;
        const stake = { box: number, ante: fieldset.querySelector(`[name="ante-${number}"]`).value.trim() };
        const bonus = fieldset.querySelector(`[name="bonus-${number}"]`).value.trim();
        if (bonus) stake.bonus = bonus;
        boxes.push(stake);
      }
      try {
        const round = await api.request("POST", root.dataset.roundsUrl, { table: tableId, boxes });
        show(round);
        await showBalance();
        await loadSeeds();  // the next nonce
        api.announce(`Cards dealt. ${summary(round)}`);
      } catch (error) {
        stakeError.textContent = error.message;
      }
    });

    load().catch((error) => {
      stakeError.textContent = error.message;
      // The server still refuses a second unfinished round, so dealing may be offered.
      form.querySelector('button[type="submit"]').disabled = false;
    });
    api.watchTable(root.dataset.eventsUrl, () => load().catch(() => {}), 20);
  }

  // The recall page ----------------------------------------------------------------------------

  function recallPage(view) {
    const round = JSON.parse(document.getElementById("round-data").textContent);
    window.casinoFairness.wireVerifyButton(round, 1);  // JD-1: the 53-card deck
    view.appendChild(roundView(round, null));
  }

  document.addEventListener("DOMContentLoaded", () => {
    const table = document.getElementById("joker-table");
    if (table) tablePage(table);
    else if (document.getElementById("round-data")) recallPage(document.getElementById("round-view"));
  });
})();
