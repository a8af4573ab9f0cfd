"""`python manage.py phh_replay FILE.phh`: play a seven-card stud (F7S) hand history through the
stud engine with the cards it records and print its finishing stacks as JSON."""

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import phh
from games.engine.common import RuleViolation


class Command(BaseCommand):
    help = (
        "Replay a PHH hand history (variant F7S) through the stud engine; print "
        '{"finishing_stacks": [...]}, or the rule the first illegal action breaks.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, file: Path, **options: Any) -> None:
        try:
            hand = phh.loads(file.read_text(encoding="utf-8"))
            stacks = phh.replay(hand).finishing_stacks
        except OSError as error:
            raise CommandError(f"cannot read {file}: {error.strerror}") from None
        except RuleViolation as broken:
            raise CommandError(
                f"{file}: {broken.message} (rule {broken.rule}, field {broken.field})"
            ) from None
        except ValueError as error:  # not TOML, not F7S, or not a playable history
            raise CommandError(f"{file}: {error}") from None
        self.stdout.write(json.dumps({"finishing_stacks": list(stacks)}))
