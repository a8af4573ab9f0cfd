"""What every peer table shares (seven-card stud, Drawmaha): seats bought in from the wallet and
cashed out, the table lock, dealing, the hand history, one ledger transaction per event of a
hand, the timers and the catch-up. Each game describes itself once (a ``PeerGame`` subclass), and
its tasks module makes the one instance of it, with the task that catches its tables up.

Chips at a table are the players' money held by the house (the TABLE_CHIPS account); a seat's
stack is its share. A bet moves chips from TABLE_CHIPS into the pot (STAKES_IN_PLAY); an award
moves the pot back to the winners' stacks and the rake to RAKE; one ledger transaction per
event of the hand history, referenced by the event, so none is ever posted twice.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, cast

from django.db import transaction
from django.db.models import Max, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from casino import metrics
from casino.faults import fault_point
from casino.models import ADDRESS_LENGTH
from casino.refusals import Kind
from games.engine.betting import WAGERS, PeerEvent
from games.engine.cards import Card
from games.engine.common import Event, RuleViolation
from games.engine.dealer import Deck
from games.models import Round, RoundStatus, Seat, SeatStatus, Table, TableStatus
from games.peer import fair_play
from games.peer.hands import (
    HouseEvent,
    PeerHand,
    PeerState,
    from_cents,
    to_cents,
)
from games.peer.limits import SIT_OUT_MINUTES, TIMEOUTS_TO_SIT_OUT
from games.tables import live, seeds
from games.tables.rounds import (
    RoundRefused,
    check_game,
    engine_refusal,
    limits_in_force,
    next_nonce,
    record,
)
from payouts.models import Account, AccountKind, TransactionKind
from payouts.protection import conduct, gate
from payouts.services import Posting, Transfer, house_account, post_transactions, wallet

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from games.models import TableLimits

logger = logging.getLogger(__name__)

State = TypeVar("State", bound=PeerState)
Decision = TypeVar("Decision")


class Timer(Protocol):
    """A task that catches one table up (``PeerGame.catch_up``) on a worker, at ``eta``."""

    def apply_async(self, args: tuple[int], *, eta: datetime) -> object: ...


class PeerGame(ABC, Generic[State, Decision]):
    """What sets one peer game apart at its tables, with its ``State`` of the engine and the
    ``Decision`` a player takes; the shared functions below take it. The seats, the catch-up
    and the hand's life are the same for every game (``join``, ``leave``, ``catch_up``)."""

    game: ClassVar[str]  # the Game its tables play
    rule: ClassVar[str]  # seats, buy-ins and who may act at the table
    deal_rule: ClassVar[str]  # when a hand is dealt and who is in it
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    forced: ClassVar[frozenset[str]]  # forced bets into the pot before any decision

    def __init__(self, timer: Timer) -> None:
        self.timer = timer  # sent once a decision or a hand is due, after the commit

    @abstractmethod
    def pause_seconds(self) -> int:
        """The pause between hands, read at each hand."""

    @abstractmethod
    def load_hand(self, data: dict[str, Any]) -> PeerHand[State]:
        """The hand stored in ``Round.engine_state``."""

    @abstractmethod
    def folded_cards(self, hand: PeerHand[State], seat: int) -> tuple[Card, ...]:
        """The cards the player at the engine ``seat`` of a finished ``hand`` held when folding
        (a folded hand is dealt no more cards): what the collusion report ranks."""

    @abstractmethod
    def new_hand(
        self,
        state: State,
        seats: tuple[int, ...],
        players: tuple[int, ...],
        seat_ids: tuple[int, ...],
    ) -> PeerHand[State]:
        """The hand to store, by engine seat."""

    @abstractmethod
    def hand_over(self, hand: PeerHand[State]) -> bool: ...

    @abstractmethod
    def deal(self, table: Table, ready: Sequence[Seat]) -> Round:
        """Deal a hand to ``ready`` (``open_hand``)."""

    @abstractmethod
    def default_decision(self, state: State, seat: int) -> Decision:
        """What the player at the engine ``seat`` does when the time to act runs out."""

    @abstractmethod
    def apply(self, state: State, decision: Decision) -> tuple[State, Sequence[Event]]:
        """The engine's answer to a decision."""

    @abstractmethod
    def carry_on(self, round_: Round, hand: PeerHand[State], *, actor: User | None) -> None:
        """Act at once for a player who left, whose turn it is (``leaver_to_act``)."""

    def join(
        self,
        *,
        player: User,
        table: Table,
        seat: int,
        buy_in: Decimal,
        client_address: str = "",
    ) -> Seat:
        """Sit down at ``seat`` with ``buy_in`` from the wallet, within the table's seats and
        buy-in range (refusals cite the game's rule), from ``client_address`` (the request's;
        empty when there is none), which no other seated player may share (``fair_play``);
        then start a hand if one is due."""
        rule = self.rule
        limits = limits_in_force(table, game=self.game, rule=rule)
        seats = cast(int, limits.seats)
        if not 1 <= seat <= seats:
            raise RoundRefused(
                _("Seats are numbered 1 to %(seats)s.") % {"seats": seats}, field="seat", rule=rule
            )
        low, high = cast(Decimal, limits.buy_in_min), cast(Decimal, limits.buy_in_max)
        if not low <= buy_in <= high:
            raise RoundRefused(
                _("The buy-in must be from %(low)s to %(high)s.") % {"low": low, "high": high},
                field="buy_in",
                rule=rule,
            )
        with transaction.atomic():
            table = locked_table(table.pk, rule=rule, open_only=True)
            taken = Seat.objects.filter(table=table).exclude(status=SeatStatus.LEFT)
            if taken.filter(player=player).exists():
                raise RoundRefused(
                    _("You already have a seat at this table."),
                    field="seat",
                    rule=rule,
                    kind=Kind.CONFLICT,
                )
            if taken.filter(number=seat).exists():
                raise RoundRefused(
                    _("Seat %(seat)s is taken.") % {"seat": seat},
                    field="seat",
                    rule=rule,
                    kind=Kind.CONFLICT,
                )
            gate.check_stake(
                player=player,
                currency=table.currency,
                amount=buy_in,
                starts_play=True,
                field="buy_in",
            )
            fair_play.check_address(
                player=player, table=table, client_address=client_address, rule=rule
            )
            seating = Seat.objects.create(
                table=table,
                number=seat,
                player=player,
                chips=buy_in,
                client_address=client_address[:ADDRESS_LENGTH],
            )
            # The next hand's seed is committed before anyone is dealt in or antes (FS-2).
            seeds.table_pair(table)
            live.table_changed(table.pk)
            post_transactions(
                [
                    Transfer(
                        kind=TransactionKind.STAKE,
                        postings=[
                            Posting(wallet(player, table.currency), -buy_in),
                            Posting(table_chips(table), buy_in),
                        ],
                        reason=f"{seating}: buy-in",
                        created_by=player,
                        reference=f"seat:{seating.pk}:buy-in",
                    )
                ]
            )
            start_or_schedule(self, table)
        return seating

    def leave(self, *, player: User, table: Table) -> Seat:
        """Stand up: the stack goes back to the wallet. In a hand the player's hand is dead:
        the game's ``carry_on`` folds it when the turn comes, and the stack is cashed out once
        the cards are no longer live."""
        with transaction.atomic():
            locked_table(table.pk, rule=self.rule)
            seating = own_seat(player, table, rule=self.rule)
            round_ = running_hand(table)
            hand = self.load_hand(round_.engine_state) if round_ else None
            if hand is not None and round_ is not None and seat_in_hand(hand, seating):
                seating.status = SeatStatus.LEAVING
                seating.save(update_fields=["status"])
                self.carry_on(round_, hand, actor=player)
                seating.refresh_from_db()
            else:
                cash_out(seating, by=player)
        return seating

    def come_back(self, *, player: User, table: Table) -> Seat:
        """ "I'm back": a player sat out for running out of time is dealt in again from the
        next hand (the hand being played was dealt without them) and starts a new count of
        timeouts. Pressing it again, or when not sat out, changes nothing; past the time sat
        out it is refused (409) and the seat is cashed out."""
        check_game(table, game=self.game, rule=self.rule)
        with transaction.atomic():
            table = locked_table(table.pk, rule=self.rule)
            seating = own_seat(player, table, rule=self.rule)
            if seating.cash_out_at is not None and seating.cash_out_at <= timezone.now():
                # Sat out past the table's time: the cash-out is due and the sweeper makes it;
                # coming back now would cancel it.
                raise RoundRefused(
                    _("You have no seat at this table."),
                    field="table",
                    rule=self.rule,
                    kind=Kind.CONFLICT,
                )
            if seating.sat_out_at is not None or seating.timeouts_in_a_row:
                seating.sat_out_at = seating.cash_out_at = None
                seating.timeouts_in_a_row = 0
                seating.save(update_fields=["sat_out_at", "cash_out_at", "timeouts_in_a_row"])
                live.table_changed(table.pk)
                start_or_schedule(self, table)
        return seating

    def cash_out_closed(self, table: Table) -> None:
        """Pit staff closed the table (locked by the caller): the seats out of the hand being
        played are cashed out now, the others once it is over (``after_events``)."""
        round_ = running_hand(table)
        cash_out_due(table, self.load_hand(round_.engine_state) if round_ else None)

    def catch_up(self, table_id: int) -> None:
        """Take the decisions whose time ran out, cash out the seats that are due, and start a
        hand that is due: the game's timer task runs this, and the sweeper behind it, so a lost
        timer delays a fold or a deal but never loses one. No request runs it: a look at the
        table reads, and a decision out of time is refused (``hand_to_act``)."""
        running = Round.objects.filter(
            table_id=table_id, table__game=self.game, status=RoundStatus.DECIDING
        )
        if running.exists():
            due = running.filter(decision_deadline__lte=timezone.now()).exists()
        else:
            due = _dealt_in(table_id).count() >= self.min_players
        # The common case: a hand on time, or nobody to deal to, nobody to cash out; no lock.
        if not due and not _cash_outs_due(table_id).filter(table__game=self.game).exists():
            return
        with transaction.atomic():
            table = locked_table(table_id, rule=self.rule)
            if table.game != self.game:  # a request naming another game's table: not ours
                return
            round_ = running_hand(table)
            if round_ is None:
                cash_out_due(table, None)
                start_or_schedule(self, table)
                return
            cash_out_due(table, self.load_hand(round_.engine_state))
            timeout = action_time(table)
            now = timezone.now()
            while round_.out_of_time(now):
                hand = self.load_hand(round_.engine_state)
                seat = hand.state.to_act
                if seat is None:
                    return
                deadline = cast(datetime, round_.decision_deadline)  # out of time: it has one
                sat_out = count_timeout(round_, hand, seat)
                record(round_, [Event(HouseEvent.TIMED_OUT, {"seat": seat}), *sat_out], actor=None)
                metrics.decision_timed_out(self.game)
                play(self, round_, hand, self.default_decision(hand.state, seat), actor=None)
                if round_.status == RoundStatus.DECIDING:
                    # Each player has a full action time, counted from the previous deadline.
                    round_.decision_deadline = deadline + timeout
                    round_.save(update_fields=["decision_deadline"])


# Seats -------------------------------------------------------------------------------------------


def cash_out(seating: Seat, *, by: User | None) -> None:
    """The stack back to the wallet; the seat is free again."""
    table = seating.table
    if seating.chips:
        post_transactions(
            [
                Transfer(
                    kind=TransactionKind.SETTLEMENT,
                    postings=[
                        Posting(table_chips(table), -seating.chips),
                        Posting(wallet(seating.player, table.currency), seating.chips),
                    ],
                    reason=f"{seating}: cash-out",
                    created_by=by,
                    reference=f"seat:{seating.pk}:cash-out",
                )
            ]
        )
        fault_point("seat.cashed_out")  # posted, the seat not yet freed: the crash tests
    seating.chips = Decimal("0.00")
    seating.status = SeatStatus.LEFT
    seating.left_at = timezone.now()
    seating.save(update_fields=["chips", "status", "left_at"])
    live.table_changed(table.pk)


def _dealt_in(table_id: int) -> QuerySet[Seat]:
    """The seated players with chips who are not sitting out (by their own choice, or sat out
    for running out of time): those a hand is dealt to. Nobody else is counted for anything a
    hand decides by its players: antes, blinds and the button (DM-1), the eight players of the
    last card (ST-9), the draw limit of six or seven (DM-5). Nor is a player who may not start
    play now (a time-out or self-exclusion, a reality check due, the session time limit
    reached): their seat waits, or is cashed out after the hand (``_cash_outs_due``)."""
    return Seat.objects.filter(
        table_id=table_id,
        status=SeatStatus.SEATED,
        chips__gt=0,
        auto_ante=True,
        sat_out_at__isnull=True,
    ).exclude(conduct.barred_from_play("player_id"))


def _cash_outs_due(table_id: int) -> QuerySet[Seat]:
    """The seats to cash out: sat out past the table's time, at a table pit staff closed, or
    of a player who took a time-out or self-exclusion."""
    return Seat.objects.filter(table_id=table_id, status=SeatStatus.SEATED).filter(
        Q(cash_out_at__lte=timezone.now())
        | ~Q(table__status=TableStatus.OPEN)
        | Q(player_id__in=conduct.excluded_players())
    )


def cash_out_due(table: Table, hand: PeerHand[PeerState] | None) -> None:
    """Cash out, with the table locked, the seats that are due (``_cash_outs_due``), except
    those holding live cards in the running ``hand``: that hand is played out first, and they
    are cashed out when it is over. Each seat once: a seat cashed out has left."""
    for seating in _cash_outs_due(table.pk).select_related("player", "table"):
        if hand is None or not seat_in_hand(hand, seating):
            cash_out(seating, by=None)


def sitting_out(table: Table) -> tuple[int, timedelta]:
    """The table's hands timed out in a row that sit a player out, and the time sat out before
    the cash-out, by the limits in force (the house's defaults where they say nothing)."""
    limits = table.active_limits()
    timeouts = limits.timeouts_to_sit_out if limits else None
    minutes = limits.sit_out_minutes if limits else None
    return timeouts or TIMEOUTS_TO_SIT_OUT, timedelta(minutes=minutes or SIT_OUT_MINUTES)


def count_timeout(round_: Round, hand: PeerHand[PeerState], seat: int) -> list[Event]:
    """The player at the engine ``seat`` ran out of time in ``round_``: one more hand in a row
    (a hand counts once, however often they run out of time in it). At the table's number
    they are sat out, from the next hand: returns the event that records it."""
    seating = Seat.objects.filter(pk=hand.seat_ids[seat], status=SeatStatus.SEATED).first()
    if seating is None or seating.last_timeout_hand == round_.nonce:
        return []
    seating.timeouts_in_a_row += 1
    seating.last_timeout_hand = round_.nonce
    fields = ["timeouts_in_a_row", "last_timeout_hand"]
    timeouts, time_sat_out = sitting_out(round_.table)
    sat_out = []
    if seating.sat_out_at is None and seating.timeouts_in_a_row >= timeouts:
        seating.sat_out_at = timezone.now()
        seating.cash_out_at = seating.sat_out_at + time_sat_out
        fields += ["sat_out_at", "cash_out_at"]
        data = {"seat": seat, "timeouts": seating.timeouts_in_a_row}
        sat_out.append(
            Event(HouseEvent.SAT_OUT, {**data, "cash_out_at": seating.cash_out_at.isoformat()})
        )
    seating.save(update_fields=fields)
    return sat_out


def sit_out_sharing(table: Table, seating: Seat) -> None:
    """Sit out a seat that came to share an address with another at the table (``fair_play``):
    dealt no cards, and cashed out after the time sat out unless the player comes back ("I'm
    back"), which the next deal checks again."""
    seating.sat_out_at = timezone.now()
    seating.cash_out_at = seating.sat_out_at + sitting_out(table)[1]
    seating.save(update_fields=["sat_out_at", "cash_out_at"])
    live.table_changed(table.pk)


def ready_seats(table: Table) -> list[Seat]:
    """Those a hand is dealt to (`_dealt_in`), in seat order."""
    return list(_dealt_in(table.pk).select_related("player").order_by("number"))


def sittings(hand: PeerHand[PeerState]) -> dict[int, Seat]:
    """The sittings dealt into ``hand`` still at the table, by seat id (a sitting that left is
    cashed out and moves no more chips)."""
    return {
        seating.pk: seating
        for seating in Seat.objects.filter(pk__in=hand.seat_ids)
        .exclude(status=SeatStatus.LEFT)
        .select_related("player", "table")
    }


def next_hand_at(table: Table, ready: Sequence[Seat], pause_seconds: int) -> datetime:
    """The pause after the last hand, or after the last player sitting down, is over then."""
    last = Round.objects.filter(table=table).aggregate(last=Max("settled_at"))["last"]
    latest = max([seating.joined_at for seating in ready] + ([last] if last else []))
    return latest + timedelta(seconds=pause_seconds)


def update_stacks(hand: PeerHand[PeerState]) -> list[Seat]:
    """The chips of the sittings dealt into ``hand`` from the engine's stacks; returns those still
    at the table. Matched by sitting, never by seat number and player: a player who left during
    the hand and sat down again has a new sitting, whose chips are the new buy-in only."""
    seats = sittings(hand)
    for seat_id, chips in zip(hand.seat_ids, hand.state.chips, strict=True):
        if seat_id in seats:  # else cashed out once folded; the stack moves no more
            seats[seat_id].chips = from_cents(chips.stack)
    Seat.objects.bulk_update(seats.values(), ["chips"])
    return list(seats.values())


def is_leaving(seat_id: int) -> bool:
    return Seat.objects.filter(pk=seat_id, status=SeatStatus.LEAVING).exists()


# Hands -------------------------------------------------------------------------------------------


def chips_moved(
    round_: Round,
    number: int,
    event: Event,
    actor: User | None,
    *,
    forced: Collection[str],
) -> Transfer | None:
    """The ledger transaction of one event: ``forced`` bets (antes, blinds) and wagers into the
    pot, uncalled bets and pots back to the stacks, the rake to the house (ST-13, DM-12)."""
    data = event.data
    table = round_.table
    chips, pot = table_chips(table), house_account(AccountKind.STAKES_IN_PLAY, table.currency)
    if event.kind in forced or (event.kind in WAGERS and data.get("added")):
        amount = from_cents(data["amount"] if event.kind in forced else data["added"])
        if not amount:
            return None
        kind, postings = TransactionKind.STAKE, [Posting(chips, -amount), Posting(pot, amount)]
    elif event.kind in (PeerEvent.UNCALLED_BET_RETURNED, PeerEvent.POT_AWARDED) and data["amount"]:
        amount = from_cents(data["amount"])
        kind, postings = TransactionKind.SETTLEMENT, [Posting(pot, -amount), Posting(chips, amount)]
    elif event.kind == PeerEvent.RAKE and data["amount"]:
        amount = from_cents(data["amount"])
        rake = house_account(AccountKind.RAKE, table.currency)
        kind, postings = TransactionKind.RAKE, [Posting(pot, -amount), Posting(rake, amount)]
    else:
        return None
    return Transfer(
        kind=kind,
        postings=postings,
        reason=f"{round_}: {event.kind.replace('_', ' ')}",
        created_by=actor,
        reference=f"round:{round_.pk}:event:{number}",
    )


def settle(round_: Round, fields: Sequence[str]) -> None:
    """The hand is over: no more decisions, its seed is revealed (FS-7)."""
    round_.status = RoundStatus.SETTLED
    round_.settled_at = timezone.now()
    round_.decision_deadline = None
    round_.save(update_fields=[*fields, "status", "settled_at", "decision_deadline"])
    seeds.reveal_hand_seed(round_)


# Internals ---------------------------------------------------------------------------------------


def locked_table(table_id: int, *, rule: str, open_only: bool = False) -> Table:
    """The table, locked: every write to its seats and hands runs under this lock."""
    table = Table.objects.select_for_update(no_key=True).get(pk=table_id)
    if open_only and table.status != TableStatus.OPEN:
        raise RoundRefused(
            _("%(table)s is closed.") % {"table": table},
            field="table",
            rule=rule,
            kind=Kind.CONFLICT,
        )
    return table


def own_seat(player: User, table: Table, *, rule: str) -> Seat:
    seating = (
        Seat.objects.select_related("table", "player")
        .filter(table=table, player=player, status=SeatStatus.SEATED)
        .first()
    )
    if seating is None:
        raise RoundRefused(
            _("You have no seat at this table."), field="table", rule=rule, kind=Kind.CONFLICT
        )
    return seating


def running_hand(table: Table) -> Round | None:
    return (
        Round.objects.select_related("table")
        .filter(table=table, status=RoundStatus.DECIDING)
        .first()
    )


def table_chips(table: Table) -> Account:
    return house_account(AccountKind.TABLE_CHIPS, table.currency)


def action_time(table: Table) -> timedelta:
    limits = table.active_limits()
    return timedelta(seconds=limits.action_timeout_seconds or 0 if limits else 0)


def schedule(peer: PeerGame[Any, Any], table_id: int, when: datetime) -> None:
    """Ask a worker to run the game's timer (the table's catch-up) at ``when``, once the
    transaction commits. If the broker is down the decision or the deal still happens: the
    sweeper runs the same check."""

    def send() -> None:
        try:
            peer.timer.apply_async((table_id,), eta=when)
        except Exception:  # the broker being down must not fail a committed hand
            logger.warning("could not schedule the timer of table %s", table_id, exc_info=True)

    transaction.on_commit(send)


def seat_in_hand(hand: PeerHand[PeerState], seating: Seat) -> bool:
    """Whether ``seating`` (that sitting, not just its seat number) still holds live cards in
    ``hand``."""
    return seating.pk in hand.seat_ids and hand.seat_ids.index(seating.pk) in hand.state.in_hand


# Hands -------------------------------------------------------------------------------------------


def hand_to_act(
    peer: PeerGame[State, Any], player: User, table: Table, client_address: str = ""
) -> tuple[Round, PeerHand[State], int]:
    """The running hand, under the table lock, and the engine seat of ``player`` in it: only a
    seated player dealt into the hand acts in it (a player who left it and sat down again is
    not: theirs is a new sitting), only from an address no other player dealt into it shares
    (``fair_play``: the request's ``client_address`` or the player's last sign-in), and only
    in time: once the deadline of the player to act has passed, their decision is the
    timer's (``catch_up``), and until the timer has taken it nobody else's turn has come (the
    engine refuses them as out of turn)."""
    locked_table(table.pk, rule=peer.rule)
    seating = own_seat(player, table, rule=peer.rule)
    round_ = running_hand(table)
    if round_ is None:
        raise RoundRefused(
            _("No hand is being played."), field="action", rule=peer.deal_rule, kind=Kind.CONFLICT
        )
    hand = peer.load_hand(round_.engine_state)
    if seating.pk not in hand.seat_ids:
        raise RoundRefused(_("You are not in this hand."), field="action", rule=peer.deal_rule)
    fair_play.check_address(
        player=player,
        table=table,
        client_address=client_address,
        rule=peer.rule,
        among=hand.seat_ids,
    )
    seat = hand.seat_ids.index(seating.pk)
    if seat == hand.state.to_act and round_.out_of_time(timezone.now()):
        raise RoundRefused(
            _("The decision came after your time to act ran out: the table acts for you."),
            field="action",
            rule=peer.rule,
            kind=Kind.CONFLICT,
        )
    if seating.timeouts_in_a_row:  # acting in time starts the count again (a refusal undoes it)
        seating.timeouts_in_a_row = 0
        seating.save(update_fields=["timeouts_in_a_row"])
    return round_, hand, seat


def start_or_schedule(peer: PeerGame[Any, Any], table: Table) -> None:
    """Deal a hand if enough seated players have chips and the pause after the last hand (or the
    last player sitting down) is over; else, if one is coming, set a timer for it."""
    if table.status != TableStatus.OPEN or running_hand(table) is not None:
        return
    ready = ready_seats(table)
    for newcomer, partner in fair_play.newcomers(ready):
        sit_out_sharing(table, newcomer)
        fair_play.raise_alert(table, newcomer, partner)
        ready.remove(newcomer)
    if len(ready) < peer.min_players:
        return
    due = next_hand_at(table, ready, peer.pause_seconds())
    if due > timezone.now():
        schedule(peer, table.pk, due)
        return
    peer.deal(table, ready[: peer.max_players])


def open_hand(
    peer: PeerGame[State, Any],
    table: Table,
    ready: Sequence[Seat],
    start: Callable[[TableLimits, list[int], Deck], tuple[State, Sequence[Event]]],
    **opened: Any,
) -> Round:
    """Shuffle with the table's seed committed before the hand (FS-2) and the dealt players'
    client seeds, let the engine ``start`` the hand on it with the players' stacks (its antes
    or blinds first), store the hand and record its opening (with the game's ``opened``
    details), then its first events."""
    limits = cast("TableLimits", table.active_limits())
    pair = seeds.deal_hand_seed(table)
    client_seed = seeds.hand_client_seed(ready)
    nonce = next_nonce(table.pk)
    deck = Deck.shuffled(pair.server_seed, client_seed, nonce)
    stacks = [to_cents(seating.chips) for seating in ready]
    state, events = start(limits, stacks, deck)
    # The antes or blinds are stakes: each dealt player's play session goes on, or begins.
    conduct.record_stakes([seating.player_id for seating in ready], timezone.now())
    hand = peer.new_hand(
        state,
        tuple(seating.number for seating in ready),
        tuple(seating.player_id for seating in ready),
        tuple(seating.pk for seating in ready),
    )
    round_ = Round.objects.create(
        table=table,
        nonce=nonce,
        seed_pair=pair,
        commitment=pair.commitment,
        client_seed=client_seed,
        engine_state=hand.to_json(),
    )
    details = {
        "table": table.pk,
        "nonce": nonce,
        "commitment": round_.commitment,
        "client_seed": client_seed,
        "limits_version": limits.number,
        "seats": list(hand.seats),
        "players": [seating.player.username for seating in ready],
        **opened,
        "starting_stacks": stacks,
    }
    record(round_, [Event(HouseEvent.HAND_OPENED, details)], actor=None)
    metrics.round_opened(peer.game)
    after_events(peer, round_, hand, events, actor=None)
    return round_


def leaver_to_act(
    peer: PeerGame[Any, Any], round_: Round, hand: PeerHand[PeerState], *, actor: User | None
) -> int | None:
    """The engine seat of a player who left, whose turn it is: the game acts for them at once
    (recorded here). Otherwise None, with a timer set for the player to act, if any."""
    seat = hand.state.to_act
    if seat is None:
        return None
    if not is_leaving(hand.seat_ids[seat]):
        schedule(peer, round_.table_id, cast(datetime, round_.decision_deadline))
        return None
    record(round_, [Event(HouseEvent.LEFT_TABLE, {"seat": seat})], actor=actor)
    return seat


def play(
    peer: PeerGame[State, Decision],
    round_: Round,
    hand: PeerHand[State],
    decision: Decision,
    *,
    actor: User | None,
) -> None:
    """A decision through the engine (a refusal names the table's seats), then its events
    recorded and the hand carried on (``after_events``). A player's own decision that puts
    chips in the pot passes the player's protection first."""
    seat = hand.state.to_act
    try:
        state, events = peer.apply(hand.state, decision)
    except RuleViolation as refused:
        raise engine_refusal(refused, hand.seats) from None
    if actor is not None and seat is not None and hand.players[seat] == actor.pk:
        added = sum(
            (
                from_cents(event.data["added"])
                for event in events
                if event.kind in WAGERS and event.data.get("seat") == seat
            ),
            Decimal(0),
        )
        if added:
            gate.check_stake(
                player=actor,
                currency=round_.table.currency,
                amount=added,
                hand_total=from_cents(hand.state.chips[seat].committed) + added,
                starts_play=False,
                from_wallet=False,
            )
    played = peer.new_hand(state, hand.seats, hand.players, hand.seat_ids)
    after_events(peer, round_, played, events, actor=actor)


def after_events(
    peer: PeerGame[State, Any],
    round_: Round,
    hand: PeerHand[State],
    events: Sequence[Event],
    *,
    actor: User | None,
) -> None:
    """Record a game's events, move their chips through the ledger, update the stacks, then
    let the hand carry on: a finished hand is settled and the next one started, players who
    left are cashed out once their cards are dead, and the game's ``carry_on`` acts for them."""
    transfers = [
        transfer
        for number, event in enumerate(events, start=round_.history_length)
        if (transfer := chips_moved(round_, number, event, actor, forced=peer.forced)) is not None
    ]
    record(round_, events, actor=actor)
    round_.engine_state = hand.to_json()
    seats = update_stacks(hand)
    post_transactions(transfers)  # after the stacks: both in one transaction, ledger last
    fields = ["engine_state", "history_length"]
    if peer.hand_over(hand):
        settle(round_, fields)
        metrics.round_settled(peer.game)
        for seating in seats:
            if seating.status == SeatStatus.LEAVING:
                cash_out(seating, by=None)
        cash_out_due(round_.table, None)  # a closed table's seats, and those sat out too long
        start_or_schedule(peer, round_.table)
        return
    round_.decision_deadline = timezone.now() + action_time(round_.table)
    round_.save(update_fields=[*fields, "decision_deadline"])
    for seating in seats:
        if seating.status == SeatStatus.LEAVING and not seat_in_hand(hand, seating):
            cash_out(seating, by=None)
    peer.carry_on(round_, hand, actor=actor)
