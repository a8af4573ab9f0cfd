"""The games the house plays: the one place that names them. Each is a package of its own
(``games.joker_draw``, ``games.stud``, ``games.drawmaha``) with a ``TableGame`` the shared code
finds by the game's code; a new game is a new package and one line here."""

from __future__ import annotations

from games.drawmaha.game import DRAWMAHA
from games.joker_draw.game import JOKER_DRAW
from games.stud.game import SEVEN_CARD_STUD
from games.tables.table_game import TableGame, register

GAMES: tuple[TableGame, ...] = (JOKER_DRAW, SEVEN_CARD_STUD, DRAWMAHA)

register(*GAMES)
