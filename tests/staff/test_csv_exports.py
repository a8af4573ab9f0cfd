"""Every CSV export of the product is safe to open in a spreadsheet: text that a spreadsheet
would read as a formula (a table named `=HYPERLINK(...)`, a player named with a leading tab)
is written as text, and amounts such as -0.30 stay numbers."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from casino.csv_export import cell
from casino.roles import PLAYER
from games.joker_draw import services as joker_draw
from games.models import BoxSettlement, Game, TableStatus
from games.tables import services as table_services
from payouts.models import Account, LedgerEntry
from payouts.services import deposit
from tests.fixtures.tables import joker_draw_limits
from tests.fixtures.users import make_user

HOSTILE_TABLES = ['=HYPERLINK("http://evil.example/","open me")', "+1", "-2+3", "@SUM(A1:A9)"]
HOSTILE_PLAYER = "\tmallory"


def csv_export_urls() -> list[str]:
    """Every URL of the product that serves a CSV file (named `*.csv`), found in the URL map."""

    def walk(patterns: list, prefix: str) -> list[str]:
        found = []
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                found += walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern) and route.endswith(".csv"):
                found.append("/" + route)
        return found

    return walk(get_resolver().url_patterns, "")


@pytest.fixture
def hostile_boxes(joker_table, default_paytables, pit, pit2) -> User:
    """A player named with a leading tab folds one box of 0.30 at each table with a name that
    is a formula."""
    mallory = make_user(HOSTILE_PLAYER, PLAYER)  # no username validation on this path
    deposit(player=mallory, currency="USD", amount=Decimal("10.00"), reason="cash", by=pit)
    for name in HOSTILE_TABLES:
        table = table_services.create_table(
            name=name, game=Game.JOKER_DRAW, currency="USD", by=pit, reason="test"
        )
        limits = table_services.propose_limits(
            table=table, values=joker_draw_limits(default_paytables), reason="test", by=pit
        )
        table_services.approve_limits(limits, by=pit2)
        table_services.set_table_status(table, status=TableStatus.OPEN, by=pit2, reason="test")
        round_ = joker_draw.open_round(
            player=mallory, table=table, boxes=[joker_draw.BoxRequest(1, Decimal("0.30"))]
        ).round
        joker_draw.act(player=mallory, round_id=round_.pk, box=1, action="fold")
    return mallory


# What each export holds of the hostile names (the tables', the player's) and whether it
# holds the folds' -0.30; a new export says here what it must show, or the test fails.
HOLDS = {
    "/staff/payouts.csv": ({"tables", "player"}, True),
    "/staff/payouts/rounds.csv": ({"tables", "player"}, False),
    "/staff/gaming-day.csv": ({"tables"}, False),
    "/staff/ledger/accounts.csv": ({"player"}, False),
    "/staff/ledger/trial-balance.csv": (set(), False),
    # Each entry's reason names its round, and the round its table.
    "/staff/ledger/accounts/<int:pk>.csv": ({"tables"}, True),
    "/staff/ledger/transactions/<int:pk>.csv": ({"player"}, True),
    # A player's statement names the player on every row.
    "/staff/players/<int:pk>/statement.csv": ({"player"}, False),
    # Pairs of players at the peer tables: the joker draw's boxes make none.
    "/staff/fair-play.csv": (set(), False),
}


def test_the_product_has_csv_exports():
    assert "/staff/payouts.csv" in csv_export_urls()
    assert set(csv_export_urls()) == set(HOLDS)


def sample_url(url: str, player: User) -> str:
    """The export's address, an account's and a transaction's those of the player's wallet, a
    player's the player's."""
    wallet = Account.objects.get(owner=player, currency="USD")
    stake = LedgerEntry.objects.filter(account=wallet, amount__lt=0).order_by("id").last()
    assert stake is not None
    return (
        url.replace("accounts/<int:pk>", f"accounts/{wallet.pk}")
        .replace("transactions/<int:pk>", f"transactions/{stake.transaction_id}")
        .replace("players/<int:pk>", f"players/{player.pk}")
    )


@pytest.mark.parametrize("url", csv_export_urls())
def test_no_text_in_a_csv_export_is_a_formula_and_amounts_stay_numbers(url, hostile_boxes, auditor):
    client = Client()
    client.force_login(auditor)
    response = client.get(sample_url(url, hostile_boxes))
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode()
    rows = list(csv.reader(io.StringIO(body)))
    cells = [value for row in rows[1:] for value in row]
    holds, negative_amounts = HOLDS[url]
    if "tables" in holds:
        for name in HOSTILE_TABLES:
            assert any(value.startswith(f"'{name}") for value in cells), name
            assert not any(value.startswith(name) for value in cells), name
    if "player" in holds:
        assert f"'{HOSTILE_PLAYER}" in cells
        assert HOSTILE_PLAYER not in cells
    if negative_amounts:
        assert "-0.30" in cells  # each fold lost its ante: a number, as it is
    starts = {value[:1] for value in cells if value}
    assert not starts & {"=", "+", "@", "\t", "\r"}
    negative = [value for value in cells if value.startswith("-")]
    assert all(Decimal(value) < 0 for value in negative)
    assert BoxSettlement.objects.filter(player=hostile_boxes).count() == len(HOSTILE_TABLES)


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-2+3", "'-2+3"),
        ("-0.30", "'-0.30"),  # text that looks like a number is still text
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tname", "'\tname"),
        ("\rname", "'\rname"),
        ("Joker 1", "Joker 1"),
        ("a=b", "a=b"),
        (Decimal("-0.30"), "-0.30"),
        (Decimal("1E+2"), "100"),
        (-7, "-7"),
        (None, ""),
    ],
)
def test_a_cell_is_a_number_or_text_that_is_no_formula(value, written):
    assert cell(value) == written
