"""Player protection: the limits players set on their own play, reality checks, time-outs and
self-exclusion. It knows the wallets and the ledger, and no game: the games ask it before they
take a stake."""
