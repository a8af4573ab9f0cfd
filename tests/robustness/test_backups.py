"""Backups that restore: `backup` writes PostgreSQL's dump with a manifest of the data, taken in
one snapshot; `verify_backup` restores it on a throwaway database, proves the manifest, the
ledger and every settled round and hand, and refuses a damaged file with a clear message."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from casino.roles import PLAYER
from games.management import backups
from games.stud.tasks import STUD as stud
from payouts import services as money
from tests.fixtures.stud import play_passively
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import make_user
from tests.fixtures.workers import ROOT, worker_env

D = Decimal


def throwaway_databases() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT datname FROM pg_database WHERE starts_with(datname, %s)",
            [f"{connection.settings_dict['NAME'][:40]}_verify_"],
        )
        return [name for (name,) in cursor.fetchall()]


def take_backup(path: Path) -> Path:
    call_command("backup", str(path), stdout=StringIO())
    return path


def verify(path: Path) -> str:
    out = StringIO()
    call_command("verify_backup", str(path), stdout=out)
    return out.getvalue().strip()


def members(path: Path) -> tuple[dict, bytes]:
    with tarfile.open(path) as archive:
        manifest, dump = (archive.extractfile(name) for name in ("manifest.json", "casino.dump"))
        assert manifest
        assert dump
        return json.load(manifest), dump.read()


def rewrite(path: Path, manifest: dict, dump: bytes) -> None:
    with tarfile.open(path, "w") as archive:
        for name, body in (("manifest.json", json.dumps(manifest).encode()), ("casino.dump", dump)):
            member = tarfile.TarInfo(name)
            member.size = len(body)
            archive.addfile(member, io.BytesIO(body))


@pytest.mark.django_db(transaction=True)
def test_a_backup_restores_and_proves_itself(
    settled_boxes, pit, pit2, settings, tmp_path, monkeypatch
):
    """Eight settled joker draw rounds and two stud hands, and a deposit committed while the
    backup runs: the manifest and the dump both hold the data as of one snapshot, without it."""
    settings.STUD_HAND_PAUSE_SECONDS = 0
    table = make_stud_table(pit, pit2)
    for number, name in enumerate(("cal", "dee"), start=1):
        user = make_user(name, PLAYER)
        money.deposit(player=user, currency="USD", amount=D("100.00"), reason="cash", by=pit)
        stud.join(player=user, table=table, seat=number, buy_in=D("60.00"))
    play_passively(table, hands=2)
    late = make_user("eve", PLAYER)
    read_facts = backups.database_facts

    def facts_then_a_deposit_commits():
        facts = read_facts()

        def deposit() -> None:
            money.deposit(player=late, currency="USD", amount=D("7.00"), reason="late", by=pit)
            connection.close()

        with ThreadPoolExecutor(1) as other_connection:
            other_connection.submit(deposit).result()
        return facts

    monkeypatch.setattr(backups, "database_facts", facts_then_a_deposit_commits)
    backup = take_backup(tmp_path / "casino.backup")

    assert money.wallet(late, "USD").balance == D("7.00")
    manifest, dump = members(backup)
    assert manifest["settled"] == {"joker_draw": 8, "seven_card_stud": 2, "drawmaha": 0}
    assert manifest["schema"] == dict(MigrationLoader(connection).graph.leaf_nodes())
    usd = manifest["ledger"]["USD"]
    assert usd["debits"] == usd["credits"]
    assert usd["balances"]["total"] == "0.00"
    assert dump.startswith(b"PGDMP")  # pg_dump's custom format

    summary = verify(backup)
    assert summary.startswith(f"backup OK: {manifest['taken_at']}, schema ")
    assert "payouts.0" in summary
    assert summary.endswith("8 rounds and 2 hands replayed, ledger balanced in USD")
    assert "\n" not in summary
    assert throwaway_databases() == []


@pytest.mark.django_db(transaction=True)
def test_a_damaged_or_truncated_backup_is_refused(tmp_path):
    """A flipped byte, a file cut short, a dump pg_restore cannot read: each refused."""
    backup = take_backup(tmp_path / "casino.backup")
    with tarfile.open(backup) as archive:
        dump = archive.getmember("casino.dump")
    whole = backup.read_bytes()
    manifest, _ = members(backup)

    flipped = bytearray(whole)
    flipped[dump.offset_data + dump.size // 2] ^= 0x01
    backup.write_bytes(flipped)
    with pytest.raises(CommandError, match=r"The dump in .* is damaged: .* SHA-256"):
        verify(backup)

    # As an operator runs it: one line saying why, no traceback, a non-zero exit.
    backup.write_bytes(whole[: len(whole) // 2])
    refused = subprocess.run(  # noqa: S603 - this interpreter and the project's manage.py
        [sys.executable, "manage.py", "verify_backup", str(backup)],
        cwd=ROOT,
        env=worker_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode == 1
    assert "is not a readable backup (damaged or cut short)" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert refused.stdout == ""

    # A dump its manifest vouches for but pg_restore cannot read fails on the throwaway
    # database, which is dropped all the same.
    unreadable = b"PGDMP, but not a dump"
    manifest["dump"].update(bytes=len(unreadable), sha256=hashlib.sha256(unreadable).hexdigest())
    rewrite(backup, manifest, unreadable)
    with pytest.raises(CommandError, match="pg_restore failed: .*"):
        verify(backup)
    assert throwaway_databases() == []


@pytest.mark.django_db(transaction=True)
def test_a_manifest_that_does_not_state_the_data_is_refused(funded_player, tmp_path):
    backup = take_backup(tmp_path / "casino.backup")
    manifest, dump = members(backup)
    balances = manifest["ledger"]["USD"]["balances"]
    assert balances["player_wallet"] == "100.00"
    balances["player_wallet"] = "100.01"
    rewrite(backup, manifest, dump)

    with pytest.raises(CommandError) as refused:
        verify(backup)
    assert str(refused.value) == (
        "backup REFUSED: The restored data is not what the manifest states (ledger totals): "
        "USD balances player_wallet: 100.01 / 100.00"
    )
    assert throwaway_databases() == []


@pytest.mark.django_db(transaction=True)
def test_the_password_stays_off_command_lines_and_out_of_the_backup(tmp_path, monkeypatch):
    password = "pw-never-on-a-command-line"  # the test server trusts its socket: any will do
    monkeypatch.setitem(connection.settings_dict, "PASSWORD", password)
    run = subprocess.run
    started: list[tuple[list[str], dict[str, str]]] = []

    def recorded(arguments, **options):
        started.append((arguments, options["env"]))
        return run(arguments, **options)

    monkeypatch.setattr(backups.subprocess, "run", recorded)
    backup = take_backup(tmp_path / "casino.backup")

    ((arguments, env),) = started
    assert Path(arguments[0]).name == "pg_dump"
    assert not any(password in argument for argument in arguments)
    assert env["PGPASSWORD"] == password
    assert password.encode() not in backup.read_bytes()
