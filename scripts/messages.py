#!/usr/bin/env python
"""The message catalogues in locale/, without GNU gettext (casino.catalogues).

scripts/messages.py update [EXTRA.po ...]   extract from the source into locale/*/LC_MESSAGES/
                                            *.po, keeping the translations; fill untranslated
                                            ones from the EXTRA PO files
scripts/messages.py compile                 write the .mo files Django reads (make install)
scripts/messages.py check                   list the messages missing or untranslated
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import django
from django.conf import settings

from casino import catalogues


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"update", "compile", "check"}:
        print(__doc__)
        return 2
    # Reading templates needs Django's template machinery, not the project's settings.
    settings.configure()
    django.setup()
    command, extra = argv[0], [Path(name) for name in argv[1:]]
    if command == "update":
        for catalogue, filled in catalogues.update(extra).items():
            print(f"{catalogue}: {filled} filled")
    elif command == "compile":
        for mo_file in catalogues.compile_all():
            print(f"compiled {mo_file.relative_to(catalogues.ROOT)}")
    else:
        found = [
            f"{language}/{domain}: {problem}"
            for language in catalogues.LANGUAGES
            for domain in catalogues.DOMAINS
            for problem in catalogues.problems(language, domain)
        ]
        print("\n".join(found) or "every message is translated")
        return 1 if found else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
