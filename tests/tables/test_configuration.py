"""Tables, limits and paytables: every refused configuration names its field and rule, and a
change takes effect only when a second staff member approves it."""

from __future__ import annotations

import threading
import time
from decimal import Decimal
from fractions import Fraction

import pytest
from django.db import IntegrityError, ProgrammingError, connection, transaction

from games.joker_draw import rtp_lab
from games.joker_draw.paytables import (
    NoGameUnpayable,
    approve_paytable_version,
    propose_paytable_version,
)
from games.models import Game, TableStatus
from games.tables import services as table_services
from games.tables.table_game import game_of
from payouts import approvals
from payouts.approvals import ChangeRefused, ChangeStatus
from payouts.models import Paytable, PaytableKind, PaytableLine, PaytableVersion
from tests.fixtures.tables import joker_draw_limits

D = Decimal


def refusal(table, values, by) -> dict[str, str]:
    with pytest.raises(ChangeRefused) as refused:
        table_services.propose_limits(table=table, values=values, reason="test", by=by)
    return refused.value.errors


@pytest.fixture
def new_table(pit):
    def make(game: str):
        return table_services.create_table(
            name=f"new {game}", game=game, currency="USD", by=pit, reason="t"
        )

    return make


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"min_ante": D("0.50")}, "min_ante", "not a whole multiple of the ante step 0.30 (JD-2)"),
        ({"max_ante": D("12.10")}, "max_ante", "not a whole multiple of the ante step 0.30 (JD-2)"),
        ({"ante_step": D("0.25")}, "ante_step", "whole cent (JD-2, JD-11)"),
        (
            {"min_ante": D("1.20"), "max_ante": D("0.60")},
            "max_ante",
            "must not be below min_ante (JD-2)",
        ),
        (
            {"bonus_min": D("5.00"), "bonus_max": D("1.00")},
            "bonus_max",
            "must not be below bonus_min",
        ),
        ({"boxes_per_round": 4}, "boxes_per_round", "run the 53-card deck out of cards (JD-16)"),
        ({"boxes_per_round": 0}, "boxes_per_round", "(JD-16)"),
        ({"decision_timeout_seconds": 1}, "decision_timeout_seconds", "at least 5"),
        ({"min_ante": None}, "min_ante", "min_ante is required"),
        ({"small_bet": D("1.00")}, "small_bet", "not a limit of Joker draw poker"),
        ({"min_ante": D("-0.30")}, "min_ante", "above zero"),
    ],
)
def test_refused_joker_draw_limits(new_table, pit, default_paytables, changes, field, words):
    errors = refusal(
        new_table(Game.JOKER_DRAW), joker_draw_limits(default_paytables, **changes), pit
    )
    assert words in errors[field]


def test_joker_draw_paytables_must_be_of_their_kind(new_table, pit, default_paytables):
    values = joker_draw_limits(default_paytables, bet_paytable=default_paytables["bonus"])
    assert (
        "is not a Bet paytable (JD-14)"
        in refusal(new_table(Game.JOKER_DRAW), values, pit)["bet_paytable"]
    )


def test_a_paytable_version_that_would_pay_fractions_of_a_cent_at_a_table_is_refused(
    joker_table, pit, pit2
):
    """JD-2: at a table with antes in steps of 0.30, bets are multiples of 0.60; 3:5 pays 0.36
    on 0.60 (whole cents) but 1:7 does not divide, so approving it is refused. (The fine
    version pays a dealer without a game 1:3, so best play stays under 100%, JD-11a.)"""
    bet = joker_table.active_limits().bet_paytable
    fine = propose_paytable_version(
        paytable=bet,
        lines={"pair": Fraction(3, 5), "no_game": Fraction(1, 3)},
        reason="ok",
        by=pit,
    )
    rtp_lab.compute_now(fine, seed=1)
    approve_paytable_version(fine, by=pit2)
    odd = propose_paytable_version(
        paytable=bet, lines={"pair": Fraction(1, 7)}, reason="odd", by=pit
    )
    with pytest.raises(ChangeRefused) as refused:
        approve_paytable_version(odd, by=pit2)
    assert refused.value.errors["lines"] == (
        "At table Joker 1, a stake of 0.60 on the pair line at 1:7 "
        "would pay a fraction of a cent (JD-2)."
    )
    assert bet.active_version() == fine


def test_limits_naming_a_paytable_that_would_pay_fractions_of_a_cent_are_refused(
    new_table, pit, pit2, default_paytables, settings
):
    odd = propose_paytable_version(
        paytable=default_paytables["bonus"],
        lines={"straight": Fraction(1, 3)},
        reason="odd",
        by=pit,
    )
    settings.RTP_HOUSE_BAND_PERCENT = {"bet": ("0", "100"), "bonus": ("0", "100")}
    rtp_lab.compute_now(odd, seed=1)
    approve_paytable_version(odd, by=pit2)  # no table uses it yet
    errors = refusal(new_table(Game.JOKER_DRAW), joker_draw_limits(default_paytables), pit)
    assert errors["bonus_paytable"] == (
        "With these limits a stake of 0.31 on the straight line at 1:3 "
        "would pay a fraction of a cent (JD-2)."
    )


def test_a_no_game_line_paying_fractions_of_a_cent_is_refused_when_proposed(joker_table, pit):
    """JD-2, JD-11a: antes in steps of 0.30 make total antes of 0.30, 0.60, ...; 1:2 pays
    0.15 on 0.30, but 1:7 pays 0.0428..., so that line is refused before it is saved."""
    bet = joker_table.active_limits().bet_paytable
    lines = bet.active_version().odds()
    before = PaytableVersion.objects.count()
    with pytest.raises(NoGameUnpayable) as refused:
        propose_paytable_version(
            paytable=bet, lines={**lines, "no_game": Fraction(1, 7)}, reason="odd", by=pit
        )
    assert refused.value.code == "no_game_not_whole_cents"
    assert refused.value.errors == {
        "lines.no_game": "At table Joker 1, a total ante of 0.30 at the no-game odds 1:7 would "
        "pay a fraction of a cent (JD-2, JD-11a)."
    }
    assert PaytableVersion.objects.count() == before
    half = propose_paytable_version(
        paytable=bet, lines={**lines, "no_game": Fraction(1, 2)}, reason="half", by=pit
    )
    assert half.odds()["no_game"] == Fraction(1, 2)


def test_limits_under_which_the_no_game_line_pays_fractions_of_a_cent_are_refused(
    new_table, pit, pit2, default_paytables, settings
):
    """JD-2, JD-11a: a bet paytable whose no-game line is 1:7 may be approved while no table
    uses it, but no limits with antes in steps of 0.30 may name it; steps of 0.70 may."""
    lines = {**default_paytables["bet"].active_version().odds(), "no_game": Fraction(1, 7)}
    odd = Paytable.objects.create(name="sevenths", kind=PaytableKind.BET)
    version = propose_paytable_version(paytable=odd, lines=lines, reason="odd", by=pit)
    settings.RTP_HOUSE_BAND_PERCENT = {"bet": ("0", "100"), "bonus": ("0", "100")}
    rtp_lab.compute_now(version, seed=1)
    approve_paytable_version(version, by=pit2)
    table = new_table(Game.JOKER_DRAW)
    values = joker_draw_limits(default_paytables, bet_paytable=odd, bet_rtp_min_percent=D("1"))
    errors = refusal(table, values, pit)
    assert errors == {
        "ante_step": "With the ante step 0.30 a total ante of 0.30 at the no-game odds 1:7 would "
        "pay a fraction of a cent: the no-game payout on every legal total ante must be a whole "
        "cent (JD-2, JD-11); the bet paytable's no_game line sets its odds (JD-11a)."
    }
    sevens = {"min_ante": D("0.70"), "max_ante": D("7.00"), "ante_step": D("0.70")}
    limits = table_services.propose_limits(
        table=table, values={**values, **sevens}, reason="sevenths", by=pit
    )
    assert limits.ante_step == D("0.70")


def test_a_bonus_paytable_refuses_a_no_game_line(default_paytables, pit):  # JD-11a, JD-13
    bonus = default_paytables["bonus"]
    lines = {**bonus.active_version().odds(), "no_game": Fraction(1)}
    with pytest.raises(ChangeRefused) as refused:
        propose_paytable_version(paytable=bonus, lines=lines, reason="x", by=pit)
    assert "belongs to a bet paytable only" in refused.value.errors["lines.no_game"]
    assert "(JD-11a, JD-13)" in refused.value.errors["lines.no_game"]
    assert bonus.versions.count() == 1


@pytest.mark.parametrize(
    ("game", "changes", "field", "words"),
    [
        (
            Game.SEVEN_CARD_STUD,
            {"bring_in": D("5.00")},
            "bring_in",
            "less than the small bet (ST-1)",
        ),
        (
            Game.SEVEN_CARD_STUD,
            {"big_bet": D("2.00")},
            "big_bet",
            "not be below the small bet (ST-1)",
        ),
        (Game.SEVEN_CARD_STUD, {"seats": 9}, "seats", "2 to 8 (ST-1)"),
        (Game.SEVEN_CARD_STUD, {"seats": 1}, "seats", "2 to 8 (ST-1)"),
        (Game.SEVEN_CARD_STUD, {"rake_percent": D("101")}, "rake_percent", "0 to 100 (ST-13)"),
        (Game.SEVEN_CARD_STUD, {"buy_in_max": D("10.00")}, "buy_in_max", "not be below buy_in_min"),
        (
            Game.SEVEN_CARD_STUD,
            {"action_timeout_seconds": 2},
            "action_timeout_seconds",
            "at least 5",
        ),
        (
            Game.DRAWMAHA,
            {"big_blind": D("0.50")},
            "big_blind",
            "not be below the small blind (DM-1)",
        ),
        (Game.DRAWMAHA, {"seats": 8}, "seats", "2 to 7 (DM-1)"),
        (Game.DRAWMAHA, {"rake_percent": D("150")}, "rake_percent", "0 to 100 (DM-12)"),
        (Game.DRAWMAHA, {"buy_in_min": D("1.00")}, "buy_in_min", "at least one forced bet"),
        (Game.DRAWMAHA, {"draw_limit": None}, "draw_limit", "draw_limit is required"),
    ],
)
def test_refused_peer_game_limits(new_table, pit, game, changes, field, words):
    values = {**game_of(game).default_limits, **changes}
    assert words in refusal(new_table(game), values, pit)[field]


def test_limits_take_effect_only_when_another_staff_member_approves(new_table, pit, pit2):
    table = new_table(Game.SEVEN_CARD_STUD)
    draft = table_services.propose_limits(
        table=table,
        values=game_of(Game.SEVEN_CARD_STUD).default_limits,
        reason="first limits",
        by=pit,
    )
    assert table.active_limits() is None
    with pytest.raises(ChangeRefused) as refused:
        table_services.set_table_status(table, status=TableStatus.OPEN, by=pit2, reason="open")
    assert "limits are approved" in refused.value.errors["status"]
    with pytest.raises(ChangeRefused) as refused:
        table_services.approve_limits(draft, by=pit)
    assert "cannot approve it (separation of duties)" in refused.value.errors["approved_by"]
    table_services.approve_limits(draft, by=pit2)
    assert table.active_limits() == draft
    with pytest.raises(ChangeRefused, match="Only a draft"):
        table_services.approve_limits(draft, by=pit2)
    assert (
        table_services.set_table_status(
            table, status=TableStatus.OPEN, by=pit, reason="open"
        ).status
        == "open"
    )


def test_a_new_limits_version_replaces_the_old_one_which_stays_on_record(
    joker_table, pit, pit2, default_paytables
):
    old = joker_table.active_limits()
    new = table_services.propose_limits(
        table=joker_table,
        values=joker_draw_limits(default_paytables, max_ante=D("30.00")),
        reason="high limit evening",
        by=pit2,
    )
    table_services.approve_limits(new, by=pit)
    assert joker_table.active_limits().max_ante == D("30.00")
    assert (old.number, new.number) == (1, 2)
    with pytest.raises(ProgrammingError), transaction.atomic():
        type(old).objects.filter(pk=old.pk).update(max_ante=D("99.00"))


def test_paytable_versions_need_a_second_approver_and_freeze_once_approved(
    default_paytables, pit, pit2, settings
):
    bonus = default_paytables["bonus"]
    v1 = bonus.active_version()
    assert v1.number == 1
    assert v1.odds()["five_of_a_kind"] == Fraction(2000)
    draft = propose_paytable_version(
        paytable=bonus,
        lines={"straight": Fraction(30), "flush": Fraction(50)},
        reason="tighter",
        by=pit,
    )
    assert draft.status == ChangeStatus.DRAFT
    assert bonus.active_version() == v1
    with pytest.raises(ChangeRefused, match="separation of duties"):
        approve_paytable_version(draft, by=pit)
    settings.RTP_HOUSE_BAND_PERCENT = {"bet": ("0", "100"), "bonus": ("0", "100")}
    rtp_lab.compute_now(draft, seed=1)
    approve_paytable_version(draft, by=pit2)
    assert bonus.active_version() == draft
    with (
        pytest.raises(IntegrityError, match="approved version cannot change"),
        transaction.atomic(),
    ):
        PaytableLine.objects.filter(version=v1).update(odds_numerator=1)
    with (
        pytest.raises(IntegrityError, match="approved version cannot change"),
        transaction.atomic(),
    ):
        PaytableLine.objects.create(version=v1, category="pair", odds_numerator=1)


@pytest.mark.parametrize(
    ("lines", "field", "words"),
    [
        ({}, "lines", "at least one line"),
        ({"six_of_a_kind": Fraction(1)}, "lines.six_of_a_kind", "not a hand category"),
        ({"pair": Fraction(0)}, "lines.pair", "above zero"),
    ],
)
def test_refused_paytable_versions(default_paytables, pit, lines, field, words):
    with pytest.raises(ChangeRefused) as refused:
        propose_paytable_version(paytable=default_paytables["bet"], lines=lines, reason="x", by=pit)
    assert words in refused.value.errors[field]


def test_shipped_default_paytables_match_the_rules(default_paytables):
    """JD-14: the published bet paytable and the example BONUS paytable; JD-11a: the bet
    paytable prices the no-game payment at the source's 2:3 in a line of its own."""
    bet = {
        k: f"{v.numerator}:{v.denominator}"
        for k, v in default_paytables["bet"].active_version().odds().items()
    }
    assert bet == {
        "no_game": "2:3",
        "pair": "1:1",
        "two_pair": "1:1",
        "three_of_a_kind": "1:1",
        "straight": "1:1",
        "flush": "1:1",
        "full_house": "2:1",
        "four_of_a_kind": "3:1",
        "straight_flush": "5:1",
        "royal_flush": "10:1",
        "five_of_a_kind": "20:1",
    }
    bonus = {
        k: f"{v.numerator}:{v.denominator}"
        for k, v in default_paytables["bonus"].active_version().odds().items()
    }
    assert bonus == {
        "straight": "40:1",
        "flush": "60:1",
        "full_house": "100:1",
        "four_of_a_kind": "200:1",
        "straight_flush": "500:1",
        "royal_flush": "1000:1",
        "five_of_a_kind": "2000:1",
    }


def test_every_change_is_in_the_history_with_who_and_why(joker_table, pit):
    import pghistory.models

    events = pghistory.models.Events.objects.tracks(joker_table).order_by("pgh_created_at")
    labels = [(e.pgh_label, e.pgh_context.get("reason") if e.pgh_context else None) for e in events]
    assert ("insert", "test") in labels
    status_change = [e for e in events if e.pgh_label == "update"][-1]
    assert status_change.pgh_diff["status"] == ["closed", "open"]
    assert status_change.pgh_diff["status_reason"] == ["", "test"]  # shown to its players
    assert status_change.pgh_context["user"] is not None


# An approval racing an edit of the draft's lines (JD-14) ------------------------------------------


def blocked_or_done(pid: list[int], worker: threading.Thread) -> bool:
    """Wait until ``worker`` (whose database backend is ``pid[0]``) waits on a lock or ends:
    True when it waits."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and worker.is_alive():
        if pid:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid[0]]
                )
                row = cursor.fetchone()
            if row and row[0] == "Lock":
                return True
        worker.join(0.01)
    return False


def in_thread(work, pid: list[int], outcome: list[object]) -> threading.Thread:
    """``work()`` on a connection of its own; its backend's pid into ``pid``, then what it
    returned or raised into ``outcome``."""

    def run() -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                pid.append(cursor.fetchone()[0])
            outcome.append(work())
        except Exception as error:  # reported by the test
            outcome.append(error)
        finally:
            connection.close()

    worker = threading.Thread(target=run)
    worker.start()
    return worker


@pytest.fixture
def priced_draft(default_paytables, pit, settings):
    """pit's draft of the bet paytable (the flush paying 2:1; the pair's bet 1:2 and the dealer's
    no game 1:3, so that best play stays under 100% on a short run), its RTP computed."""
    settings.RTP_HOUSE_BAND_PERCENT = {"bet": ("0", "200"), "bonus": ("0", "200")}
    lines = default_paytables["bet"].active_version().odds()
    lines.update(flush=Fraction(2), pair=Fraction(1, 2), no_game=Fraction(1, 3))
    draft = propose_paytable_version(
        paytable=default_paytables["bet"], lines=lines, reason="promo", by=pit
    )
    rtp_lab.compute_now(draft, seed=1)
    return draft


@pytest.mark.django_db(transaction=True)
def test_a_line_edited_while_the_approval_commits_waits_and_is_refused(
    priced_draft, pit2, monkeypatch
):
    """The approval has priced the lines and not yet committed; an edit of a line then waits
    for it and is refused: the approved version has exactly the lines that were priced."""
    priced, go = threading.Event(), threading.Event()
    real_mark_approved = approvals.mark_approved

    def mark_approved_later(version, by):
        priced.set()
        go.wait(10)
        real_mark_approved(version, by)

    monkeypatch.setattr(approvals, "mark_approved", mark_approved_later)
    approver_pid: list[int] = []
    approval: list[object] = []
    approver = in_thread(
        lambda: approve_paytable_version(priced_draft, by=pit2), approver_pid, approval
    )
    editor_pid: list[int] = []
    edit: list[object] = []
    try:
        assert priced.wait(10)
        editor = in_thread(
            lambda: PaytableLine.objects.filter(version=priced_draft, category="flush").update(
                odds_numerator=50
            ),
            editor_pid,
            edit,
        )
        waited = blocked_or_done(editor_pid, editor)
    finally:
        go.set()
        approver.join()
    editor.join()
    assert waited
    assert not isinstance(approval[0], Exception)
    assert isinstance(edit[0], IntegrityError)
    assert "approved version cannot change" in str(edit[0])
    priced_draft.refresh_from_db()
    assert priced_draft.status == ChangeStatus.APPROVED
    assert priced_draft.odds()["flush"] == Fraction(2)


@pytest.mark.django_db(transaction=True)
def test_an_approval_waits_for_an_edit_in_progress_and_prices_its_lines(priced_draft, pit2):
    """A line edit not yet committed holds the approval back; the approval then reads the edited
    lines, which no RTP run has priced, and refuses: no approved version with unpriced lines."""
    edited, release = threading.Event(), threading.Event()

    def edit_slowly() -> int:
        with transaction.atomic():
            changed = PaytableLine.objects.filter(version=priced_draft, category="flush").update(
                odds_numerator=50
            )
            edited.set()
            release.wait(10)
        return changed

    editor_pid: list[int] = []
    edit: list[object] = []
    editor = in_thread(edit_slowly, editor_pid, edit)
    approver_pid: list[int] = []
    approval: list[object] = []
    try:
        assert edited.wait(10)
        approver = in_thread(
            lambda: approve_paytable_version(priced_draft, by=pit2), approver_pid, approval
        )
        waited = blocked_or_done(approver_pid, approver)
    finally:
        release.set()
        editor.join()
    approver.join()
    assert waited
    assert edit == [1]
    assert isinstance(approval[0], ChangeRefused)
    assert "rtp" in approval[0].errors
    priced_draft.refresh_from_db()
    assert priced_draft.status == ChangeStatus.DRAFT
