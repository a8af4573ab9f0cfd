"""Every message the source marks is translated in the Russian and Swedish catalogues (the
same extraction as scripts/messages.py), and the script refreshes catalogues without losing a
translation and fills them from other PO files of their language."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po, write_po

from casino import catalogues


@pytest.mark.parametrize("domain", catalogues.DOMAINS)
@pytest.mark.parametrize("language", catalogues.LANGUAGES)
def test_every_marked_message_is_translated(language, domain):
    missing = catalogues.problems(language, domain)
    assert not missing, "\n".join(missing)


def test_the_extraction_reads_python_templates_and_scripts():
    python_and_templates = catalogues.extract_messages("django")
    scripts = catalogues.extract_messages("djangojs")
    assert python_and_templates.get("No such round.") is not None  # games.joker_draw
    assert python_and_templates.get("Change language") is not None  # templates/base.html
    assert python_and_templates.get("Open", context="table status") is not None  # pgettext
    plural = python_and_templates.get("This table allows %(allowed)s box per round.")
    assert plural is not None
    assert plural.id[1] == "This table allows %(allowed)s boxes per round."
    assert scripts.get("Recomputing…") is not None  # games/static/play/verify.js
    assert scripts.get("No such round.") is None


def test_russian_has_three_plural_forms_and_swedish_two():
    for language, forms in (("ru", 3), ("sv", 2)):
        with catalogues.po_path(language, "django").open("rb") as file:
            catalog = read_po(file)
        assert catalog.num_plurals == forms
        plural = catalog.get("This table allows %(allowed)s box per round.")
        assert len(plural.string) == forms
        assert all(plural.string)


@pytest.fixture
def scratch_locale(tmp_path, monkeypatch) -> Path:
    """The catalogues copied to a folder of the test's own, where the script writes."""
    for language in catalogues.LANGUAGES:
        for domain in catalogues.DOMAINS:
            source = catalogues.po_path(language, domain)
            target = tmp_path / language / "LC_MESSAGES" / source.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    monkeypatch.setattr(catalogues, "LOCALE_DIR", tmp_path)
    return tmp_path


def write_entries(path: Path, entries: dict[str, str], language: str | None = None) -> Path:
    catalog = Catalog(locale=language)
    for msgid, msgstr in entries.items():
        catalog.add(msgid, msgstr)
    with path.open("wb") as file:
        write_po(file, catalog, omit_header=language is None)
    return path


def test_update_keeps_translations_drops_gone_messages_and_fills_from_its_language(
    scratch_locale, tmp_path, monkeypatch
):
    ru_path = catalogues.po_path("ru", "django")
    with ru_path.open("rb") as file:
        catalog = read_po(file)
    kept = catalog.get("Lobby").string
    catalog.add("A message the source no longer has", "Сообщение")
    catalog.get("No such hand.").string = ""  # as if it were new
    with ru_path.open("wb") as file:
        write_po(file, catalog)

    extra = [
        write_entries(
            tmp_path / "helper.ru.po", {"No such hand.": "Нет такой раздачи (из файла)."}
        ),
        write_entries(tmp_path / "helper.sv.po", {"No such hand.": "Ingen sådan hand (fil)."}),
        # A translation already made is not replaced by a helper's.
        write_entries(tmp_path / "other.po", {"Lobby": "Другое лобби"}, language="ru"),
    ]
    filled = catalogues.update(extra)

    with ru_path.open("rb") as file:
        updated = read_po(file)
    assert updated.get("Lobby").string == kept
    assert updated.get("A message the source no longer has") is None
    assert updated.get("No such hand.").string == "Нет такой раздачи (из файла)."
    # The Swedish helper had nothing to fill: Swedish has that message translated already.
    assert filled == {"ru/django": 1, "sv/django": 0, "ru/djangojs": 0, "sv/djangojs": 0}
    with catalogues.po_path("sv", "django").open("rb") as file:
        swedish = read_po(file)
    assert swedish.get("No such hand.").string == "Det finns ingen sådan hand."


def test_compile_writes_what_django_reads_leaving_out_fuzzy_translations(scratch_locale):
    ru_path = catalogues.po_path("ru", "django")
    with ru_path.open("rb") as file:
        catalog = read_po(file)
    catalog.get("Lobby").flags.add("fuzzy")
    with ru_path.open("wb") as file:
        write_po(file, catalog)
    written = catalogues.compile_all()
    assert ru_path.with_suffix(".mo") in written
    with ru_path.with_suffix(".mo").open("rb") as file:
        compiled = read_mo(file)
    assert compiled.get("Wallet").string == "Кошелёк"
    assert compiled.get("Lobby") is None


def test_a_message_new_to_every_catalogue_gets_each_language_its_own_translation(
    scratch_locale, tmp_path
):
    """The update fills each language from its own file, even when the message is new to all."""
    for language in catalogues.LANGUAGES:
        path = catalogues.po_path(language, "django")
        with path.open("rb") as file:
            catalog = read_po(file)
        catalog.delete("No such hand.")
        with path.open("wb") as file:
            write_po(file, catalog)
    extra = [
        write_entries(tmp_path / "new.ru.po", {"No such hand.": "Нет такой раздачи."}),
        write_entries(tmp_path / "new.sv.po", {"No such hand.": "Ingen sådan hand."}),
    ]

    catalogues.update(extra)

    for language, expected in (("ru", "Нет такой раздачи."), ("sv", "Ingen sådan hand.")):
        with catalogues.po_path(language, "django").open("rb") as file:
            assert read_po(file).get("No such hand.").string == expected
