"""The services in random order (hypothesis' rule-based state machine): cage deposits and
withdrawals, joker draw rounds and their decisions, timeouts, voids, stud seats, decisions and
leaving. After every step every ledger invariant holds: each transaction balances, cached
balances equal their entries, no wallet is or ever was negative, each currency sums to zero,
the table chips account holds exactly the seats' stacks, and nothing is held in play once no
round is (JD-4, JD-8, ST-1, ST-12, FS-7)."""

from __future__ import annotations

import contextlib
import os
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from games.engine import joker_draw as joker_engine
from games.engine import stud as stud_engine
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import Round, RoundStatus, Seat, SeatStatus, Table
from games.stud.hand import Hand as StudHand
from games.stud.tasks import STUD as stud
from games.tables import voids
from games.tables.rounds import RoundRefused
from payouts import services as money
from payouts.approvals import ChangeRefused
from payouts.models import AccountKind
from payouts.selectors import check_ledger
from payouts.services import InsufficientFunds
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import make_user

D = Decimal
STEPS = int(os.environ.get("STATE_MACHINE_STEPS", "30"))
EXAMPLES = int(os.environ.get("STATE_MACHINE_EXAMPLES", "12"))

amounts = st.integers(min_value=1, max_value=20_000).map(lambda cents: D(cents) / 100)
antes = st.sampled_from([D("0.30"), D("0.60"), D("1.50"), D("12.00")])


class Casino:
    """The fixed cast the machine plays with (built once per test, in its transaction)."""

    players: list[User]
    pit: User
    joker_table: Table
    stud_table: Table


class LedgerMachine(RuleBasedStateMachine):
    cast: Casino

    def __init__(self) -> None:
        super().__init__()
        # Each run starts from the same casino: its changes are rolled back at the end.
        self._savepoint = transaction.atomic()
        self._savepoint.__enter__()

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self._savepoint.__exit__(None, None, None)

    def _player(self, index: int) -> User:
        return self.cast.players[index % len(self.cast.players)]

    def _balance(self, user: User) -> Decimal:
        return money.wallet(user, "USD").balance

    # Cage ---------------------------------------------------------------------------------

    @rule(who=st.integers(0, 2), amount=amounts)
    def deposit(self, who: int, amount: Decimal) -> None:
        user = self._player(who)
        before = self._balance(user)
        money.deposit(player=user, currency="USD", amount=amount, reason="cash", by=self.cast.pit)
        assert self._balance(user) == before + amount

    @rule(who=st.integers(0, 2), amount=amounts)
    def withdraw(self, who: int, amount: Decimal) -> None:
        user = self._player(who)
        before = self._balance(user)
        try:
            money.withdraw(
                player=user, currency="USD", amount=amount, reason="cash", by=self.cast.pit
            )
        except InsufficientFunds:
            assert amount > before  # refused only beyond the wallet, and nothing moved
            assert self._balance(user) == before
        else:
            assert self._balance(user) == before - amount

    # Joker draw ---------------------------------------------------------------------------

    @rule(who=st.integers(0, 2), ante=antes, bonus=st.booleans())
    def open_round(self, who: int, ante: Decimal, bonus: bool) -> None:
        user = self._player(who)
        before = self._balance(user)
        stake = ante + (D("0.30") if bonus else 0)
        request = BoxRequest(box=1, ante=ante, bonus=D("0.30") if bonus else None)
        try:
            # A savepoint: a refusal rolls back its caller's transaction, and the machine goes on.
            with transaction.atomic():
                joker_draw.open_round(player=user, table=self.cast.joker_table, boxes=[request])
        except (RoundRefused, InsufficientFunds):
            assert self._balance(user) == before
        else:
            assert self._balance(user) == before - stake

    def _deciding(self, index: int) -> Round | None:
        rounds = list(
            Round.objects.filter(table=self.cast.joker_table, status=RoundStatus.DECIDING).order_by(
                "pk"
            )
        )
        return rounds[index % len(rounds)] if rounds else None

    @rule(index=st.integers(0, 5), data=st.data())
    def decide(self, index: int, data: st.DataObject) -> None:
        round_ = self._deciding(index)
        if round_ is None:
            return
        state = joker_engine.from_json(round_.engine_state)
        box = state.to_act
        assert box is not None
        action = data.draw(st.sampled_from(box.options()))
        cards = []
        if action == "exchange":
            held = [str(card) for card in box.cards]
            most = 1 if box.exchanges else 5  # the second exchange is of one card (JD-5)
            cards = data.draw(
                st.lists(st.sampled_from(held), min_size=1, max_size=most, unique=True)
            )
        assert round_.player is not None
        # Only a bet the wallet cannot cover may be refused: every other choice is legal.
        with contextlib.suppress(InsufficientFunds), transaction.atomic():
            joker_draw.act(
                player=round_.player, round_id=round_.pk, box=box.number, action=action, cards=cards
            )

    @rule(index=st.integers(0, 5))
    def time_out(self, index: int) -> None:
        round_ = self._deciding(index)
        if round_ is None:
            return
        Round.objects.filter(pk=round_.pk).update(
            decision_deadline=timezone.now() - timedelta(seconds=1)
        )
        joker_draw.expire_decision(round_.pk)
        round_.refresh_from_db()
        assert round_.status == RoundStatus.SETTLED  # a one-box round folds and settles

    @rule(index=st.integers(0, 5), peer=st.booleans())
    def void(self, index: int, peer: bool) -> None:
        round_ = (
            Round.objects.filter(table=self.cast.stud_table, status=RoundStatus.DECIDING).first()
            if peer
            else self._deciding(index)
        )
        if round_ is None:
            return
        voids.void_round(round_, by=self.cast.pit, reason="dealer error")
        round_.refresh_from_db()
        assert round_.status == RoundStatus.VOIDED

    @rule()
    def void_a_settled_round(self) -> None:
        round_ = Round.objects.filter(status=RoundStatus.SETTLED).first()
        if round_ is None:
            return
        try:
            voids.void_round(round_, by=self.cast.pit, reason="too late")
        except ChangeRefused:
            return
        raise AssertionError("a settled round was voided")

    # Stud ---------------------------------------------------------------------------------

    @rule(
        who=st.integers(0, 2), seat=st.integers(1, 8), buy_in=st.sampled_from(["10", "50", "100"])
    )
    def sit_down(self, who: int, seat: int, buy_in: str) -> None:
        user = self._player(who)
        before = self._balance(user)
        try:
            stud.join(player=user, table=self.cast.stud_table, seat=seat, buy_in=D(buy_in))
        except (RoundRefused, InsufficientFunds):
            assert self._balance(user) == before
        else:
            assert self._balance(user) == before - D(buy_in)

    @rule(who=st.integers(0, 2))
    def leave(self, who: int) -> None:
        user = self._player(who)
        seated = Seat.objects.filter(
            table=self.cast.stud_table, player=user, status=SeatStatus.SEATED
        ).exists()
        try:
            stud.leave(player=user, table=self.cast.stud_table)
        except RoundRefused:
            assert not seated

    @rule(data=st.data())
    def stud_decision(self, data: st.DataObject) -> None:
        round_ = Round.objects.filter(
            table=self.cast.stud_table, status=RoundStatus.DECIDING
        ).first()
        if round_ is None:
            return
        hand = StudHand.from_json(round_.engine_state)
        options = stud_engine.legal_actions(hand.state)
        if hand.state.to_act is None or not options:
            return
        option = data.draw(st.sampled_from(options))
        seat = Seat.objects.get(
            table=self.cast.stud_table,
            number=hand.seats[hand.state.to_act],
            status__in=[SeatStatus.SEATED, SeatStatus.LEAVING],
        )
        amount = None
        if option.kind.value in ("bet", "raise", "complete"):
            amount = D(option.min_amount) / 100
        stud.act(
            player=seat.player, table=self.cast.stud_table, action=option.kind.value, amount=amount
        )

    @rule()
    def stud_time_out(self) -> None:
        Round.objects.filter(table=self.cast.stud_table, status=RoundStatus.DECIDING).update(
            decision_deadline=timezone.now() - timedelta(seconds=1)
        )
        stud.catch_up(self.cast.stud_table.pk)

    # Invariants ---------------------------------------------------------------------------

    @invariant()
    def ledger_holds(self) -> None:
        result = check_ledger()
        assert result.ok, result.findings()

    @invariant()
    def table_chips_are_the_stacks(self) -> None:
        stacks = Seat.objects.filter(table=self.cast.stud_table).exclude(
            status=SeatStatus.LEFT
        ).aggregate(total=Sum("chips"))["total"] or D(0)
        assert money.house_account(AccountKind.TABLE_CHIPS, "USD").balance == stacks

    @invariant()
    def nothing_in_play_without_a_round(self) -> None:
        if not Round.objects.filter(status=RoundStatus.DECIDING).exists():
            assert money.house_account(AccountKind.STAKES_IN_PLAY, "USD").balance == 0
            assert money.house_account(AccountKind.BONUS, "USD").balance == 0


@pytest.mark.django_db
def test_every_ledger_invariant_holds_whatever_the_order(pit, pit2, joker_table, settings):
    settings.STUD_HAND_PAUSE_SECONDS = 0
    cast = Casino()
    cast.players = [make_user(name, "player") for name in ("ann", "ben", "cal")]
    for user in cast.players:
        money.deposit(player=user, currency="USD", amount=D("200.00"), reason="c", by=pit)
    cast.pit = pit
    cast.joker_table = joker_table
    cast.stud_table = make_stud_table(pit, pit2, name="Stud machine")
    LedgerMachine.cast = cast
    run_state_machine_as_test(
        LedgerMachine,
        settings=hypothesis_settings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
