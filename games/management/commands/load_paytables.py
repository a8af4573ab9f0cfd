"""`python manage.py load_paytables [FILE]`: propose the shipped default paytables as drafts.

Each paytable not yet in the database is created with version 1 as a draft; a second staff
member approves it in the admin, as for any paytable change (JD-14).
"""

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from games.joker_draw.paytables import propose_paytable_version
from payouts.models import Paytable

DEFAULT_FILE = Path(settings.BASE_DIR) / "fixtures" / "paytables.json"


def parse_odds(text: str) -> Fraction:
    """'2:3' -> Fraction(2, 3): pays 2 for every 3 staked."""
    numerator, denominator = text.split(":")
    return Fraction(int(numerator), int(denominator))


class Command(BaseCommand):
    help = "Create the paytables of a fixtures file that are missing, as draft version 1."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", nargs="?", default=str(DEFAULT_FILE))

    def handle(self, *args: Any, file: str, **options: Any) -> None:
        for spec in json.loads(Path(file).read_text())["paytables"]:
            paytable, created = Paytable.objects.get_or_create(
                name=spec["name"],
                defaults={"kind": spec["kind"], "description": spec["description"]},
            )
            if not created:
                continue
            propose_paytable_version(
                paytable=paytable,
                lines={category: parse_odds(odds) for category, odds in spec["lines"].items()},
                reason=f"shipped default from {Path(file).name}",
                by=None,
            )
            self.stdout.write(f"{paytable.name}: version 1 proposed, awaiting approval")
