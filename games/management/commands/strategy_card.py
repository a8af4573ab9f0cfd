"""`python manage.py strategy_card --paytable NAME`: derive the strategy card of a bet paytable
from its solved best play, play the card and the best play on the same rounds, print both RTPs
and the difference's 99% interval, and with ``--ship`` write the card beside the shipped
solution (``fixtures/best_play/<digest>.card.json``), where the rules page reads it.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import joker_draw_card
from games.engine.joker_draw_rtp import strategy_to_table
from games.joker_draw import best_play, strategy_card
from games.joker_draw.paytable_selectors import version_named
from payouts.models import PaytableKind


class Command(BaseCommand):
    help = "Derive, measure and ship the strategy card of a joker draw bet paytable."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--paytable", required=True, help="the bet paytable's name")
        parser.add_argument("--paytable-version", type=int, help="its version (default: newest)")
        parser.add_argument("--rounds", type=int, default=1_000_000, help="rounds measured")
        parser.add_argument("--seed", type=int, default=27, help="seed of the measured rounds")
        parser.add_argument("--ship", action="store_true", help="write the card file")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            version = version_named(options["paytable"], options["paytable_version"])
        except ValueError as error:
            raise CommandError(str(error)) from error
        if version.paytable.kind != PaytableKind.BET:
            raise CommandError(f"--paytable: {version.paytable} is not a bet paytable")
        odds = version.odds()
        solution = best_play.solution_for(odds)
        if solution is None:
            raise CommandError(f"--paytable: the best play of {version} is not solved yet")
        card = joker_draw_card.derive_card(solution, odds, name=f"card of {version}")
        measured = joker_draw_card.compare(odds, card, solution, options["rounds"], options["seed"])
        report = {
            "rounds": measured.rounds,
            "seed": options["seed"],
            "card_rtp": measured.first_rtp,
            "best_rtp": measured.second_rtp,
            "difference": measured.difference,
            "difference_ci99": list(measured.difference_ci99),
        }
        table = strategy_to_table(card)
        self.stdout.write(json.dumps({"card": table, "measured": report}, indent=1))
        if options["ship"]:
            path = strategy_card.write_card(solution.digest, card, report, table)
            self.stdout.write(f"written: {path}")
