"""The history people read (games.tables.history): who, when, what changed (old -> new) and
why, for tables, limits, paytables and voids, built from the database triggers' records."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pghistory
import pytest

from games.joker_draw import services as joker_draw
from games.joker_draw.paytables import propose_paytable_version
from games.models import Game, Table, TableStatus
from games.tables import services as table_services
from games.tables.history import paytable_history, table_history
from games.tables.table_game import game_of
from games.tables.voids import void_round
from payouts.models import Paytable

D = Decimal


@pytest.fixture
def joker_round(joker_table, funded_player):
    """A joker draw round in play: one box of 0.30 waiting for its decision."""
    boxes = [joker_draw.BoxRequest(1, D("0.30"))]
    return joker_draw.open_round(player=funded_player, table=joker_table, boxes=boxes).round


def lines_of(entry):
    return {(c.label, c.old, c.new) for c in entry.changes}


@pytest.fixture
def stud_with_history(pit, pit2):
    table = table_services.create_table(
        name="Stud 9", game=Game.SEVEN_CARD_STUD, currency="USD", by=pit, reason="new pit"
    )
    values = dict(game_of(Game.SEVEN_CARD_STUD).default_limits)
    first = table_services.propose_limits(table=table, values=values, reason="opening", by=pit)
    table_services.approve_limits(first, by=pit2)
    bigger = {**values, "small_bet": D("6.00"), "big_bet": D("12.00")}
    table_services.propose_limits(table=table, values=bigger, reason="busy evening", by=pit2)
    table_services.set_table_status(table, status=TableStatus.OPEN, by=pit2, reason="shift start")
    return table


def test_a_tables_history_says_who_when_what_and_why(stud_with_history, pit, pit2):
    history = table_history(stud_with_history)
    assert [e.at for e in history] == sorted((e.at for e in history), reverse=True)
    # One test is one database transaction, so every change here has the same time: each is
    # found by what it is.
    entries = {(e.subject, e.action): e for e in history}
    assert {key: entry.who for key, entry in entries.items()} == {
        ("table Stud 9", "open"): pit2.username,
        ("limits v2", "proposed"): pit2.username,
        ("limits v1", "approved"): pit2.username,
        ("limits v1", "proposed"): pit.username,
        ("table Stud 9", "created"): pit.username,
    }
    opened = entries["table Stud 9", "open"]
    proposed = entries["limits v2", "proposed"]
    approved = entries["limits v1", "approved"]
    created = entries["table Stud 9", "created"]
    assert opened.reason == "shift start"
    assert lines_of(opened) == {("status", "closed", "open")}
    # A proposal reads against the version before it: only what it changes.
    assert proposed.reason == "busy evening"
    assert lines_of(proposed) == {("small bet", "5.00", "6.00"), ("big bet", "10.00", "12.00")}
    assert ("status", "draft", "approved") in lines_of(approved)
    assert ("approved by", "—", pit2.username) in lines_of(approved)
    assert created.reason == "new pit"
    assert ("name", "—", "Stud 9") in lines_of(created)
    assert ("game", "—", "Seven-card stud") in lines_of(created)


def test_a_change_outside_any_service_shows_nobody(stud_with_history):
    with pghistory.context(reason="night fix"):
        Table.objects.filter(pk=stud_with_history.pk).update(name="Stud 10")
    renamed = next(e for e in table_history(stud_with_history) if e.action == "changed")
    assert (renamed.who, renamed.reason) == ("—", "night fix")
    assert lines_of(renamed) == {("name", "Stud 9", "Stud 10")}


def test_a_void_is_in_the_tables_history(joker_round, pit):
    void_round(joker_round, by=pit, reason="dealer error")
    entry = next(e for e in table_history(joker_round.table) if e.action == "voided")
    assert (entry.action, entry.who, entry.reason) == ("voided", pit.username, "dealer error")
    assert entry.subject == f"round {joker_round.pk}"


def test_a_paytables_history_shows_each_version_with_its_lines(default_paytables, pit):
    bet = default_paytables["bet"]
    propose_paytable_version(
        paytable=bet, lines={"pair": Fraction(2), "flush": Fraction(7, 2)}, reason="promo", by=pit
    )
    newest = next(e for e in paytable_history(bet) if e.subject == f"{bet.name} v2")
    assert (newest.action, newest.who, newest.reason) == ("proposed", pit.username, "promo")
    assert {("Pair", "—", "2:1"), ("Flush", "—", "7:2")} <= lines_of(newest)


def test_paytable_history_is_only_that_paytables(default_paytables):
    bonus = default_paytables["bonus"]
    assert all(e.subject.startswith(bonus.name) for e in paytable_history(bonus))
    assert Paytable.objects.count() == 2
