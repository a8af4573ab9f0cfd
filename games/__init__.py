"""Game tables and rounds: one package per game, what they share beneath them (``tables``,
``peer``), the registry that names them and the pages above them; the rules live in
``games.engine``."""
