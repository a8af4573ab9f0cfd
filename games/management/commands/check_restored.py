"""`python manage.py check_restored`: what `verify_backup` needs of a restored database, as
JSON; it runs in a process of its own whose DATABASE_URL names the restored copy."""

import json
from typing import Any

from django.core.management.base import BaseCommand

from games.management.backups import restored_checks


class Command(BaseCommand):
    help = (
        "Print as JSON the facts a backup's manifest states (schema, ledger totals, settled "
        "rounds and hands), the failed ledger checks and every settled round's replay, read "
        "from this database. verify_backup runs it against a restored copy."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(json.dumps(restored_checks()))
