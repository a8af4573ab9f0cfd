"""Drawmaha (Sviten Special) tables: seats bought in from the wallet, hands that start by
themselves with the button moving each hand, every chip through the ledger, and timers for
players who do not act (DM-1..DM-12).

Seats, buy-in and cash-out, the table lock and the ledger transaction of each event are the
peer tables' (games.services.peer_tables), shared with seven-card stud; so is the shape of a
hand's life: every write runs in one database transaction under a row lock on the table, so the
seats, the engine state, the history and the ledger commit together and a hand survives a
restart exactly where it was; the next touch (a request, the timer, the sweeper) carries it on.

A player who does not act in time checks if that is free, else folds; in the draw they stand pat
(an exchange of no cards, the choice that changes nothing) and a twist card shown to them is
taken (the choice that deals no further card). A player who leaves has a dead hand: folded at
the next betting turn; in the draw, where nobody folds (DM-5), they stand pat and take the twist.
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

from games.engine import drawmaha, fairness
from games.engine.betting import WAGERS, Action, ActionKind, Rake
from games.engine.cards import Card, parse_card
from games.engine.common import Event, RuleViolation
from games.engine.dealer import Deck
from games.engine.drawmaha import DrawAction, DrawChoice
from games.models import Game, Round, RoundStatus, Seat, SeatStatus, Table, TableLimits, TableStatus
from games.services import peer_tables
from games.services.peer_tables import to_cents
from games.services.rounds import RoundRefused

if TYPE_CHECKING:
    from django.contrib.auth.models import User

BETTING = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET, ActionKind.RAISE)
DRAW_CHOICES = tuple(choice.value for choice in DrawChoice)
ACTIONS = tuple(kind.value for kind in BETTING) + DRAW_CHOICES
# Events the service writes around the engine's own: not replayed, but kept in the history.
HAND_OPENED, TIMED_OUT, LEFT_TABLE = "hand_opened", "timed_out", "left_table"
SERVICE_EVENTS = frozenset({HAND_OPENED, TIMED_OUT, LEFT_TABLE})
FORCED = frozenset({"small_blind", "big_blind"})  # DM-1: into the pot before any decision
RULE = "DM-1"  # seats, buy-ins and who may act at the table


@dataclass(frozen=True)
class Hand:
    """A hand as stored in ``Round.engine_state``: the engine state and, by engine seat (table
    seats in clockwise order), the table seat numbers and the players in them."""

    state: drawmaha.DrawmahaState
    seats: tuple[int, ...]
    players: tuple[int, ...]

    @property
    def button(self) -> int:
        """The table seat number of the button."""
        return self.seats[self.state.button]

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": list(self.seats),
            "players": list(self.players),
            "state": drawmaha.to_json(self.state),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hand:
        return cls(drawmaha.from_json(data["state"]), tuple(data["seats"]), tuple(data["players"]))


def engine_table(limits: TableLimits) -> drawmaha.DrawmahaTable:
    """The engine's view of a Drawmaha table's approved limits (DM-1, DM-5, DM-12)."""
    rake = Rake(
        Decimal(limits.rake_percent or 0),
        None if limits.rake_cap is None else to_cents(limits.rake_cap),
    )
    return drawmaha.DrawmahaTable(
        to_cents(cast(Decimal, limits.small_blind)),
        to_cents(cast(Decimal, limits.big_blind)),
        rake,
        draw_limit=bool(limits.draw_limit),
    )


# Seats -------------------------------------------------------------------------------------------


def join(*, player: User, table: Table, seat: int, buy_in: Decimal) -> Seat:
    """Sit down at ``seat`` with ``buy_in`` from the wallet (DM-1: up to the table's seats)."""
    return peer_tables.join(
        player=player,
        table=table,
        seat=seat,
        buy_in=buy_in,
        game=Game.DRAWMAHA,
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
    cards: Sequence[str] = (),
    catch_up_first: bool = True,
) -> Round:
    """The player's decision in the running hand: a bet, the draw's exchange of ``cards``
    (DM-5) or the twist's take or reject (DM-6). Overdue decisions are taken first, in a
    transaction of their own (an idempotent request does that before entering its own and
    passes ``catch_up_first=False``)."""
    if catch_up_first:
        catch_up(table.pk)
    if action not in ACTIONS:
        raise RoundRefused(
            f"action must be one of {', '.join(ACTIONS)}.", field="action", rule=RULE
        )
    if cards and action != DrawChoice.EXCHANGE:
        raise RoundRefused(f"{action} takes no cards.", field="cards", rule="DM-5")
    with transaction.atomic():
        peer_tables.locked_table(table.pk, rule=RULE)
        seating = peer_tables.own_seat(player, table, rule=RULE)
        round_ = peer_tables.running_hand(table)
        if round_ is None:
            raise RoundRefused("No hand is being played.", field="action", rule="DM-2", status=409)
        hand = Hand.from_json(round_.engine_state)
        if seating.number not in hand.seats:
            raise RoundRefused("You are not in this hand.", field="action", rule="DM-2")
        seat = hand.seats.index(seating.number)
        decision: Action | DrawAction
        if action in DRAW_CHOICES:
            if amount is not None:
                raise RoundRefused(f"{action} takes no amount.", field="amount", rule="DM-5")
            decision = DrawAction(seat, DrawChoice(action), _parse_cards(cards))
        else:
            kind = ActionKind(action)
            chips = None
            if amount is not None:
                if kind not in WAGERS:
                    raise RoundRefused(f"{action} takes no amount.", field="amount", rule="DM-9")
                chips = to_cents(amount)
            decision = Action(seat, kind, chips)
        _apply(round_, hand, decision, actor=player)
    return round_


def _parse_cards(cards: Sequence[str]) -> tuple[Card, ...]:
    try:
        return tuple(parse_card(card) for card in cards)
    except ValueError:
        raise RoundRefused(
            "cards are written rank then suit, such as As or Td.", field="cards", rule="DM-5"
        ) from None


def catch_up(table_id: int) -> None:
    """Take the decisions whose time ran out and start a hand that is due: the timer tasks, the
    sweeper and every request touching the table run this, so nothing waits on a lost timer."""
    running = Round.objects.filter(
        table_id=table_id, table__game=Game.DRAWMAHA, status=RoundStatus.DECIDING
    )
    if running.exists():
        due = running.filter(decision_deadline__lte=timezone.now()).exists()
    else:
        ready = Seat.objects.filter(table_id=table_id, status=SeatStatus.SEATED, chips__gt=0)
        due = ready.count() >= drawmaha.MIN_PLAYERS
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
            _apply(round_, hand, _default_choice(hand.state, seat), actor=None)
            if round_.status == RoundStatus.DECIDING:
                # Each player has a full action time, counted from the previous deadline.
                round_.decision_deadline = deadline + timeout
                round_.save(update_fields=["decision_deadline"])


def _default_choice(state: drawmaha.DrawmahaState, seat: int) -> Action | DrawAction:
    """What a player who does not act does: checks if free, else folds; in the draw stands pat
    (DM-5) and takes a twist card shown (DM-6), so no card is dealt on the player's behalf."""
    if state.street == drawmaha.Street.DRAW:
        kinds = {option.kind for option in drawmaha.legal_actions(state)}
        return DrawAction(
            seat, DrawChoice.TAKE if DrawChoice.TAKE in kinds else DrawChoice.EXCHANGE
        )
    legal = {option.kind for option in drawmaha.legal_actions(state)}
    return Action(seat, ActionKind.CHECK if ActionKind.CHECK in legal else ActionKind.FOLD)


# Hands -------------------------------------------------------------------------------------------


def _start_or_schedule(table: Table) -> None:
    """Deal a hand if two seated players have chips and the pause after the last hand (or the
    last player sitting down) is over; else, if one is coming, set a timer for it."""
    if table.status != TableStatus.OPEN or peer_tables.running_hand(table) is not None:
        return
    ready = peer_tables.ready_seats(table)
    if len(ready) < drawmaha.MIN_PLAYERS:
        return
    due = peer_tables.next_hand_at(table, ready, settings.DRAWMAHA_HAND_PAUSE_SECONDS)
    if due > timezone.now():
        _schedule(table.pk, due)
        return
    ready = ready[: drawmaha.MAX_PLAYERS]
    _deal(table, ready, _next_button(table, ready))


def _next_button(table: Table, ready: Sequence[Seat]) -> int:
    """DM-1: the button moves one seat clockwise each hand, to the next player dealt in after
    the last hand's button; the first hand's button is the lowest seat dealt in."""
    last = Round.objects.filter(table=table).order_by("-nonce").first()
    numbers = [seating.number for seating in ready]
    if last is None:
        return 0
    previous = Hand.from_json(last.engine_state).button
    return next((n for n, number in enumerate(numbers) if number > previous), 0)


def _deal(table: Table, ready: Sequence[Seat], button: int) -> Round:
    """Commit to a shuffle (FS-2), post the blinds and deal the hands (DM-1, DM-2)."""
    limits = cast(TableLimits, table.active_limits())
    server_seed = fairness.new_server_seed()
    client_seed = fairness.new_server_seed()[:16]
    nonce = peer_tables.next_nonce(table)
    deck = Deck.shuffled(server_seed, client_seed, nonce)
    stacks = [to_cents(seating.chips) for seating in ready]
    state, events = drawmaha.start_hand(engine_table(limits), stacks, button, deck)
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
        "button": button,
        "starting_stacks": stacks,
    }
    peer_tables.record(round_, [Event(HAND_OPENED, opened)], actor=None)
    _after_events(round_, hand, events, actor=None)
    return round_


def _apply(round_: Round, hand: Hand, action: Action | DrawAction, *, actor: User | None) -> None:
    try:
        state, events = drawmaha.apply(hand.state, action)
    except RuleViolation as refused:
        raise peer_tables.refusal(refused, hand.seats) from None
    _after_events(round_, Hand(state, hand.seats, hand.players), events, actor=actor)


def _after_events(
    round_: Round, hand: Hand, events: Sequence[Event], *, actor: User | None
) -> None:
    """Record the events and carry the hand on (``peer_tables.after_events``): blinds and bets
    to the pot, the halves of each pot to their winners (DM-11) and the rake (DM-12)."""
    peer_tables.after_events(
        round_,
        hand,
        events,
        actor=actor,
        forced=FORCED,
        hand_over=hand.state.street == drawmaha.Street.OVER,
        start_next=_start_or_schedule,
        carry_on=_carry_on,
    )


def _carry_on(round_: Round, hand: Hand, *, actor: User | None) -> None:
    """A player who left acts by default at once; otherwise wait, with a timer."""
    seat = hand.state.to_act
    if seat is None:
        return
    if peer_tables.is_leaving(round_, hand.seats[seat]):
        # A dead hand folds at its turn even when a check is free; in the draw it cannot fold
        # (DM-5) and goes by default until the next betting round.
        peer_tables.record(round_, [Event(LEFT_TABLE, {"seat": seat})], actor=actor)
        choice = _default_choice(hand.state, seat)
        if isinstance(choice, Action):
            choice = Action(seat, ActionKind.FOLD)
        _apply(round_, hand, choice, actor=actor)
    else:
        _schedule(round_.table_id, cast(datetime, round_.decision_deadline))


def _schedule(table_id: int, when: datetime) -> None:
    from games.tasks import catch_up_drawmaha_table

    peer_tables.schedule(table_id, when, catch_up_drawmaha_table)
