"""The statements of the joker draw hot path, written out.

Every round at every table sends these, so each does in one round trip what the ORM would do
in several, and none is compiled per call. They read and write the same rows as the models
(`games.models`); the service (`games.joker_draw.services`) decides what they write.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.utils import timezone

from casino.db import prepared_cursor
from games.engine import joker_draw
from games.models import BoxSettlement, Round, SeedPair, Table
from payouts.approvals import ChangeStatus
from payouts.models import PaytableVersion


@dataclass(frozen=True)
class Opening:
    """A table locked for an opening, and the ids of the limits and paytables in force."""

    table: Table
    limits_id: int | None
    bet_version_id: int | None
    bonus_version_id: int | None


_LOCK_TABLE = """
SELECT t.name, t.game, t.currency, t.status, l.id,
       (SELECT v.id FROM payouts_paytableversion v
        WHERE v.paytable_id = l.bet_paytable_id AND v.status = 'approved'
        ORDER BY v.number DESC LIMIT 1),
       (SELECT v.id FROM payouts_paytableversion v
        WHERE v.paytable_id = l.bonus_paytable_id AND v.status = 'approved'
        ORDER BY v.number DESC LIMIT 1)
FROM games_table t
LEFT JOIN LATERAL (
    SELECT id, bet_paytable_id, bonus_paytable_id FROM games_tablelimits
    WHERE table_id = t.id AND status = 'approved'
    ORDER BY number DESC LIMIT 1
) l ON true
WHERE t.id = %s
FOR KEY SHARE OF t
"""


def lock_table(table_id: int) -> Opening | None:
    """Read the table and what is in force, with the lock the round's reference to the table
    takes anyway: openings at one table do not wait on each other, and closing the table waits
    for the openings under way (and they, once it is closed, see it closed)."""
    with prepared_cursor() as cursor:
        cursor.execute(_LOCK_TABLE, [table_id])
        row = cursor.fetchone()
    if row is None:
        return None
    return Opening(_table(table_id, *row[:4]), *row[4:])


@dataclass(frozen=True)
class Seeds:
    """What a round is shuffled with: the player's seed pair and the round's nonce under it."""

    pair_id: int
    server_seed: str
    commitment: str
    client_seed: str
    nonce: int


# The pair's row lock numbers the player's rounds (nonces gapless and unique per pair, FS-2);
# a new client seed, when the opening brings one, applies from this round on.
_TAKE_NONCE = """
UPDATE games_seedpair
SET next_nonce = next_nonce + 1, client_seed = COALESCE(%s, client_seed)
WHERE player_id = %s AND status = 'current'
RETURNING id, server_seed, commitment, client_seed, next_nonce - 1
"""


def take_nonce(player_id: int, client_seed: str | None) -> Seeds | None:
    """The player's current seed pair with the nonce of the round being opened; None if the
    player has no current pair (none yet, or it was rotated since this transaction began)."""
    with prepared_cursor() as cursor:
        cursor.execute(_TAKE_NONCE, [client_seed, player_id])
        row = cursor.fetchone()
    return None if row is None else Seeds(*row)


_INSERT_ROUND = """
WITH r AS (
    INSERT INTO games_round (
        table_id, nonce, seed_pair_id, player_id, status, commitment, server_seed, client_seed,
        engine_state, bet_paytable_version_id, bonus_paytable_version_id,
        decision_deadline, history_length, void_reason, created_at, house_hold
    )
    VALUES (%s, %s, %s, %s, %s, %s, '', %s, %s::jsonb, %s, %s, %s, %s, '', %s, %s)
    RETURNING id
), e AS (
    INSERT INTO games_roundevent (round_id, sequence, kind, data, actor_id, created_at)
    SELECT r.id, ev.sequence, ev.kind, ev.data, ev.actor_id, ev.created_at
    FROM r, jsonb_populate_recordset(NULL::games_roundevent, %s::jsonb) AS ev
)
SELECT id FROM r
"""


def insert_round(
    round_: Round, history: Sequence[joker_draw.Event], *, actor_id: int | None
) -> None:
    """Insert the round and its first events together; sets the round's id."""
    values = [
        round_.table_id,
        round_.nonce,
        round_.seed_pair_id,
        round_.player_id,
        round_.status,
        round_.commitment,
        round_.client_seed,
        json.dumps(round_.engine_state),
        round_.bet_paytable_version_id,
        round_.bonus_paytable_version_id,
        round_.decision_deadline,
        round_.history_length,
        round_.created_at,
        round_.house_hold,
        _event_rows(None, history, start=0, actor_id=actor_id, at=round_.created_at),
    ]
    with prepared_cursor() as cursor:
        cursor.execute(_INSERT_ROUND, values)
        round_.pk = cursor.fetchone()[0]
    round_._state.adding = False
    round_._state.db = connection.alias


_IS_OVERDUE = """
SELECT EXISTS (
    SELECT 1 FROM games_round
    WHERE id = %s AND status = 'deciding' AND decision_deadline <= %s
)
"""


def is_overdue(round_id: int, now: datetime) -> bool:
    """Whether the round is still being decided and its box to act is out of time at `now`:
    the timer asks it without a lock."""
    with prepared_cursor() as cursor:
        cursor.execute(_IS_OVERDUE, [round_id, now])
        return bool(cursor.fetchone()[0])


_ROUND_FIELDS = [field.attname for field in Round._meta.concrete_fields]

_PAIR_FIELDS = [field.attname for field in SeedPair._meta.concrete_fields]

_LOCK_ROUND = f"""
SELECT {", ".join(f"r.{name}" for name in _ROUND_FIELDS)},
       {", ".join(f"p.{name}" for name in _PAIR_FIELDS)},
       t.name, t.game, t.currency, t.status,
       (SELECT l.decision_timeout_seconds FROM games_tablelimits l
        WHERE l.table_id = r.table_id AND l.status = 'approved'
        ORDER BY l.number DESC LIMIT 1)
FROM games_round r JOIN games_table t ON t.id = r.table_id
LEFT JOIN games_seedpair p ON p.id = r.seed_pair_id
WHERE r.id = %s AND t.game = %s AND (%s::bigint IS NULL OR r.player_id = %s::bigint)
FOR NO KEY UPDATE OF r
"""  # noqa: S608 - the column names are the model's own


def lock_round(
    round_id: int, game: str, *, player_id: int | None = None
) -> tuple[Round, int | None] | None:
    """The round under lock (only if it is `player_id`'s, when given), with its table, its seed
    pair and its paytable versions, and the decision timeout of the table's limits in force
    (seconds); None if there is no such round."""
    with prepared_cursor() as cursor:
        cursor.execute(_LOCK_ROUND, [round_id, game, player_id, player_id])
        row = cursor.fetchone()
    if row is None:
        return None
    fields, pair_end = len(_ROUND_FIELDS), len(_ROUND_FIELDS) + len(_PAIR_FIELDS)
    round_ = Round.from_db(connection.alias, _ROUND_FIELDS, row[:fields])
    round_.engine_state = json.loads(round_.engine_state)  # jsonb arrives as text (Django)
    if round_.seed_pair_id is not None:
        round_.seed_pair = SeedPair.from_db(connection.alias, _PAIR_FIELDS, row[fields:pair_end])
    *table, timeout_seconds = row[pair_end:]
    round_.table = _table(round_.table_id, *table)
    # Approved versions are frozen: kept per process, with the names the response shows.
    for field in ("bet_paytable_version", "bonus_paytable_version"):
        pk = getattr(round_, f"{field}_id")
        if pk is not None:
            setattr(round_, field, paytable_version(pk))
    return round_, timeout_seconds


@functools.lru_cache(maxsize=256)
def paytable_version(pk: int) -> PaytableVersion:
    """An approved paytable version with its paytable, read once per process: approved versions
    are frozen by the database."""
    return PaytableVersion.objects.select_related("paytable").get(
        pk=pk, status=ChangeStatus.APPROVED
    )


def _table(table_id: int, name: str, game: str, currency: str, status: str) -> Table:
    """The table as far as a round needs it (read with the round's statement)."""
    return Table.from_db(
        connection.alias,
        ["id", "name", "game", "currency", "status"],
        [table_id, name, game, currency, status],
    )


_SETTLEMENT_FIELDS = [f for f in BoxSettlement._meta.concrete_fields if not f.primary_key]
_SETTLEMENT_COLUMNS = ", ".join(field.column for field in _SETTLEMENT_FIELDS)

# The events, then the box settlements, come as JSON arrays of rows.
_SAVE_ROUND = f"""
WITH e AS (
    INSERT INTO games_roundevent (round_id, sequence, kind, data, actor_id, created_at)
    SELECT round_id, sequence, kind, data, actor_id, created_at
    FROM jsonb_populate_recordset(NULL::games_roundevent, %s::jsonb)
), s AS (
    INSERT INTO games_boxsettlement ({_SETTLEMENT_COLUMNS})
    SELECT {_SETTLEMENT_COLUMNS}
    FROM jsonb_populate_recordset(NULL::games_boxsettlement, %s::jsonb)
)
UPDATE games_round
SET engine_state = %s::jsonb, history_length = %s, status = %s, settled_at = %s,
    decision_deadline = %s
WHERE id = %s
"""  # noqa: S608 - the column names are the model's own


def save_round(
    round_: Round,
    events: Sequence[joker_draw.Event],
    *,
    start: int,
    actor_id: int | None,
    settlements: Sequence[BoxSettlement] = (),
) -> None:
    """Append the events after the `start` already recorded, write the box settlements, and
    store the round's new state."""
    settled = [
        {field.attname: getattr(record, field.attname) for field in _SETTLEMENT_FIELDS}
        for record in settlements
    ]
    with prepared_cursor() as cursor:
        cursor.execute(
            _SAVE_ROUND,
            [
                _event_rows(round_.pk, events, start=start, actor_id=actor_id, at=timezone.now()),
                json.dumps(settled, default=str),  # amounts and times as PostgreSQL reads them
                json.dumps(round_.engine_state),
                round_.history_length,
                round_.status,
                round_.settled_at,
                round_.decision_deadline,
                round_.pk,
            ],
        )


def _event_rows(
    round_id: int | None,
    events: Sequence[joker_draw.Event],
    *,
    start: int,
    actor_id: int | None,
    at: datetime,
) -> str:
    return json.dumps(
        [
            {
                "round_id": round_id,
                "sequence": start + n,
                "kind": event.kind,
                "data": event.data,
                "actor_id": actor_id,
                "created_at": at.isoformat(),
            }
            for n, event in enumerate(events)
        ]
    )
