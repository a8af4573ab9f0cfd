"""The players' pages: sign-in, lobby, wallet, game recall and the web tables."""
