"""`python manage.py phh_replay FILE.phh`: play a hand history through the engine its ``variant``
names (F7S: seven-card stud, PDM: Drawmaha) with the cards it records and print its finishing
stacks as JSON."""

import json
import tomllib
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import drawmaha_phh, stud_phh
from games.engine.common import RuleViolation


class Command(BaseCommand):
    help = (
        "Replay a PHH hand history (variant F7S: stud, PDM: Drawmaha) through its engine; print "
        '{"finishing_stacks": [...]}, or the rule the first illegal action breaks.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, file: Path, **options: Any) -> None:
        try:
            text = file.read_text(encoding="utf-8")
            if tomllib.loads(text).get("variant") == drawmaha_phh.VARIANT:
                stacks = drawmaha_phh.replay(drawmaha_phh.loads(text)).finishing_stacks
            else:
                stacks = stud_phh.replay(stud_phh.loads(text)).finishing_stacks
        except OSError as error:
            raise CommandError(f"cannot read {file}: {error.strerror}") from None
        except RuleViolation as broken:
            raise CommandError(
                f"{file}: {broken.message} (rule {broken.rule}, field {broken.field})"
            ) from None
        except ValueError as error:  # not TOML, no known variant, or not a playable history
            raise CommandError(f"{file}: {error}") from None
        self.stdout.write(json.dumps({"finishing_stacks": list(stacks)}))
