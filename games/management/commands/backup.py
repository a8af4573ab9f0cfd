"""`python manage.py backup FILE`: a dump of the database with PostgreSQL's own pg_dump and a
manifest of the data it holds, both from one snapshot, in one file."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from games.management.backups import BackupRefused, rounds_and_hands, take_backup


class Command(BaseCommand):
    help = (
        "Write a backup to FILE: pg_dump's custom format and a manifest (time, schema, ledger "
        "totals per currency, settled rounds and hands, the dump's SHA-256), taken in one "
        "snapshot. Prove it restores with verify_backup."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, file: Path, **options: Any) -> None:
        try:
            manifest = take_backup(file)
        except BackupRefused as refused:
            raise CommandError(str(refused)) from refused
        rounds, hands = rounds_and_hands(manifest["settled"])
        self.stdout.write(
            _(
                "backup written to %(file)s: %(taken_at)s, %(rounds)s settled rounds and "
                "%(hands)s hands, %(bytes)s bytes of dump"
            )
            % {
                "file": file,
                "taken_at": manifest["taken_at"],
                "rounds": f"{rounds:,}",
                "hands": f"{hands:,}",
                "bytes": f"{manifest['dump']['bytes']:,}",
            }
        )
