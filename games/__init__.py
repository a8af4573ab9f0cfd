"""Game tables and rounds: the Django side of the three games (the rules live in games.engine)."""
