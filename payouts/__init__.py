"""Money: wallets, the double-entry ledger, the cage and idempotent requests. It knows no game:
the games register the checks of their sub-ledgers with it (``payouts.selectors``)."""
