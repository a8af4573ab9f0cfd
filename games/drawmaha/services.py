"""Drawmaha (Sviten Special) tables: seats bought in from the wallet, hands that start by
themselves with the button moving each hand, every chip through the ledger, and timers for
players who do not act (DM-1..DM-12).

Seats, buy-in and cash-out, the table lock, the ledger transaction of each event, dealing,
timers and the catch-up are the peer tables' (games.peer.services), shared with
seven-card stud, to which this module describes the game (``GAME``); so is the shape of a
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
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django.db import transaction

from games.engine import drawmaha
from games.engine.betting import WAGERS, Action, ActionKind, Rake
from games.engine.cards import Card, parse_card
from games.engine.common import Event
from games.engine.dealer import Deck
from games.engine.drawmaha import DrawAction, DrawChoice
from games.models import Game, Round, Seat, Table, TableLimits
from games.peer import services as peer_tables
from games.peer.services import SERVICE_EVENTS as SERVICE_EVENTS  # for the hand's readers
from games.peer.services import to_cents
from games.tables.rounds import RoundRefused

if TYPE_CHECKING:
    from django.contrib.auth.models import User

BETTING = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET, ActionKind.RAISE)
DRAW_CHOICES = tuple(choice.value for choice in DrawChoice)
ACTIONS = tuple(kind.value for kind in BETTING) + DRAW_CHOICES
FORCED = frozenset({"small_blind", "big_blind"})  # DM-1: into the pot before any decision
RULE = "DM-1"  # seats, buy-ins and who may act at the table


@dataclass(frozen=True)
class Hand:
    """A hand as stored in ``Round.engine_state``: the engine state and, by engine seat (table
    seats in clockwise order), the table seat numbers, the players in them and the ids of their
    sittings (a ``Seat`` row: a player who sits down again is a new sitting)."""

    state: drawmaha.DrawmahaState
    seats: tuple[int, ...]
    players: tuple[int, ...]
    seat_ids: tuple[int, ...]

    @property
    def button(self) -> int:
        """The table seat number of the button."""
        return self.seats[self.state.button]

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": list(self.seats),
            "players": list(self.players),
            "seat_ids": list(self.seat_ids),
            "state": drawmaha.to_json(self.state),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hand:
        return cls(
            drawmaha.from_json(data["state"]),
            tuple(data["seats"]),
            tuple(data["players"]),
            # Hands settled before seats were told apart by sitting have none; no stack of
            # theirs moves any more.
            tuple(data.get("seat_ids", ())),
        )


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
    return peer_tables.join(GAME, player=player, table=table, seat=seat, buy_in=buy_in)


def leave(*, player: User, table: Table) -> Seat:
    """Stand up; in a hand the player's hand is dead (see ``peer_tables.leave``)."""
    return peer_tables.leave(GAME, player=player, table=table)


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
        round_, hand, seat = peer_tables.hand_to_act(GAME, player, table)
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
        peer_tables.play(GAME, round_, hand, decision, actor=player)
    return round_


def _parse_cards(cards: Sequence[str]) -> tuple[Card, ...]:
    try:
        return tuple(parse_card(card) for card in cards)
    except ValueError:
        raise RoundRefused(
            "cards are written rank then suit, such as As or Td.", field="cards", rule="DM-5"
        ) from None


def catch_up(table_id: int) -> None:
    """Take the overdue decisions and start a hand that is due (``peer_tables.catch_up``)."""
    peer_tables.catch_up(GAME, table_id)


def _default_decision(state: drawmaha.DrawmahaState, seat: int) -> Action | DrawAction:
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


def _next_button(table: Table, ready: Sequence[Seat]) -> int:
    """DM-1: the button moves one seat clockwise each hand, to the next player dealt in after
    the last hand's button; the first hand's button is the lowest seat dealt in."""
    last = Round.objects.filter(table=table).order_by("-nonce").first()
    numbers = [seating.number for seating in ready]
    if last is None:
        return 0
    previous = Hand.from_json(last.engine_state).button
    return next((n for n, number in enumerate(numbers) if number > previous), 0)


def _deal(table: Table, ready: Sequence[Seat]) -> Round:
    """Post the blinds and deal the hands (DM-1, DM-2) from a committed shuffle (FS-2)."""
    button = _next_button(table, ready)

    def start(
        limits: TableLimits, stacks: list[int], deck: Deck
    ) -> tuple[drawmaha.DrawmahaState, list[Event]]:
        return drawmaha.start_hand(engine_table(limits), stacks, button, deck)

    return peer_tables.open_hand(GAME, table, ready, start, button=button)


def _carry_on(round_: Round, hand: Hand, *, actor: User | None) -> None:
    """A player who left acts by default at once; otherwise wait, with a timer."""
    seat = peer_tables.leaver_to_act(GAME, round_, hand, actor=actor)
    if seat is None:
        return
    # A dead hand folds at its turn even when a check is free; in the draw it cannot fold
    # (DM-5) and goes by default until the next betting round.
    choice = _default_decision(hand.state, seat)
    if isinstance(choice, Action):
        choice = Action(seat, ActionKind.FOLD)
    peer_tables.play(GAME, round_, hand, choice, actor=actor)


# The game for the shared peer-table functions; last, as it names the functions above.
GAME = peer_tables.PeerGame(
    game=Game.DRAWMAHA,
    rule=RULE,
    deal_rule="DM-2",
    min_players=drawmaha.MIN_PLAYERS,
    max_players=drawmaha.MAX_PLAYERS,
    pause_setting="DRAWMAHA_HAND_PAUSE_SECONDS",
    timer_task="catch_up_drawmaha_table",
    forced=FORCED,
    load_hand=Hand.from_json,
    new_hand=Hand,
    hand_over=lambda hand: hand.state.street == drawmaha.Street.OVER,
    deal=_deal,
    default_decision=_default_decision,
    play=drawmaha.apply,
    carry_on=_carry_on,
)
