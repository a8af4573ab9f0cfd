/* "Verify shuffle": recompute a settled round's deck in the browser from its revealed seed,
   exactly as the server shuffles (games/engine/fairness.py), with WebCrypto:
   FS-1 canonical deck, FS-2 commitment = SHA-256 of the seed's 32 raw bytes, FS-3 HMAC-SHA256
   byte stream over "{client_seed}:{nonce}:{counter}", FS-4 uniform integers by rejection,
   FS-5 Fisher-Yates from the last position down. */
(function () {
  "use strict";
  const RANKS = "23456789TJQKA";
  const SUITS = "cdhs";
  const U32 = 2 ** 32;

  function hexToBytes(hex) {
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error("the server seed must be 64 hex characters");
    const bytes = new Uint8Array(32);
    for (let i = 0; i < 32; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    return bytes;
  }

  function bytesToHex(buffer) {
    return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  /* FS-1: 2c 2d 2h 2s 3c ... As, then JK for the joker deck. */
  function canonicalDeck(jokers) {
    const deck = [];
    for (const rank of RANKS) for (const suit of SUITS) deck.push(rank + suit);
    if (jokers) deck.push("JK");
    return deck;
  }

  /* FS-2 */
  async function commitment(seedHex) {
    return bytesToHex(await crypto.subtle.digest("SHA-256", hexToBytes(seedHex)));
  }

  /* FS-3: the digests of counter 0, 1, 2, ... one after another. */
  class ByteStream {
    constructor(key, clientSeed, nonce) {
      this.key = key;
      this.prefix = `${clientSeed}:${nonce}:`;
      this.counter = 0;
      this.buffer = new Uint8Array(0);
      this.position = 0;
    }

    static async open(seedHex, clientSeed, nonce) {
      const key = await crypto.subtle.importKey(
        "raw", hexToBytes(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      return new ByteStream(key, clientSeed, nonce);
    }

    async read(size) {
      while (this.buffer.length - this.position < size) {
        const text = new TextEncoder().encode(`${this.prefix}${this.counter}`);
        const block = new Uint8Array(await crypto.subtle.sign("HMAC", this.key, text));
        const rest = this.buffer.slice(this.position);
        const joined = new Uint8Array(rest.length + block.length);
        joined.set(rest);
        joined.set(block, rest.length);
        this.buffer = joined;
        this.position = 0;
        this.counter += 1;
      }
      const out = this.buffer.slice(this.position, this.position + size);
      this.position += size;
      return out;
    }

    /* FS-4: 4 bytes big-endian as u; discard while u >= 2**32 - 2**32 % n; then u % n. */
    async uniform(n) {
      const limit = U32 - (U32 % n);
      for (;;) {
        const b = await this.read(4);
        const u = new DataView(b.buffer).getUint32(0, false);
        if (u < limit) return u % n;
      }
    }
  }

  /* FS-5: for i from len-1 down to 1, j = uniform(i + 1), swap i and j; position 0 is the top. */
  async function shuffle(cards, stream) {
    const deck = cards.slice();
    for (let i = deck.length - 1; i > 0; i--) {
      const j = await stream.uniform(i + 1);
      [deck[i], deck[j]] = [deck[j], deck[i]];
    }
    return deck;
  }

  async function deckOrder(seedHex, clientSeed, nonce, jokers) {
    return shuffle(canonicalDeck(jokers), await ByteStream.open(seedHex, clientSeed, nonce));
  }

  /* The verdict on a round or hand: its seed matches the commitment, and every dealt card sits
     at its position in its shuffle. Shuffle 0 is the round's deck; each reshuffle (FS-6) puts
     the cards left in the deck and the cards returned in canonical order and shuffles them,
     continuing the same byte stream. Cards without a shuffle number belong to shuffle 0. */
  async function verifyDeal({ serverSeed, commitment: published, clientSeed, nonce, jokers, dealt, reshuffles = [] }) {
    const computed = await commitment(serverSeed);
    const stream = await ByteStream.open(serverSeed, clientSeed, nonce);
    const canonical = canonicalDeck(jokers);
    const rank = new Map(canonical.map((card, index) => [card, index]));
    const decks = [await shuffle(canonical, stream)];
    const cards = dealt.map((d) => ({ shuffle: 0, ...d }));
    for (const { returned } of [...reshuffles].sort((x, y) => x.shuffle - y.shuffle)) {
      const current = decks.length - 1;
      const used = Math.max(-1, ...cards.filter((d) => d.shuffle === current).map((d) => d.position)) + 1;
      const pool = decks[current].slice(used).concat(returned).sort((x, y) => rank.get(x) - rank.get(y));
      decks.push(await shuffle(pool, stream));
    }
    const mismatches = cards.filter(({ shuffle: n, position, card }) => !decks[n] || decks[n][position] !== card);
    const commitmentMatches = computed === published.toLowerCase();
    return {
      computedCommitment: computed,
      commitmentMatches,
      deck: decks[0],
      reshuffles: decks.length - 1,
      checked: cards.length,
      mismatches,
      ok: commitmentMatches && mismatches.length === 0 && cards.length > 0,
    };
  }

  /* The verdict as page elements, with the first deck listed (the cards used are marked). */
  function verdictView(verdict, dealt) {
    const { h } = window.casinoPage;
    const used = new Set(dealt.filter((d) => !d.shuffle).map((d) => d.position));
    return [
      h("p", { class: verdict.commitmentMatches ? "ok" : "error", "data-testid": "commitment-verdict" },
        verdict.commitmentMatches
          ? gettext("The seed's SHA-256 equals the commitment published before the deal.")
          : interpolate(gettext("The seed's SHA-256 is %s: it does not match the commitment."), [verdict.computedCommitment])),
      h("p", { class: verdict.mismatches.length ? "error" : "ok", "data-testid": "deck-verdict" },
        verdict.mismatches.length
          ? interpolate(
            gettext("%(differ)s of %(checked)s dealt cards differ from the recomputed deck (first at position %(position)s)."),
            { differ: verdict.mismatches.length, checked: verdict.checked, position: verdict.mismatches[0].position }, true)
          : verdict.reshuffles
            ? interpolate(ngettext(
              "All %(checked)s cards dealt match the recomputed deck and its %(reshuffles)s reshuffle.",
              "All %(checked)s cards dealt match the recomputed deck and its %(reshuffles)s reshuffles.",
              verdict.reshuffles), { checked: verdict.checked, reshuffles: verdict.reshuffles }, true)
            : interpolate(gettext("All %s cards dealt match the recomputed deck."), [verdict.checked])),
      h("p", { class: "caption" }, gettext("The recomputed deck, top first (cards dealt from it are marked):")),
      h("ol", { class: "deck", start: "0" },
        verdict.deck.map((card, position) => h("li", { class: used.has(position) ? "used" : "" }, card))),
    ];
  }

  /* Wires a page's "Verify shuffle" button to its seeds and dealt cards (FS-7). */
  function wireVerifyButton(seeds, jokers) {
    const button = document.getElementById("verify");
    if (!button) return;
    const out = document.getElementById("verify-result");
    button.addEventListener("click", async () => {
      out.replaceChildren(window.casinoPage.h("p", {}, gettext("Recomputing…")));
      const dealt = JSON.parse(document.getElementById("dealt-data").textContent);
      const reshuffles = JSON.parse(document.getElementById("reshuffle-data").textContent);
      const verdict = await verifyDeal({
        serverSeed: seeds.server_seed,
        commitment: seeds.commitment,
        clientSeed: seeds.client_seed,
        nonce: seeds.nonce,
        jokers,
        dealt,
        reshuffles,
      });
      out.replaceChildren(...verdictView(verdict, dealt));
    });
    // The page renders the button disabled, so it cannot be clicked before it does anything.
    button.disabled = false;
  }

  window.casinoFairness = { canonicalDeck, commitment, deckOrder, verifyDeal, wireVerifyButton };
})();
