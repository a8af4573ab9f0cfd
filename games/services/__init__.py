"""Game services: table configuration (tables) and the rounds of each game."""
