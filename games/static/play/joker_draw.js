/* Joker draw poker: the table page (stakes, the player's decisions, the dealer's reveal and
   draw, every settlement line in words and the new balance) and the round's recall page (with
   "Verify shuffle"). Everything is read from and sent to the JSON API; its refusals are shown
   as they come. Hands and settlement lines come named from the API in the page's language. */
(function () {
  "use strict";
  const { cardRow, pickableRow } = window.casinoCards;
  const { h, cents, shown } = window.casinoPage;
  const signedShown = (value) => (value > 0 ? `+${shown(value)}` : shown(value));

  const STATUS = {
    deciding: pgettext("box status", "deciding"),
    bet: pgettext("box status", "bet"),
    folded: pgettext("box status", "folded"),
  };

  function dealerView(round) {
    const zone = h("div", { class: "dealer-zone", "data-testid": "dealer" },
      h("h2", { class: "zone-title" }, gettext("Dealer")));
    const dealer = round.state === "settled" ? round.dealer : null;
    if (!dealer) {
      // The dealer's cards stay face down, and out of the page, until every box is done (JD-8).
      zone.appendChild(cardRow([], 5));
      zone.appendChild(h("p", { class: "caption" }, round.state === "voided"
        ? gettext("No showdown: the round was voided.")
        : gettext("The dealer turns up after your last decision.")));
      return zone;
    }
    const turned = cardRow(dealer.cards);
    turned.querySelectorAll("svg").forEach((svg) => {
      if (dealer.discarded.includes(svg.dataset.card)) svg.classList.add("discarded");
    });
    const rows = h("div", { class: "dealer-rows" },
      h("div", {}, h("p", { class: "caption" }, dealer.discarded.length
        ? interpolate(ngettext("Turned up, exchanges %(count)s card", "Turned up, exchanges %(count)s cards", dealer.discarded.length), { count: dealer.discarded.length }, true)
        : gettext("Turned up, stands pat")), turned));
    if (dealer.discarded.length) {
      rows.appendChild(h("div", {}, h("p", { class: "caption" }, gettext("After the draw")), cardRow(dealer.final)));
    }
    zone.appendChild(rows);
    zone.appendChild(h("p", { class: "hand-name", "data-testid": "dealer-hand" },
      dealer.hand_name, " · ",
      dealer.qualifies ? gettext("the dealer has a game") : gettext("no game: below a pair of jacks")));
    return zone;
  }

  /* The box's stakes beside its cards, as chips with their amounts written on. */
  function stakesView(box) {
    const chip = (label, value, kind) => h("li", { class: `stake-chip ${kind}` },
      h("span", { class: "chip-label" }, label), " ", h("span", { class: "chip-amount" }, shown(cents(value))));
    return h("ul", { class: "stakes", "aria-label": gettext("Stakes") },
      chip(gettext("Ante"), box.ante, "ante"),
      box.bet ? chip(pgettext("stake", "Bet"), box.bet, "bet") : null,
      box.bonus ? chip(gettext("BONUS"), box.bonus, "bonus") : null);
  }

  function resultView(box) {
    const total = cents(box.result.total);
    return h("div", { class: `result ${total > 0 ? "won" : total < 0 ? "lost" : "push"}`, "data-testid": `result-${box.box}` },
      h("ul", { class: "settlement-lines" }, (box.explanation || []).map((line) => h("li", {}, line))),
      h("p", { class: "total" }, gettext("Box result"), " ",
        h("strong", {}, signedShown(total))));
  }

  function controlsView(round, box, act) {
    const toAct = round.to_act;
    const ante = cents(box.ante);
    const baseAnte = ante / (1 + box.exchanges);
    const controls = h("div", { class: "controls" });
    let cards = cardRow(box.cards);
    if (toAct.options.includes("exchange")) {
      // JD-5: 1 to 5 cards first, JD-6: exactly one after an exchange.
      const allowed = box.exchanges === 0 ? [1, 5] : [1, 1];
      let picked = [];
      const exchange = h("button", { type: "button", class: "exchange", disabled: true });
      const redraw = () => {
        const fits = picked.length >= allowed[0] && picked.length <= allowed[1];
        exchange.disabled = !fits;
        exchange.textContent = picked.length && fits
          ? interpolate(ngettext("Exchange %(count)s card: %(amount)s", "Exchange %(count)s cards: %(amount)s", picked.length),
            { count: picked.length, amount: shown(baseAnte) }, true)
          : interpolate(gettext("Exchange: pick cards (%(amount)s)"), { amount: shown(baseAnte) }, true);
      };
      cards = pickableRow(box.cards, (now) => { picked = now; redraw(); });
      redraw();
      exchange.addEventListener("click", () => act(box.box, "exchange", picked));
      controls.appendChild(exchange);
    }
    if (toAct.options.includes("bet")) {
      controls.appendChild(h("button", { type: "button", class: "primary bet", onclick: () => act(box.box, "bet", []) },
        interpolate(gettext("Bet %(amount)s"), { amount: shown(2 * ante) }, true)));
    }
    if (toAct.options.includes("fold")) {
      controls.appendChild(h("button", { type: "button", class: "fold", onclick: () => act(box.box, "fold", []) },
        interpolate(gettext("Fold: lose %(amount)s"), { amount: shown(ante) }, true)));
    }
    const clock = h("span", { class: "clock", role: "timer", "aria-label": gettext("Time left to decide") });
    controls.appendChild(clock);
    if (window.casinoApi) window.casinoApi.countdown(clock, round.decision_deadline);
    const hint = box.exchanges === 0
      ? gettext("Pick 1 to 5 cards to exchange, or bet on these.")
      : box.exchanges === 1 ? gettext("Pick exactly one card to exchange, or bet.") : gettext("No more exchanges: bet or fold.");
    return [cards, controls, h("p", { class: "hint" }, hint)];
  }

  function boxView(round, box, act) {
    const deciding = round.to_act && round.to_act.box === box.box;
    const section = h("div", { class: `box ${deciding ? "to-act" : ""}`, "data-testid": `box-${box.box}` });
    section.appendChild(h("div", { class: "box-head" },
      h("h3", {}, interpolate(gettext("Box %(number)s"), { number: box.box }, true),
        h("span", { class: `tag status-${box.status}` }, STATUS[box.status] || box.status)),
      stakesView(box)));
    if (!box.cards) {
      section.appendChild(cardRow([], 5));
      return section;
    }
    const named = h("p", { class: "hand-name", "data-testid": `hand-${box.box}` }, box.hand_name || "");
    if (deciding && act) {
      const [cards, ...controls] = controlsView(round, box, act);
      section.append(cards, named, ...controls);
    } else {
      section.append(cardRow(box.cards), named);
    }
    if (box.exchanges) {
      section.appendChild(h("p", { class: "caption" },
        interpolate(ngettext("%(count)s exchange", "%(count)s exchanges", box.exchanges), { count: box.exchanges }, true)));
    }
    if (box.result) section.appendChild(resultView(box));
    return section;
  }

  function roundTotal(round) {
    return round.boxes.reduce((sum, b) => sum + (b.result ? cents(b.result.total) : 0), 0);
  }

  function roundView(round, act, recallUrl) {
    const view = document.createDocumentFragment();
    view.appendChild(dealerView(round));
    const boxes = h("div", { class: "boxes-zone" });
    for (const box of round.boxes) boxes.appendChild(boxView(round, box, act));
    view.appendChild(boxes);
    const footer = h("div", { class: "round-foot", "data-testid": "settlement" });
    footer.appendChild(h("p", { class: "caption round-id" },
      interpolate(gettext("Round %(id)s · nonce %(nonce)s"), { id: round.id, nonce: round.nonce }, true)));
    if (round.state === "settled") {
      const total = roundTotal(round);
      footer.appendChild(h("p", { class: "payout", "data-testid": "payout" },
        total > 0 ? interpolate(gettext("You win %(amount)s."), { amount: shown(total) }, true)
          : total < 0 ? interpolate(gettext("You lose %(amount)s."), { amount: shown(-total) }, true)
            : gettext("Push: your stakes are returned.")));
    } else if (round.state === "voided") {
      footer.appendChild(h("p", { class: "payout", "data-testid": "payout" }, round.explanation));
    }
    if (recallUrl && round.state !== "deciding") {
      footer.appendChild(h("a", { href: `${recallUrl}joker-draw/${round.id}/`, "data-testid": "verify-link" },
        gettext("Verify shuffle")));
    }
    view.appendChild(footer);
    return view;
  }

  function summary(round) {
    if (round.state === "voided") return round.explanation;
    if (round.state !== "settled") {
      const box = round.boxes.find((b) => round.to_act && b.box === round.to_act.box);
      return box ? interpolate(gettext("Box %(number)s to decide: %(hand)s."), { number: box.box, hand: box.hand_name }, true)
        : gettext("Waiting.");
    }
    const total = roundTotal(round);
    const lines = round.boxes.flatMap((b) => b.explanation || []).join(" ");
    return [
      interpolate(gettext("Dealer: %(hand)s."), { hand: round.dealer.hand_name }, true),
      lines,
      interpolate(gettext("Round over: %(amount)s."), { amount: signedShown(total) }, true),
    ].join(" ");
  }

  // The table page -----------------------------------------------------------------------------

  /* The trainer (play-money tables only): each option of the deciding box with its expected
     result in antes, as the API reckons it from the box's own cards. It never acts. */
  function trainerPanel(roundsUrl) {
    const panel = document.getElementById("trainer");
    if (!panel) return () => {};
    const toggle = document.getElementById("trainer-toggle");
    const list = document.getElementById("trainer-options");
    let latest = null;
    const optionText = (option) => {
      const ev = interpolate(gettext("%(ev)s antes"), { ev: (option.ev > 0 ? "+" : "") + option.ev.toFixed(3) }, true);
      if (option.action === "bet") return `${gettext("Bet")}: ${ev}`;
      if (option.action === "fold") return `${gettext("Fold")}: ${ev}`;
      const kept = option.keep.length ? option.keep.join(" ") : gettext("nothing");
      return `${interpolate(gettext("Exchange, keeping %(cards)s"), { cards: kept }, true)}: ${ev}`;
    };
    async function refresh() {
      list.replaceChildren();
      const round = latest;
      if (!toggle.checked || !round || round.state !== "deciding" || !round.to_act) return;
      try {
        const advice = await window.casinoApi.request("GET", `${roundsUrl}${round.id}/trainer/?box=${round.to_act.box}`);
        if (latest !== round) return;  // the round moved on meanwhile
        list.replaceChildren(...advice.options.slice(0, 8).map((option) => h("li", {}, optionText(option))));
      } catch (error) {
        list.replaceChildren(h("li", { class: "error" }, error.message));
      }
    }
    toggle.addEventListener("change", refresh);
    return (round) => { latest = round; refresh(); };
  }

  function tablePage(root) {
    const api = window.casinoApi;
    const tableId = Number(root.dataset.table);
    const felt = document.getElementById("felt");
    const form = document.getElementById("stake-form");
    const deal = form.querySelector('button[type="submit"]');
    const stakeError = document.getElementById("stake-error");
    const actionError = document.getElementById("action-error");
    const view = document.getElementById("round-view");
    let current = null;
    let drawn = null;
    const trainer = trainerPanel(root.dataset.roundsUrl);

    async function showBalance() {
      const wallets = await api.request("GET", root.dataset.walletsUrl);
      const mine = wallets.find((w) => w.currency === root.dataset.currency);
      document.getElementById("balance").textContent = shown(cents(mine ? mine.balance : "0.00"));
    }

    /* Keeps the keyboard on the table after the view is drawn again: on the decision that comes
       next, else on the Deal button, else on the felt itself. */
    function keepFocus(hadFocus) {
      if (!hadFocus) return;
      const next = view.querySelector(".to-act .card-pick, .to-act button:not([disabled])");
      if (next) next.focus();
      else if (!deal.disabled) deal.focus();
      else felt.focus({ preventScroll: true });
    }

    function show(round) {
      // A refresh that brings nothing new keeps the page as it is (the cards picked, the focus).
      const text = JSON.stringify(round);
      if (text === drawn) return;
      drawn = text;
      current = round;
      const hadFocus = felt.contains(document.activeElement) || document.activeElement === document.body;
      // Rendered disabled: dealing waits until the page knows whether a round is still open.
      deal.disabled = Boolean(round) && round.state === "deciding";
      form.classList.toggle("waiting", deal.disabled);
      if (!round) return;
      view.replaceChildren(roundView(round, round.state === "deciding" ? act : null, root.dataset.recallUrl));
      keepFocus(hadFocus);
      trainer(round);
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
      // The pressed button is about to go: the keyboard stays on the table, and the page stays
      // where the player has it (focusing the whole felt must not scroll it).
      felt.focus({ preventScroll: true });
      try {
        const round = await api.request("POST", `${root.dataset.roundsUrl}${current.id}/actions/`, { box, action, cards });
        show(round);
        await showBalance();
        api.announce(summary(round));
      } catch (error) {
        actionError.textContent = error.message;
        drawn = null;  // the buttons were turned off for the request: draw them again
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
        api.announce([gettext("Cards dealt."), summary(round)].join(" "));
      } catch (error) {
        stakeError.textContent = error.message;
      }
    });

    load().catch((error) => {
      stakeError.textContent = error.message;
      // The server still refuses a second unfinished round, so dealing may be offered.
      deal.disabled = false;
    });
    api.watchTable(root.dataset.eventsUrl, () => load().catch(() => {}), 20);
  }

  // The recall page ----------------------------------------------------------------------------

  function recallPage(view) {
    const round = JSON.parse(document.getElementById("round-data").textContent);
    window.casinoFairness.wireVerifyButton(round, 1);  // JD-1: the 53-card deck
    view.classList.add("round");
    view.appendChild(roundView(round, null, null));
  }

  document.addEventListener("DOMContentLoaded", () => {
    const table = document.getElementById("joker-table");
    if (table) tablePage(table);
    else if (document.getElementById("round-data")) recallPage(document.getElementById("round-view"));
  });
})();
