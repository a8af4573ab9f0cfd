"""Seven-card stud tables: seats bought in from the wallet, hands that start by themselves, every
chip through the ledger, and timers for players who do not act (ST-1..ST-13).

Chips at a table are the players' money held by the house (the TABLE_CHIPS account); a seat's
stack is its share. A bet moves chips from TABLE_CHIPS into the pot (STAKES_IN_PLAY); an award
moves the pot back to the winners' stacks and the rake to RAKE; one ledger transaction per
event of the hand history, referenced by the event, so none is ever posted twice.

Every write runs in one database transaction under a row lock on the table, so the seats, the
hand's engine state, its history and the ledger commit together: a hand survives a restart
exactly where it was, and the next touch (a request, the timer, the sweeper) carries it on.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from games.engine import fairness, stud
from games.engine.betting import WAGERS, Action, ActionKind, Rake
from games.engine.common import Event, RuleViolation
from games.engine.dealer import Deck
from games.models import (
    Game,
    Round,
    RoundEvent,
    RoundStatus,
    Seat,
    SeatStatus,
    Table,
    TableLimits,
    TableStatus,
)
from games.services.rounds import RoundRefused, limits_in_force
from payouts.models import CENT, Account, AccountKind, TransactionKind
from payouts.services import Posting, Transfer, house_account, post_transactions, wallet

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

ACTIONS = tuple(kind.value for kind in ActionKind)
# Events the service writes around the engine's own: not replayed, but kept in the history.
HAND_OPENED, TIMED_OUT, LEFT_TABLE = "hand_opened", "timed_out", "left_table"
SERVICE_EVENTS = frozenset({HAND_OPENED, TIMED_OUT, LEFT_TABLE})


@dataclass(frozen=True)
class Hand:
    """A hand as stored in ``Round.engine_state``: the engine state and, by engine seat (seat 0
    is the dealer's left, ST-2), the table seat numbers and the players in them."""

    state: stud.StudState
    seats: tuple[int, ...]
    players: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": list(self.seats),
            "players": list(self.players),
            "state": stud.to_json(self.state),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hand:
        return cls(stud.from_json(data["state"]), tuple(data["seats"]), tuple(data["players"]))


def to_cents(amount: Decimal) -> int:
    """Money to the engine's integer minor units, exactly (a fraction of a cent is an error)."""
    value = amount / CENT
    if value != value.to_integral_value():
        raise ValueError(f"{amount} is not a whole number of cents")
    return int(value)


def from_cents(minor_units: int) -> Decimal:
    return (Decimal(minor_units) * CENT).quantize(CENT)


def engine_table(limits: TableLimits) -> stud.StudTable:
    """The engine's view of a stud table's approved limits (ST-1, ST-13)."""
    amounts = (limits.ante, limits.bring_in, limits.small_bet, limits.big_bet)
    ante, bring_in, small_bet, big_bet = (to_cents(cast(Decimal, a)) for a in amounts)
    rake = Rake(
        Decimal(limits.rake_percent or 0),
        None if limits.rake_cap is None else to_cents(limits.rake_cap),
    )
    return stud.StudTable(ante, bring_in, small_bet, big_bet, rake)


# Seats -------------------------------------------------------------------------------------------


def join(*, player: User, table: Table, seat: int, buy_in: Decimal) -> Seat:
    """Sit down at ``seat`` with ``buy_in`` from the wallet (ST-1: up to the table's seats)."""
    limits = limits_in_force(table, game=Game.SEVEN_CARD_STUD, rule="ST-1")
    seats = cast(int, limits.seats)
    if not 1 <= seat <= seats:
        raise RoundRefused(f"Seats are numbered 1 to {seats}.", field="seat", rule="ST-1")
    low, high = cast(Decimal, limits.buy_in_min), cast(Decimal, limits.buy_in_max)
    if not low <= buy_in <= high:
        raise RoundRefused(f"The buy-in must be from {low} to {high}.", field="buy_in", rule="ST-1")
    with transaction.atomic():
        table = _locked_table(table.pk, open_only=True)
        taken = Seat.objects.filter(table=table).exclude(status=SeatStatus.LEFT)
        if taken.filter(player=player).exists():
            raise RoundRefused(
                "You already have a seat at this table.", field="seat", rule="ST-1", status=409
            )
        if taken.filter(number=seat).exists():
            raise RoundRefused(f"Seat {seat} is taken.", field="seat", rule="ST-1", status=409)
        seating = Seat.objects.create(table=table, number=seat, player=player, chips=buy_in)
        post_transactions(
            [
                Transfer(
                    kind=TransactionKind.STAKE,
                    postings=[
                        Posting(wallet(player, table.currency), -buy_in),
                        Posting(_table_chips(table), buy_in),
                    ],
                    reason=f"{seating}: buy-in",
                    created_by=player,
                    reference=f"seat:{seating.pk}:buy-in",
                )
            ]
        )
        _start_or_schedule(table)
    return seating


def leave(*, player: User, table: Table) -> Seat:
    """Stand up: the stack goes back to the wallet. In a hand the player's hand is dead: folded
    when the turn comes, and the stack cashed out once the cards are no longer live."""
    with transaction.atomic():
        _locked_table(table.pk)
        seating = _own_seat(player, table)
        round_ = _running_hand(table)
        hand = Hand.from_json(round_.engine_state) if round_ else None
        if hand is not None and round_ is not None and _in_hand(hand, seating.number):
            seating.status = SeatStatus.LEAVING
            seating.save(update_fields=["status"])
            _carry_on(round_, hand, actor=player)
            seating.refresh_from_db()
        else:
            _cash_out(seating, by=player)
    return seating


def _cash_out(seating: Seat, *, by: User | None) -> None:
    table = seating.table
    if seating.chips:
        post_transactions(
            [
                Transfer(
                    kind=TransactionKind.SETTLEMENT,
                    postings=[
                        Posting(_table_chips(table), -seating.chips),
                        Posting(wallet(seating.player, table.currency), seating.chips),
                    ],
                    reason=f"{seating}: cash-out",
                    created_by=by,
                    reference=f"seat:{seating.pk}:cash-out",
                )
            ]
        )
    seating.chips = Decimal("0.00")
    seating.status = SeatStatus.LEFT
    seating.left_at = timezone.now()
    seating.save(update_fields=["chips", "status", "left_at"])


# Acting ------------------------------------------------------------------------------------------


def act(
    *,
    player: User,
    table: Table,
    action: str,
    amount: Decimal | None = None,
    catch_up_first: bool = True,
) -> Round:
    """The player's decision in the running hand. Overdue decisions are taken first, in a
    transaction of their own (an idempotent request does that before entering its own and
    passes ``catch_up_first=False``)."""
    if catch_up_first:
        catch_up(table.pk)
    if action not in ACTIONS:
        raise RoundRefused(
            f"action must be one of {', '.join(ACTIONS)}.", field="action", rule="ST-1"
        )
    with transaction.atomic():
        _locked_table(table.pk)
        seating = _own_seat(player, table)
        round_ = _running_hand(table)
        if round_ is None:
            raise RoundRefused("No hand is being played.", field="action", rule="ST-2", status=409)
        hand = Hand.from_json(round_.engine_state)
        if seating.number not in hand.seats:
            raise RoundRefused("You are not in this hand.", field="action", rule="ST-2")
        seat = hand.seats.index(seating.number)
        kind = ActionKind(action)
        chips = None
        if amount is not None:
            if kind not in WAGERS:
                raise RoundRefused(f"{action} takes no amount.", field="amount", rule="ST-1")
            chips = to_cents(amount)
        _apply(round_, hand, Action(seat, kind, chips), actor=player)
    return round_


def catch_up(table_id: int) -> None:
    """Take the decisions whose time ran out and start a hand that is due: the timer tasks, the
    sweeper and every request touching the table run this, so nothing waits on a lost timer."""
    running = Round.objects.filter(
        table_id=table_id, table__game=Game.SEVEN_CARD_STUD, status=RoundStatus.DECIDING
    )
    if running.exists():
        due = running.filter(decision_deadline__lte=timezone.now()).exists()
    else:
        ready = Seat.objects.filter(table_id=table_id, status=SeatStatus.SEATED, chips__gt=0)
        due = ready.count() >= stud.MIN_PLAYERS
    if not due:  # the common case: a hand on time, or nobody to deal to; nothing to lock
        return
    with transaction.atomic():
        table = _locked_table(table_id)
        round_ = _running_hand(table)
        if round_ is None:
            _start_or_schedule(table)
            return
        timeout = _action_time(table)
        now = timezone.now()
        while (
            round_.status == RoundStatus.DECIDING
            and round_.decision_deadline is not None
            and round_.decision_deadline <= now
        ):
            hand = Hand.from_json(round_.engine_state)
            seat = hand.state.to_act
            if seat is None:
                return
            deadline = round_.decision_deadline
            _record(round_, [Event(TIMED_OUT, {"seat": seat})], actor=None)
            _apply(round_, hand, Action(seat, _default_choice(hand.state)), actor=None)
            if round_.status == RoundStatus.DECIDING:
                # Each player has a full action time, counted from the previous deadline.
                round_.decision_deadline = deadline + timeout
                round_.save(update_fields=["decision_deadline"])


def _default_choice(state: stud.StudState) -> ActionKind:
    """What a player who does not act does: checks if free, else folds; a forced bring-in is
    brought in (ST-3) and a hand at the showdown is shown (cards speak, ST-11)."""
    legal = {option.kind for option in stud.legal_actions(state)}
    return next(
        kind
        for kind in (ActionKind.CHECK, ActionKind.FOLD, ActionKind.BRING_IN, ActionKind.SHOW)
        if kind in legal
    )


# Hands -------------------------------------------------------------------------------------------


def _start_or_schedule(table: Table) -> None:
    """Deal a hand if two seated players have chips and the pause after the last hand (or the
    last player sitting down) is over; else, if one is coming, set a timer for it."""
    if table.status != TableStatus.OPEN or _running_hand(table) is not None:
        return
    ready = list(
        Seat.objects.filter(table=table, status=SeatStatus.SEATED, chips__gt=0)
        .select_related("player")
        .order_by("number")
    )
    if len(ready) < stud.MIN_PLAYERS:
        return
    due = _next_hand_at(table, ready)
    if due > timezone.now():
        _schedule(table.pk, due)
        return
    _deal(table, ready[: stud.MAX_PLAYERS])


def _next_hand_at(table: Table, ready: Sequence[Seat]) -> datetime:
    last = Round.objects.filter(table=table).aggregate(last=Max("settled_at"))["last"]
    latest = max([seating.joined_at for seating in ready] + ([last] if last else []))
    return latest + timedelta(seconds=settings.STUD_HAND_PAUSE_SECONDS)


def _deal(table: Table, ready: Sequence[Seat]) -> Round:
    """Commit to a shuffle (FS-2), take the antes and deal third street (ST-2)."""
    limits = cast(TableLimits, table.active_limits())
    server_seed = fairness.new_server_seed()
    client_seed = fairness.new_server_seed()[:16]
    nonce = (Round.objects.filter(table=table).aggregate(last=Max("nonce"))["last"] or 0) + 1
    deck = Deck.shuffled(server_seed, client_seed, nonce)
    stacks = [to_cents(seating.chips) for seating in ready]
    state, events = stud.start_hand(engine_table(limits), stacks, deck)
    hand = Hand(
        state,
        tuple(seating.number for seating in ready),
        tuple(seating.player_id for seating in ready),
    )
    round_ = Round.objects.create(
        table=table,
        nonce=nonce,
        commitment=fairness.commitment(server_seed),
        server_seed=server_seed,
        client_seed=client_seed,
        engine_state=hand.to_json(),
    )
    opened = {
        "table": table.pk,
        "nonce": nonce,
        "commitment": round_.commitment,
        "client_seed": client_seed,
        "limits_version": limits.number,
        "seats": list(hand.seats),
        "players": [seating.player.username for seating in ready],
        "starting_stacks": stacks,
    }
    _record(round_, [Event(HAND_OPENED, opened)], actor=None)
    _after_events(round_, hand, events, actor=None)
    return round_


def _apply(round_: Round, hand: Hand, action: Action, *, actor: User | None) -> None:
    try:
        state, events = stud.apply(hand.state, action)
    except RuleViolation as refused:
        raise RoundRefused(refused.message, field=refused.field, rule=refused.rule) from None
    _after_events(round_, Hand(state, hand.seats, hand.players), events, actor=actor)


def _after_events(
    round_: Round, hand: Hand, events: Sequence[Event], *, actor: User | None
) -> None:
    """Record the events, move their chips through the ledger, update the stacks, then let the
    hand carry on (players who left act by default, a finished hand is settled)."""
    start = round_.history_length
    transfers = [
        transfer
        for number, event in enumerate(events, start=start)
        if (transfer := _chips_moved(round_, number, event, actor)) is not None
    ]
    _record(round_, events, actor=actor)
    round_.engine_state = hand.to_json()
    # By (seat number, player): a seat left during the hand may already have a new player.
    seats = {
        (seating.number, seating.player_id): seating
        for seating in Seat.objects.filter(table_id=round_.table_id, number__in=hand.seats)
        .exclude(status=SeatStatus.LEFT)
        .select_related("player", "table")
    }
    for number, player, chips in zip(hand.seats, hand.players, hand.state.chips, strict=True):
        if (number, player) in seats:  # else cashed out once folded; the stack moves no more
            seats[number, player].chips = from_cents(chips.stack)
    Seat.objects.bulk_update(seats.values(), ["chips"])
    post_transactions(transfers)  # after the stacks: both in one transaction, ledger last
    fields = ["engine_state", "history_length"]
    if hand.state.street == stud.Street.OVER:
        round_.status = RoundStatus.SETTLED
        round_.settled_at = timezone.now()
        round_.decision_deadline = None
        round_.save(update_fields=[*fields, "status", "settled_at", "decision_deadline"])
        for seating in seats.values():
            if seating.status == SeatStatus.LEAVING:
                _cash_out(seating, by=None)
        _start_or_schedule(round_.table)
        return
    round_.decision_deadline = timezone.now() + _action_time(round_.table)
    round_.save(update_fields=[*fields, "decision_deadline"])
    for seating in seats.values():
        if seating.status == SeatStatus.LEAVING and not _in_hand(hand, seating.number):
            _cash_out(seating, by=None)
    _carry_on(round_, hand, actor=actor)


def _carry_on(round_: Round, hand: Hand, *, actor: User | None) -> None:
    """A player who left acts by default at once; otherwise wait, with a timer."""
    seat = hand.state.to_act
    if seat is None:
        return
    number = hand.seats[seat]
    leaving = Seat.objects.filter(
        table_id=round_.table_id, number=number, status=SeatStatus.LEAVING
    ).exists()
    if leaving:
        # A player who leaves has a dead hand: folded at the turn, even when a check is free.
        # Only a forced bring-in (ST-3) or a showdown (cards speak, ST-11) goes by default.
        _record(round_, [Event(LEFT_TABLE, {"seat": seat})], actor=actor)
        legal = {option.kind for option in stud.legal_actions(hand.state)}
        choice = ActionKind.FOLD if legal & {ActionKind.CHECK, ActionKind.FOLD} else None
        _apply(round_, hand, Action(seat, choice or _default_choice(hand.state)), actor=actor)
    else:
        _schedule(round_.table_id, cast(datetime, round_.decision_deadline))


def _chips_moved(round_: Round, number: int, event: Event, actor: User | None) -> Transfer | None:
    """The ledger transaction of one event: antes and wagers into the pot, uncalled bets and
    pots back to the stacks, the rake to the house (ST-13)."""
    data = event.data
    table = round_.table
    chips, pot = _table_chips(table), house_account(AccountKind.STAKES_IN_PLAY, table.currency)
    if event.kind == "ante" or (event.kind in WAGERS and data.get("added")):
        amount = from_cents(data["amount"] if event.kind == "ante" else data["added"])
        kind, postings = TransactionKind.STAKE, [Posting(chips, -amount), Posting(pot, amount)]
    elif event.kind in ("uncalled_bet_returned", "pot_awarded") and data["amount"]:
        amount = from_cents(data["amount"])
        kind, postings = TransactionKind.SETTLEMENT, [Posting(pot, -amount), Posting(chips, amount)]
    elif event.kind == "rake" and data["amount"]:
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


# Internals ---------------------------------------------------------------------------------------


def _locked_table(table_id: int, *, open_only: bool = False) -> Table:
    table = Table.objects.select_for_update(no_key=True).get(pk=table_id)
    if open_only and table.status != TableStatus.OPEN:
        raise RoundRefused(f"{table} is closed.", field="table", rule="ST-1", status=409)
    return table


def _own_seat(player: User, table: Table) -> Seat:
    seating = (
        Seat.objects.select_related("table", "player")
        .filter(table=table, player=player, status=SeatStatus.SEATED)
        .first()
    )
    if seating is None:
        raise RoundRefused(
            "You have no seat at this table.", field="table", rule="ST-1", status=409
        )
    return seating


def _running_hand(table: Table) -> Round | None:
    return (
        Round.objects.select_related("table")
        .filter(table=table, status=RoundStatus.DECIDING)
        .first()
    )


def _in_hand(hand: Hand, number: int) -> bool:
    """Whether the seat still holds live cards in the hand."""
    return number in hand.seats and hand.seats.index(number) in hand.state.in_hand


def _table_chips(table: Table) -> Account:
    return house_account(AccountKind.TABLE_CHIPS, table.currency)


def _action_time(table: Table) -> timedelta:
    limits = table.active_limits()
    return timedelta(seconds=limits.action_timeout_seconds or 0 if limits else 0)


def _record(round_: Round, events: Sequence[Event], *, actor: User | None) -> None:
    """Append events to the hand history."""
    start = round_.history_length
    RoundEvent.objects.bulk_create(
        RoundEvent(round=round_, sequence=start + n, kind=event.kind, data=event.data, actor=actor)
        for n, event in enumerate(events)
    )
    round_.history_length = start + len(events)


def _schedule(table_id: int, when: datetime) -> None:
    """Ask a worker to catch the table up at ``when``. If the broker is down the decision or the
    deal still happens: the sweeper and the next touch of the table run the same check."""
    from games.tasks import catch_up_stud_table

    def send() -> None:
        try:
            catch_up_stud_table.apply_async((table_id,), eta=when)
        except Exception:  # the broker being down must not fail a committed hand
            logger.warning("could not schedule the timer of table %s", table_id, exc_info=True)

    transaction.on_commit(send)
