"""Seven-card stud tables: seats bought in from the wallet, hands that start by themselves, every
chip through the ledger, and timers for players who do not act (ST-1..ST-13).

Seats, buy-in and cash-out and the ledger transaction of each event are the peer tables'
(games.services.peer_tables), shared with Drawmaha.

Every write runs in one database transaction under a row lock on the table, so the seats, the
hand's engine state, its history and the ledger commit together: a hand survives a restart
exactly where it was, and the next touch (a request, the timer, the sweeper) carries it on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.engine import fairness, stud
from games.engine.betting import WAGERS, Action, ActionKind, Rake
from games.engine.common import Event, RuleViolation
from games.engine.dealer import Deck
from games.models import Game, Round, RoundStatus, Seat, SeatStatus, Table, TableLimits, TableStatus
from games.services import peer_tables
from games.services.peer_tables import from_cents as from_cents  # stud's money, for its callers
from games.services.rounds import RoundRefused

if TYPE_CHECKING:
    from django.contrib.auth.models import User

ACTIONS = tuple(kind.value for kind in ActionKind)
# Events the service writes around the engine's own: not replayed, but kept in the history.
HAND_OPENED, TIMED_OUT, LEFT_TABLE = "hand_opened", "timed_out", "left_table"
SERVICE_EVENTS = frozenset({HAND_OPENED, TIMED_OUT, LEFT_TABLE})
FORCED = frozenset({"ante"})  # forced bets into the pot before any decision (ST-2)
RULE = "ST-1"  # seats, buy-ins and who may act at the table


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


def engine_table(limits: TableLimits) -> stud.StudTable:
    """The engine's view of a stud table's approved limits (ST-1, ST-13)."""
    amounts = (limits.ante, limits.bring_in, limits.small_bet, limits.big_bet)
    ante, bring_in, small_bet, big_bet = (peer_tables.to_cents(cast(Decimal, a)) for a in amounts)
    rake = Rake(
        Decimal(limits.rake_percent or 0),
        None if limits.rake_cap is None else peer_tables.to_cents(limits.rake_cap),
    )
    return stud.StudTable(ante, bring_in, small_bet, big_bet, rake)


# Seats -------------------------------------------------------------------------------------------


def join(*, player: User, table: Table, seat: int, buy_in: Decimal) -> Seat:
    """Sit down at ``seat`` with ``buy_in`` from the wallet (ST-1: up to the table's seats)."""
    return peer_tables.join(
        player=player,
        table=table,
        seat=seat,
        buy_in=buy_in,
        game=Game.SEVEN_CARD_STUD,
        rule=RULE,
        start=_start_or_schedule,
    )


def leave(*, player: User, table: Table) -> Seat:
    """Stand up; in a hand the player's hand is dead (see ``peer_tables.leave``)."""
    return peer_tables.leave(
        player=player, table=table, rule=RULE, load_hand=Hand.from_json, carry_on=_carry_on
    )


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
        peer_tables.locked_table(table.pk, rule=RULE)
        seating = peer_tables.own_seat(player, table, rule=RULE)
        round_ = peer_tables.running_hand(table)
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
            chips = peer_tables.to_cents(amount)
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
        table = peer_tables.locked_table(table_id, rule=RULE)
        round_ = peer_tables.running_hand(table)
        if round_ is None:
            _start_or_schedule(table)
            return
        timeout = peer_tables.action_time(table)
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
            peer_tables.record(round_, [Event(TIMED_OUT, {"seat": seat})], actor=None)
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
    if table.status != TableStatus.OPEN or peer_tables.running_hand(table) is not None:
        return
    ready = peer_tables.ready_seats(table)
    if len(ready) < stud.MIN_PLAYERS:
        return
    due = peer_tables.next_hand_at(table, ready, settings.STUD_HAND_PAUSE_SECONDS)
    if due > timezone.now():
        _schedule(table.pk, due)
        return
    _deal(table, ready[: stud.MAX_PLAYERS])


def _deal(table: Table, ready: Sequence[Seat]) -> Round:
    """Commit to a shuffle (FS-2), take the antes and deal third street (ST-2)."""
    limits = cast(TableLimits, table.active_limits())
    server_seed = fairness.new_server_seed()
    client_seed = fairness.new_server_seed()[:16]
    nonce = peer_tables.next_nonce(table)
    deck = Deck.shuffled(server_seed, client_seed, nonce)
    stacks = [peer_tables.to_cents(seating.chips) for seating in ready]
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
    peer_tables.record(round_, [Event(HAND_OPENED, opened)], actor=None)
    _after_events(round_, hand, events, actor=None)
    return round_


def _apply(round_: Round, hand: Hand, action: Action, *, actor: User | None) -> None:
    try:
        state, events = stud.apply(hand.state, action)
    except RuleViolation as refused:
        raise peer_tables.refusal(refused, hand.seats) from None
    _after_events(round_, Hand(state, hand.seats, hand.players), events, actor=actor)


def _after_events(
    round_: Round, hand: Hand, events: Sequence[Event], *, actor: User | None
) -> None:
    """Record the events and carry the hand on (``peer_tables.after_events``)."""
    peer_tables.after_events(
        round_,
        hand,
        events,
        actor=actor,
        forced=FORCED,
        hand_over=hand.state.street == stud.Street.OVER,
        start_next=_start_or_schedule,
        carry_on=_carry_on,
    )


def _carry_on(round_: Round, hand: Hand, *, actor: User | None) -> None:
    """A player who left acts by default at once; otherwise wait, with a timer."""
    seat = hand.state.to_act
    if seat is None:
        return
    number = hand.seats[seat]
    if peer_tables.is_leaving(round_, number):
        # A player who leaves has a dead hand: folded at the turn, even when a check is free.
        # Only a forced bring-in (ST-3) or a showdown (cards speak, ST-11) goes by default.
        peer_tables.record(round_, [Event(LEFT_TABLE, {"seat": seat})], actor=actor)
        legal = {option.kind for option in stud.legal_actions(hand.state)}
        choice = ActionKind.FOLD if legal & {ActionKind.CHECK, ActionKind.FOLD} else None
        _apply(round_, hand, Action(seat, choice or _default_choice(hand.state)), actor=actor)
    else:
        _schedule(round_.table_id, cast(datetime, round_.decision_deadline))


# Internals ---------------------------------------------------------------------------------------


def _schedule(table_id: int, when: datetime) -> None:
    from games.tasks import catch_up_stud_table

    peer_tables.schedule(table_id, when, catch_up_stud_table)
