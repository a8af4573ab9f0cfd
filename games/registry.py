"""The games the house plays: the one place that names them. Each is a package of its own
(``games.joker_draw``, ``games.stud``, ``games.drawmaha``) whose ``game.GAME`` tells the shared
code what it needs (``games.tables.table_game.TableGame``); a new game is a new package and one
line here."""

from __future__ import annotations

from games.drawmaha import game as drawmaha
from games.joker_draw import game as joker_draw
from games.stud import game as stud
from games.tables.table_game import TableGame, register

GAMES: tuple[TableGame, ...] = (
    joker_draw.GAME,
    stud.GAME,
    drawmaha.GAME,
)

register(*GAMES)
