"""The main pages, signed in as each role, in Russian: a word in the Latin alphabet on a page
is a message someone forgot to mark (in a template or in the Python code behind it), unless it
is a name the test made or a code that reads the same in every language. What a page shows in
`<code>` is the record as stored (an event's kind and JSON facts, a transaction's reference, a
seed): data programs and auditors read as it is, in no language."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.test import Client

from tests.fixtures.latin_words import latin_words, names_made
from tests.fixtures.users import logged_in

# (viewer, page, status): the lobby, wallet, recall and tables of a player, the staff screens
# of the pit and the auditors, the admin, and the error pages.
PAGES = [
    (None, "/", 200),
    (None, "/accounts/login/", 200),
    ("player", "/play/", 200),
    ("player", "/play/wallet/", 200),
    ("player", "/play/recall/", 200),
    ("player", "/play/breaks/", 200),
    ("player", "/play/joker-draw/{joker_table}/", 200),
    ("player", "/play/stud/{stud_table}/", 200),
    ("player", "/play/drawmaha/{drawmaha_table}/", 200),
    ("other_player", "/play/recall/joker-draw/{settled_round}/", 200),
    ("player", "/play/statement/", 200),
    ("player", "/play/statement/?from=2026-13-01", 400),
    ("pit", "/staff/", 200),
    ("pit", "/staff/limits/", 200),
    ("pit", "/staff/paytables/", 200),
    ("auditor", "/staff/payouts/", 200),
    ("auditor", "/staff/ledger/", 200),
    ("auditor", "/staff/rtp/", 200),
    ("auditor", "/staff/rounds/{settled_round}/", 200),
    ("auditor", "/staff/players/", 200),
    ("pit", "/staff/players/{player}/", 200),
    ("admin_user", "/admin/", 200),
    ("player", "/no-such-page/", 404),
    ("player", "/staff/payouts/", 403),
]


@pytest.mark.parametrize(("viewer", "page", "status"), PAGES, ids=[f"{v}:{p}" for v, p, _ in PAGES])
def test_a_page_in_russian_shows_no_english_word(world, viewer, page, status):
    client = Client() if viewer is None else logged_in(getattr(world, viewer))
    url = page.format(
        joker_table=world.joker_table.pk,
        stud_table=world.stud_table.pk,
        drawmaha_table=world.drawmaha_table.pk,
        settled_round=world.settled_round.pk,
        player=world.player.pk,
    )
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="ru")
    assert response.status_code == status
    assert response["Content-Language"] == "ru"
    words = latin_words(response.content.decode(), names_made(world))
    assert not words, f"{url} in Russian shows: {sorted(set(words))}"


def test_the_check_finds_english_and_passes_names_and_codes():
    names = {"alice", "Joker", "Table"}
    assert latin_words("<p>Лобби</p><p>Balance</p>", names) == ["Balance"]
    assert latin_words("<p>alice: As Td JK, 12.30 USD (JD-2), 9f86d081884c7d65</p>", names) == []
    assert latin_words('<button aria-label="Close">×</button>', names) == ["Close"]
    assert latin_words("<script>var words = 1;</script>", names) == []
    assert latin_words('<td><code>{"hand": "Pair"}</code> Balance</td>', names) == ["Balance"]


class NumberInputs(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.numbers: list[tuple[str, str, str]] = []  # (input, attribute, value)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        fields = dict(attrs)
        if tag == "input" and fields.get("type") == "number":
            for name in ("min", "max", "step", "value"):
                if fields.get(name):
                    self.numbers.append((fields.get("name") or "", name, fields[name] or ""))


@pytest.mark.parametrize(
    "page", ["/play/joker-draw/{joker_table}/", "/play/stud/{stud_table}/"], ids=["joker", "stud"]
)
def test_number_fields_hold_numbers_the_browser_reads_in_every_language(world, page):
    """A number field takes "0.30" in every language: a localised "0,30" is no number to the
    browser, which then shows the field empty and sends nothing (`|unlocalize` keeps it)."""
    url = page.format(joker_table=world.joker_table.pk, stud_table=world.stud_table.pk)
    parser = NumberInputs()
    parser.feed(logged_in(world.player).get(url, HTTP_ACCEPT_LANGUAGE="ru").content.decode())
    assert parser.numbers, "the page has its stake fields"
    unreadable = [field for field in parser.numbers if not re.fullmatch(r"-?\d+(\.\d+)?", field[2])]
    assert not unreadable, f"{url} in Russian: {unreadable}"
