"""The admin in Russian, as a superuser reads it: every model our apps register, its list (the
columns' headers and the filters' titles) and one row's page (the fields' labels, the headings
and columns of the rows listed under it), and the form that adds one where the admin adds. A
word in the Latin alphabet there is a field, column, filter or inline someone forgot to name in
the user's language (Django's own words come from its catalogue). Third-party apps' pages (the
background tasks', the history of changes) are not ours and are not read."""

from __future__ import annotations

from decimal import Decimal
from html.parser import HTMLParser

import pytest
from django.contrib import admin
from django.db.models import Model
from django.urls import reverse
from django.utils import timezone

from games.joker_draw.corrections import propose_correction
from games.joker_draw.rtp_monitor import observe_rtp
from payouts.models import LedgerTransaction, TransactionKind
from payouts.protection import conduct, limits
from payouts.protection.models import ExclusionKind, LimitKind
from payouts.reconciliation import record_report
from payouts.services import propose_house_reversal
from tests.fixtures.latin_words import latin_words, names_made
from tests.fixtures.users import logged_in
from tests.fixtures.world import World

OUR_APPS = {"casino", "games", "payouts", "payouts.protection"}
# The joker draw's side bet, named in Latin letters in the Russian catalogue as in its source.
SIDE_BET = "BONUS"
# The parts of an admin page that name things rather than show them: the list's and the
# inlines' column headers, the fields' labels, the filters' titles, the inlines' and fieldsets'
# headings (a page's subtitle is the record itself, as its model words it).
HEADINGS = {"th", "label", "summary", "h2"}
HEADING_CLASSES = {"inline-heading", "fieldset-heading"}


class Headings(HTMLParser):
    """The text of the column headers (a `<th>` in a `<thead>`; a row's own `<th>` is its
    record), labels, filter titles and the inlines' and fieldsets' headings of an admin page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.open: list[str] = []
        self.in_thead = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "thead":
            self.in_thead += 1
        if tag == "th" and not self.in_thead:
            return
        if tag == "h2" and not HEADING_CLASSES & set((dict(attrs).get("class") or "").split()):
            return
        if tag in HEADINGS:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "thead":
            self.in_thead -= 1
        if self.open and self.open[-1] == tag:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if self.open:
            self.texts.append(data)


def headings(html: str) -> str:
    parser = Headings()
    parser.feed(html)
    parser.close()
    return "\n".join(f"<p>{text}</p>" for text in parser.texts if text.strip())


def our_admins() -> list[tuple[type[Model], admin.ModelAdmin]]:
    return [
        (model, model_admin)
        for model, model_admin in admin.site._registry.items()
        if model._meta.app_config.name in OUR_APPS
    ]


def admin_pages(model: type[Model], model_admin: admin.ModelAdmin, request) -> list[str]:
    info = (model._meta.app_label, model._meta.model_name)
    pages = [reverse("admin:{}_{}_changelist".format(*info))]
    row = model._default_manager.order_by("pk").first()
    if row is not None:
        pages.append(reverse("admin:{}_{}_change".format(*info), args=[row.pk]))
    if model_admin.has_add_permission(request):
        pages.append(reverse("admin:{}_{}_add".format(*info)))
    return pages


def more_rows(world: World) -> None:
    """Rows the casino in play has not made yet: a player's limit with its change, another's
    time-out, a settlement correction, a proposed reversal of house funding, the tables' RTP
    observations and a night's ledger check."""
    limits.set_limit(
        player=world.player, kind=LimitKind.DEPOSIT_DAY, currency="USD", value=Decimal("100.00")
    )
    shortest, _longest = conduct.exclusion_range(ExclusionKind.TIME_OUT, timezone.now())
    conduct.take_exclusion(player=world.other_player, kind=ExclusionKind.TIME_OUT, until=shortest)
    box = world.settled_round.box_settlements.values_list("box", flat=True)[0]
    propose_correction(
        world.settled_round, amounts={box: Decimal("0.10")}, reason="paid short", by=world.pit
    )
    funding = LedgerTransaction.objects.filter(kind=TransactionKind.HOUSE_FUNDING)[0]
    propose_house_reversal(funding, reason="funded twice", by=world.pit)
    observe_rtp()
    record_report()


@pytest.mark.django_db(transaction=False)
def test_the_admin_in_russian_names_every_column_filter_and_field_in_russian(
    world: World, rf
) -> None:
    more_rows(world)
    client = logged_in(world.admin_user)
    request = rf.get("/admin/")
    request.user = world.admin_user
    names = names_made(world) | {SIDE_BET}
    english, read = {}, 0
    for model, model_admin in our_admins():
        for page in admin_pages(model, model_admin, request):
            response = client.get(page, HTTP_ACCEPT_LANGUAGE="ru")
            assert response.status_code == 200, page
            assert response["Content-Language"] == "ru"
            words = latin_words(headings(response.content.decode()), names)
            read += 1
            if words:
                english[page] = sorted(set(words))
    assert read >= 2 * len(our_admins()), "every list and most of their rows were read"
    assert not english, "\n".join(f"{page}: {words}" for page, words in english.items())


def test_the_headings_are_the_headers_labels_and_filter_titles_not_the_rows():
    page = (
        "<table><thead><tr><th>Стол</th><th>Owner</th></tr></thead>"
        "<tbody><tr><th><a>alice limits v1</a></th><td>Balance</td></tr></tbody></table>"
        '<details data-filter-title="kind"><summary> По kind </summary><ul><li>Все</li></ul>'
        "</details><label>Created at:</label><h2>Joker USD limits v1</h2>"
        '<h2 class="inline-heading">Ledger entries</h2>'
    )
    found = ["Owner", "kind", "Created", "at", "Ledger", "entries"]
    assert latin_words(headings(page), set()) == found
