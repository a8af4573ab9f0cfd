"""`python manage.py best_play --paytable NAME --cards "Kh Kd 7c 4s 2d"`: the best decision for a
hand under a bet paytable, as JSON, with every option's expected value in antes.

``--after`` gives the cards the box held before its current five (what it discarded), for the
second decision (one exchange made) or, with ``--exchanges 2``, the third. ``--solve`` solves
the version's lines here when nobody has; ``--regret N`` measures the table's regret on N
decisions per stage and keeps it with the solution. Maintenance of the shipped data:
``--dealer-model FILE`` builds the dealer model, ``--ship`` writes the version's solution into
``fixtures/best_play/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import joker_draw_best as best
from games.engine.cards import parse_cards
from games.joker_draw import best_play, rtp_lab
from games.joker_draw.paytable_selectors import version_named
from payouts.models import PaytableKind, RtpRun


class Command(BaseCommand):
    help = (
        "The best decision for a joker draw hand under a bet paytable, with every option's value."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--paytable", help="the bet paytable's name")
        parser.add_argument("--paytable-version", type=int, help="its version (default: newest)")
        parser.add_argument("--cards", help='the box\'s five cards, e.g. "Kh Kd 7c 4s 2d"')
        parser.add_argument("--after", help="the cards the box discarded before these five")
        parser.add_argument("--exchanges", type=int, choices=(1, 2), help="exchanges made")
        parser.add_argument("--solve", action="store_true", help="solve the lines here if needed")
        parser.add_argument("--regret", type=int, help="measure the regret on N decisions a stage")
        parser.add_argument("--seed", type=int, default=1, help="seed of the regret's sample")
        parser.add_argument("--ship", action="store_true", help="write the shipped solution file")
        parser.add_argument("--ship-run", type=int, help="ship this finished best-play RTP run too")
        parser.add_argument("--dealer-model", help="build the dealer model into this file")
        parser.add_argument("--draws", type=int, default=8, help="the dealer model's draws")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["dealer_model"]:
            self._dealer_model(Path(options["dealer_model"]), options["draws"], options["seed"])
            return
        if not options["paytable"]:
            raise CommandError("--paytable: name the bet paytable")
        try:
            version = version_named(options["paytable"], options["paytable_version"])
        except ValueError as error:
            raise CommandError(str(error)) from error
        if version.paytable.kind != PaytableKind.BET:
            raise CommandError(f"--paytable: {version.paytable} is not a bet paytable")
        odds = version.odds()
        solution = best_play.solution_for(odds)
        if solution is None and options["solve"]:
            solution = best_play.solve_now(odds, rtp_lab.odds_text(odds))
        if solution is None:
            raise CommandError(
                f"--paytable: the best play of {version} is not solved yet; add --solve "
                "(or let the workers solve it: the RTP laboratory's best-play run does)"
            )
        regret = None
        if options["regret"]:
            regret = best_play.measure_regret(odds, options["regret"], options["seed"])
            self.stdout.write(json.dumps(regret, indent=2))
        if options["ship"]:
            path = best_play.shipped_file(solution.digest)
            path.write_bytes(solution.to_bytes())
            path_notes = best_play.shipped_notes(solution.digest)
            notes = json.loads(path_notes.read_text()) if path_notes.is_file() else {}
            notes["lines"] = rtp_lab.odds_text(odds)
            if regret is not None:
                notes["regret"] = regret
            if options["ship_run"]:
                run = RtpRun.objects.get(pk=options["ship_run"], strategy_name=rtp_lab.BEST)
                notes["priced_run"] = rtp_lab.export_run(run)
            best_play.shipped_notes(solution.digest).write_text(json.dumps(notes, indent=2))
            self.stdout.write(f"written: {path} and its notes")
        if options["cards"]:
            self.stdout.write(json.dumps(self._advice(solution, options)))

    def _advice(self, solution: best.Solution, options: dict[str, Any]) -> dict[str, object]:
        try:
            cards = parse_cards(options["cards"])
            after = parse_cards(options["after"]) if options["after"] else []
        except ValueError as error:
            raise CommandError(f"--cards/--after: {error}") from error
        exchanges = options["exchanges"] or (1 if after else 0)
        try:
            if exchanges:
                return best_play.later_advice(solution, cards, after, exchanges)
            return best_play.first_advice(solution, cards)
        except ValueError as error:
            raise CommandError(f"--cards: {error}") from error

    def _dealer_model(self, path: Path, draws: int, seed: int) -> None:
        pool = best.dealer_pool(draws, seed)
        model = best.build_dealer_model(pool, seed)
        path.write_bytes(model.to_bytes())
        self.stdout.write(f"written: {path} ({model.entries:,} dealer outcomes, seed {seed})")
