"""What every game's round service shares: the refusal it raises, the limits it plays by and
the next hand number of a peer table."""

from __future__ import annotations

from casino.db import prepared_cursor
from games.engine.common import RuleViolation
from games.models import Game, Table, TableLimits


class RoundRefused(RuleViolation):
    """A request the game refuses: the rule broken, and the HTTP status the API answers with."""

    def __init__(self, message: str, *, field: str, rule: str, status: int = 400) -> None:
        super().__init__(message, field=field, rule=rule)
        self.status = status


def limits_in_force(table: Table, *, game: str, rule: str) -> TableLimits:
    """The table's approved limits, if it is a table of `game` (refusals cite `rule`)."""
    check_game(table, game=game, rule=rule)
    limits = table.active_limits()
    if limits is None:
        raise no_limits(table, rule=rule)
    return limits


def check_game(table: Table, *, game: str, rule: str) -> None:
    """Refuse a table of another game."""
    if table.game != game:
        raise RoundRefused(
            f"{table} is not a table of {Game(game).label}.", field="table", rule=rule
        )


def no_limits(table: Table, *, rule: str) -> RoundRefused:
    """The refusal for a table that has no approved limits."""
    return RoundRefused(f"{table} has no approved limits.", field="table", rule=rule, status=409)


def next_nonce(table_id: int) -> int:
    """A peer table's next hand number, its nonce (FS-2). Read with the table locked, so no
    other hand is dealt at the table until this one's transaction ends: nonces stay unique and
    gapless. (A joker draw round's nonce is its seed pair's: `joker_draw_sql.take_nonce`.)"""
    with prepared_cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(max(nonce), 0) + 1 FROM games_round WHERE table_id = %s", [table_id]
        )
        return int(cursor.fetchone()[0])
