/* The player's own seat state at a peer table (templates/play/_seat_status.html): sat out, with
   "I'm back", or the table closed by the pit, with its reason and the cash-out. The words are
   the template's; this only shows the part that applies, from the table's API. */
(function () {
  "use strict";

  const REFRESH_MS = 5000;

  function seatStatus(root) {
    const api = window.casinoApi;
    const tableUrl = root.dataset.tableUrl;
    const error = document.getElementById("seat-status-error");
    const part = (id) => document.getElementById(id);

    function render(table) {
      const sitting = table.your_sitting;
      const closed = table.status !== "open";
      const satOut = !closed && sitting !== null && sitting.sat_out_at !== null;
      part("table-closed").hidden = !closed;
      part("closed-reason").textContent = table.status_reason;
      part("closed-seated").hidden = sitting === null;
      part("closed-gone").hidden = sitting !== null;
      part("sat-out").hidden = !satOut;
      if (satOut) {
        const time = part("cash-out-at");
        time.dateTime = sitting.cash_out_at;
        time.textContent = new Date(sitting.cash_out_at).toLocaleTimeString(document.documentElement.lang);
      }
      root.hidden = !closed && !satOut;
    }

    async function load() {
      render(await api.request("GET", tableUrl));
    }

    async function post(path) {
      error.textContent = "";
      try {
        render(await api.request("POST", `${tableUrl}${path}`));
      } catch (refused) {
        error.textContent = refused.message;  // the API's words
      }
    }

    part("im-back").addEventListener("click", () => post("back/"));
    part("cash-out").addEventListener("click", () => post("leave/"));
    load().catch(() => {});
    // A slow look of its own: the table's live stream is the page's, and a second stream per
    // page would count twice against the player's open streams.
    setInterval(() => load().catch(() => {}), REFRESH_MS);
  }

  document.addEventListener("DOMContentLoaded", () => {
    const root = document.getElementById("seat-status");
    if (root) seatStatus(root);
  });
})();
