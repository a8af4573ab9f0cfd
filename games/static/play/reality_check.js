/* The reality check's notice at a table: asked for once a minute, and shown at once when the
   API refuses a stake with "reality_check_due" (api.js sends the event). The player reads the
   session's length and net result and presses Continue, which acknowledges it; until then the
   focus stays in the notice. */
(function () {
  "use strict";

  const POLL_SECONDS = 60;
  const root = document.getElementById("reality-check");
  if (!root) return;
  const url = root.dataset.url;
  const button = document.getElementById("reality-check-continue");
  const error = document.getElementById("reality-check-error");
  let before = null;

  function describe(session) {
    const minutes = Number(session.minutes || 0);
    root.querySelector('[data-testid="reality-check-minutes"]').textContent = interpolate(
      ngettext("You have played for %s minute this session.", "You have played for %s minutes this session.", minutes),
      [minutes],
    );
    const results = Object.entries(session.net_result || {}).map(([currency, amount]) =>
      `${window.casinoPage.shown(window.casinoPage.cents(amount))} ${currency}`);
    root.querySelector('[data-testid="reality-check-result"]').textContent = results.length
      ? interpolate(gettext("Your net result: %s."), [results.join(", ")])
      : gettext("No result yet.");
  }

  function focusable() {
    return Array.from(root.querySelectorAll("button, a[href]"));
  }

  function trap(event) {
    if (event.key !== "Tab") return;
    const items = focusable();
    const first = items[0];
    const last = items[items.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    } else if (!root.contains(document.activeElement)) {
      event.preventDefault();
      first.focus();
    }
  }

  function show(session) {
    describe(session);
    error.textContent = "";
    if (root.hidden) {
      before = document.activeElement;
      root.hidden = false;
      document.addEventListener("keydown", trap);
    }
    button.focus();
  }

  function hide() {
    root.hidden = true;
    document.removeEventListener("keydown", trap);
    if (before && before.focus) before.focus();
  }

  async function check() {
    try {
      const session = await window.casinoApi.request("GET", url);
      if (session.due) show(session);
    } catch (_) {
      /* the next poll asks again */
    }
  }

  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await window.casinoApi.request("POST", url, {});
      hide();
      window.casinoApi.announce(gettext("Reality check acknowledged: play on."));
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      button.disabled = false;
    }
  });

  document.addEventListener("casino:reality-check-due", (event) => {
    const session = (event.detail && event.detail.session) || null;
    if (session) show(session);
    else check();
  });

  check();
  setInterval(check, POLL_SECONDS * 1000);
})();
