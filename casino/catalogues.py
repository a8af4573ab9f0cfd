"""The message catalogues in locale/, kept without GNU gettext: Babel extracts the messages
from the Python code, the templates (read as Django's makemessages reads them, through
`templatize`) and the pages' scripts, merges them into each language's PO files, keeping the
translations, and compiles the MO files Django reads. `scripts/messages.py` is its command
line; the i18n tests check the catalogues with the same extraction.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract, extract_javascript, extract_python
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE_DIR = ROOT / "locale"
LANGUAGES = ("ru", "sv")  # English is the source's own language
DOMAINS = ("django", "djangojs")
PYTHON_PACKAGES = ("casino", "games", "payouts")
TEMPLATE_DIRS = ("templates",)
SCRIPT_DIRS = ("games/static",)

# What marks a message in Python (django.utils.translation) and in the scripts (djangojs).
PYTHON_KEYWORDS: dict[str, Any] = {
    "_": None,
    "gettext": None,
    "gettext_lazy": None,
    "gettext_noop": None,
    "ngettext": (1, 2),
    "ngettext_lazy": (1, 2),
    "pgettext": ((1, "c"), 2),
    "pgettext_lazy": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
    "npgettext_lazy": ((1, "c"), 2, 3),
    # The engine's refusals: pure Python, translated where the games hand them to the API
    # (games.tables.rounds.engine_refusal); `rule_text` marks a template chosen beforehand.
    "RuleViolation": None,
    "rule_text": None,
}
SCRIPT_KEYWORDS: dict[str, Any] = {
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
}

HEADER_COMMENT = "# The casino back office's messages. Refresh with scripts/messages.py update."
Key = tuple[str, str | None]  # a message's id (the singular of a plural) and its context


def _files(folders: Iterable[str], suffix: str) -> Iterator[Path]:
    for folder in folders:
        for path in sorted((ROOT / folder).rglob(f"*{suffix}")):
            if "migrations" not in path.parts and "__pycache__" not in path.parts:
                yield path


def _template_as_python(path: Path) -> bytes:
    """A template as makemessages reads it: its translate tags as gettext calls (each on one
    line, so the lines are unindented for Python's tokenizer, keeping their numbers)."""
    from django.utils.translation.template import templatize

    code = templatize(path.read_text(encoding="utf-8"), origin=str(path))
    return "\n".join(line.lstrip() for line in code.splitlines()).encode()


def _sources(domain: str) -> Iterator[tuple[Path, Any, bytes, dict[str, Any]]]:
    if domain == "djangojs":
        for path in _files(SCRIPT_DIRS, ".js"):
            yield path, extract_javascript, path.read_bytes(), SCRIPT_KEYWORDS
        return
    for path in _files(PYTHON_PACKAGES, ".py"):
        yield path, extract_python, path.read_bytes(), PYTHON_KEYWORDS
    for path in _files(TEMPLATE_DIRS, ".html"):
        yield path, extract_python, _template_as_python(path), PYTHON_KEYWORDS


def extract_messages(domain: str) -> Catalog:
    """Every message the source marks for `domain`, with where it is used."""
    catalog = Catalog(domain=domain, project="Casino back office")
    for path, method, source, keywords in _sources(domain):
        where = str(path.relative_to(ROOT))
        for line, message, _comments, context in extract(
            method, io.BytesIO(source), keywords=keywords, options={"encoding": "utf-8"}
        ):
            catalog.add(message, locations=[(where, line)], context=context)
    return catalog


def po_path(language: str, domain: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"


def _read(path: Path, language: str, domain: str) -> Catalog:
    if not path.exists():
        return Catalog(locale=language, domain=domain, project="Casino back office")
    with path.open("rb") as file:
        return read_po(file, locale=language, domain=domain)


def _write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        write_po(file, catalog, width=100, ignore_obsolete=True, sort_output=True)


def _key(message: Any) -> Key:
    msgid = message.id[0] if isinstance(message.id, (tuple, list)) else message.id
    return msgid, message.context


def _translated(message: Any) -> bool:
    strings = message.string if isinstance(message.string, (tuple, list)) else [message.string]
    return bool(strings) and all(strings) and not message.fuzzy


def language_of(path: Path) -> str | None:
    """The language of an extra PO file: its header's, else its name's (`notes.ru.po`)."""
    with path.open("rb") as file:
        header = read_po(file).mime_headers
    language = dict(header).get("Language", "").strip()
    if language:
        return language
    suffixes = path.suffixes
    return suffixes[-2].lstrip(".") if len(suffixes) >= 2 else None


def fill(catalog: Catalog, extra: Iterable[Path]) -> int:
    """Fill the catalogue's untranslated or fuzzy messages from other PO files of its language;
    returns how many were filled. A translation already made is never replaced."""
    filled = 0
    for path in extra:
        if language_of(path) != str(catalog.locale):
            continue
        with path.open("rb") as file:
            source = read_po(file, locale=catalog.locale)
        for message in source:
            if not message.id or not _translated(message):
                continue
            target = catalog.get(message.id, context=message.context)
            if target is None or _translated(target):
                continue
            if isinstance(target.id, (tuple, list)) != isinstance(message.id, (tuple, list)):
                continue
            target.string = message.string
            target.flags.discard("fuzzy")
            filled += 1
    return filled


def update(extra: Iterable[Path] = ()) -> dict[str, int]:
    """Refresh every catalogue from the source: new messages added, gone ones dropped, the
    translations kept, then filled from `extra`. Returns the messages filled per catalogue
    ("ru/django": 3)."""
    extra = list(extra)
    filled = {}
    for domain in DOMAINS:
        template = extract_messages(domain)
        for language in LANGUAGES:
            path = po_path(language, domain)
            catalog = _read(path, language, domain)
            # A copy each: the update inserts the template's own messages, which the fill then
            # changes, so a shared template would hand one language's text to the next.
            catalog.update(
                copy.deepcopy(template),
                no_fuzzy_matching=True,
                update_header_comment=False,
                update_creation_date=False,
            )
            catalog.header_comment = HEADER_COMMENT
            catalog.fuzzy = False
            catalog.last_translator = catalog.language_team = "Casino back office"
            filled[f"{language}/{domain}"] = fill(catalog, extra)
            _write(catalog, path)
    return filled


def compile_all() -> list[Path]:
    """Write the MO file beside every PO file (fuzzy translations left out, as Django would)."""
    written = []
    for path in sorted(LOCALE_DIR.glob("*/LC_MESSAGES/*.po")):
        language = path.parent.parent.name
        with path.open("rb") as file:
            catalog = read_po(file, locale=language)
        with path.with_suffix(".mo").open("wb") as file:
            write_mo(file, catalog, use_fuzzy=False)
        written.append(path.with_suffix(".mo"))
    return written


def problems(language: str, domain: str) -> list[str]:
    """What the catalogue of `language` lacks for the source: a message missing, untranslated
    or fuzzy (named with where the source uses it)."""
    template = extract_messages(domain)
    catalog = _read(po_path(language, domain), language, domain)
    found = []
    for message in template:
        if not message.id:
            continue
        where = ", ".join(f"{file}:{line}" for file, line in message.locations[:2])
        translated = catalog.get(message.id, context=message.context)
        if translated is None:
            found.append(f"missing: {_key(message)!r} ({where})")
        elif not _translated(translated):
            found.append(f"untranslated or fuzzy: {_key(message)!r} ({where})")
    return found
