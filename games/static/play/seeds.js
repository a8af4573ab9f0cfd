/* The player's seed pair on a table page (FS-2, FS-7): the SHA-256 of the server seed the next
   round is shuffled with, shown before the stake; the client seed to change (it is mixed into
   peer hands too); and, where the page offers it, the rotation that reveals the seed. */
(function () {
  "use strict";

  function seedPanel(panel) {
    const api = window.casinoApi;
    const { h } = window.casinoPage;
    const error = panel.querySelector(".seeds-error");
    const clientSeed = panel.querySelector('input[name="client_seed"]');

    function show(pair) {
      panel.hidden = false;
      document.getElementById("seed-commitment").textContent = pair.commitment;
      document.getElementById("next-nonce").textContent = pair.next_nonce;
      if (document.activeElement !== clientSeed) clientSeed.value = pair.client_seed;
    }

    async function load() {
      try {
        show(await api.request("GET", panel.dataset.seedsUrl));
      } catch (failure) {
        panel.hidden = true;  // staff have no seed pair
      }
    }

    panel.querySelector("form").addEventListener("submit", async (event) => {
      event.preventDefault();
      error.textContent = "";
      try {
        const pair = await api.request("PUT", panel.dataset.seedsUrl, { client_seed: clientSeed.value.trim() });
        clientSeed.blur();
        show(pair);
        api.announce(gettext("Your client seed is set for the next round."));
      } catch (failure) {
        error.textContent = failure.message;
      }
    });

    const rotate = panel.querySelector("#rotate-seeds");
    if (rotate) {
      rotate.addEventListener("click", async () => {
        error.textContent = "";
        try {
          const rotation = await api.request("POST", panel.dataset.rotateUrl);
          show(rotation.current);
          const old = rotation.revealed;
          document.getElementById("revealed-seed").replaceChildren(
            h("p", {}, interpolate(ngettext(
              "Revealed server seed of %(rounds)s round, SHA-256 %(commitment)s: ",
              "Revealed server seed of %(rounds)s rounds, SHA-256 %(commitment)s: ",
              old.rounds), { rounds: old.rounds, commitment: old.commitment }, true),
              h("code", { "data-testid": "revealed-seed" }, old.server_seed)));
        } catch (failure) {
          error.textContent = failure.message;
        }
      });
    }
    return { load };
  }

  window.casinoSeeds = { seedPanel };
})();
