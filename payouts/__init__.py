"""Money: wallets, the double-entry ledger and paytables."""
