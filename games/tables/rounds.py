"""What every game's round service shares: the refusal it raises, the limits it plays by, the
next hand number of a peer table, and the append to a round's history."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from casino.db import prepared_cursor
from casino.refusals import Kind, Refused
from games.engine.common import Amount, Event, RuleViolation, Seat
from games.models import Game, Round, RoundEvent, Table, TableLimits
from games.tables import live
from games.tables.hand_names import action_name
from payouts.models import CENT

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class RoundRefused(Refused):
    """A request the game refuses: the field, the rule broken (the refusal's code) and the
    kind of refusal."""

    def __init__(self, message: str, *, field: str, rule: str, kind: Kind = Kind.INVALID) -> None:
        super().__init__(message)
        self.message, self.field, self.rule, self.code, self.kind = message, field, rule, rule, kind

    def messages(self) -> dict[str, list[str]]:
        return {self.field: [f"{self.message.rstrip('.')} ({self.rule})."]}


def engine_refusal(violation: RuleViolation, seats: Sequence[int] = ()) -> RoundRefused:
    """The engine's refusal in the request's language. The engine knows no Django and speaks
    English; its templates are in the catalogues (the extraction reads `RuleViolation` and
    `rule_text`), and their facts are worded here for the reader: amounts as money, actions by
    their names, seats by the table's numbers (``seats`` maps the engine's seats to them)."""
    template = _(violation.template)
    facts = {name: _fact(value, seats) for name, value in violation.params.items()}
    message = template % facts if facts else template
    return RoundRefused(message, field=violation.field, rule=violation.rule)


def _fact(value: object, seats: Sequence[int]) -> object:
    if isinstance(value, Amount):
        return number_format(value * CENT, 2)  # the engine counts the currency's cents
    if isinstance(value, Seat):
        return seats[value] if seats else value
    if isinstance(value, StrEnum):
        return action_name(value)
    return value


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
            _("%(table)s is not a table of %(game)s.") % {"table": table, "game": Game(game).label},
            field="table",
            rule=rule,
        )


def no_limits(table: Table, *, rule: str) -> RoundRefused:
    """The refusal for a table that has no approved limits."""
    return RoundRefused(
        _("%(table)s has no approved limits.") % {"table": table},
        field="table",
        rule=rule,
        kind=Kind.CONFLICT,
    )


def next_nonce(table_id: int) -> int:
    """A peer table's next hand number, its nonce (FS-2). Read with the table locked, so no
    other hand is dealt at the table until this one's transaction ends: nonces stay unique and
    gapless. (A joker draw round's nonce is its seed pair's: `games.joker_draw.sql.take_nonce`.)"""
    with prepared_cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(max(nonce), 0) + 1 FROM games_round WHERE table_id = %s", [table_id]
        )
        return int(cursor.fetchone()[0])


def record(round_: Round, events: Sequence[Event], *, actor: User | None) -> None:
    """Append events to the round's history, and tell the table's watchers."""
    start = round_.history_length
    RoundEvent.objects.bulk_create(
        RoundEvent(round=round_, sequence=start + n, kind=event.kind, data=event.data, actor=actor)
        for n, event in enumerate(events)
    )
    round_.history_length = start + len(events)
    live.table_changed(round_.table_id)
