"""`python manage.py verify_backup FILE`: restore a backup on a throwaway database and prove it;
one summary line, or a refusal saying what is wrong and a non-zero exit."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from games.management.backups import (
    BackupRefused,
    project_schema,
    rounds_and_hands,
    verify_backup,
)


class Command(BaseCommand):
    help = (
        "Restore a backup written by `backup` on a throwaway database of this server (dropped "
        "afterwards), check its SHA-256, schema, ledger totals and counts against the manifest, "
        "run the ledger check and replay every settled round and hand."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, file: Path, **options: Any) -> None:
        try:
            verified = verify_backup(file)
        except BackupRefused as refused:
            raise CommandError(_("backup REFUSED: %(reason)s") % {"reason": refused}) from refused
        manifest = verified.manifest
        rounds, hands = rounds_and_hands(verified.replayed)
        self.stdout.write(
            _(
                "backup OK: %(taken_at)s, schema %(schema)s, %(rounds)s rounds and %(hands)s "
                "hands replayed, ledger balanced in %(currencies)s"
            )
            % {
                "taken_at": manifest["taken_at"],
                "schema": project_schema(manifest["schema"]),
                "rounds": f"{rounds:,}",
                "hands": f"{hands:,}",
                "currencies": ", ".join(sorted(manifest["ledger"])) or "-",
            }
        )
