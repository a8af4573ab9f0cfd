"""`python manage.py gaming_day_report --date YYYY-MM-DD [--to YYYY-MM-DD] --format csv`: the
gaming-day report (games.tables.gaming_day), one row per table and gaming day."""

from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from casino.csv_export import csv_lines
from casino.gaming_day import FIRST_GAMING_DAY, LAST_GAMING_DAY
from games.tables import gaming_day


class Command(BaseCommand):
    help = (
        "Write the gaming-day report from the ledger: per table, game and currency and per "
        "gaming day, the rounds, handle, win, hold, theoretical win, rake and the hold's flag."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--date", required=True, help="The first gaming day, YYYY-MM-DD.")
        parser.add_argument("--to", help="The last gaming day, YYYY-MM-DD (default: --date).")
        parser.add_argument("--format", choices=["csv"], default="csv")

    def handle(self, *args: Any, **options: Any) -> None:
        first = _day(options["date"], "date")
        last = _day(options["to"], "to") if options["to"] else first
        if last < first:
            raise CommandError(f"--to {last} is before --date {first}.")
        rows = gaming_day.daily_rows(first, last)
        for line in csv_lines(gaming_day.CSV_COLUMNS, map(gaming_day.csv_row, rows)):
            self.stdout.write(line, ending="")


def _day(text: str, option: str) -> date:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"--{option} {text!r} is not a date YYYY-MM-DD.") from None
    if not FIRST_GAMING_DAY <= day <= LAST_GAMING_DAY:
        raise CommandError(
            f"--{option} {day} is no gaming day: from {FIRST_GAMING_DAY} to {LAST_GAMING_DAY}."
        )
    return day
