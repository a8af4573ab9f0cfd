"""`python manage.py replay_round ID`: recompute a round from its revealed seed and decisions."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.models import Round
from games.tables.replay import replay_round


class Command(BaseCommand):
    help = (
        "Replay a settled joker draw round or stud hand and report whether every card and "
        "amount matches."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("round_id", type=int)

    def handle(self, *args: Any, round_id: int, **options: Any) -> None:
        round_ = Round.objects.select_related("table").filter(pk=round_id).first()
        if round_ is None:
            raise CommandError(f"There is no round {round_id}.")
        report = replay_round(round_)
        self.stdout.write(f"round {round_id} ({round_}): {report.events_checked} events checked")
        for correction in report.corrections:
            self.stdout.write(f"CORRECTED {correction}")
        for mismatch in report.mismatches:
            self.stdout.write(f"MISMATCH {mismatch}")
        if not report.ok:
            raise CommandError("replay FAILED")
        self.stdout.write(self.style.SUCCESS("replay matches: every card and every amount"))
