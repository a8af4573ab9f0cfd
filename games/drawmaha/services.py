"""Drawmaha (Sviten Special) tables: seats bought in from the wallet, hands that start by
themselves with the button moving each hand, every chip through the ledger, and timers for
players who do not act (DM-1..DM-12).

Seats, buy-in and cash-out, the table lock, the ledger transaction of each event, dealing,
timers and the catch-up are the peer tables' (games.peer.services), shared with seven-card
stud; this module describes the game to them (``Drawmaha``), and games.drawmaha.tasks makes its
one instance, ``DRAWMAHA``, with the timer that catches its tables up. So is the shape of a
hand's life: every write runs in one database transaction under a row lock on the table, so the
seats, the engine state, the history and the ledger commit together and a hand survives a
restart exactly where it was; the timer (or the sweeper behind it) carries it on.

A player who does not act in time checks if that is free, else folds; in the draw they stand pat
(an exchange of no cards, the choice that changes nothing) and a twist card shown to them is
taken (the choice that deals no further card). A player who leaves has a dead hand: folded at
the next betting turn; in the draw, where nobody folds (DM-5), they stand pat and take the twist.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from games.drawmaha.hand import ACTIONS, DRAW_CHOICES, FORCED, Hand, engine_table
from games.engine import drawmaha
from games.engine.betting import WAGERS, Action, ActionKind
from games.engine.cards import Card, parse_card
from games.engine.common import Event
from games.engine.dealer import Deck
from games.engine.drawmaha import DrawAction, DrawChoice
from games.engine.rules import DrawmahaRule
from games.models import Game, Round, Seat, Table, TableLimits
from games.peer import services as peer_services
from games.peer.hands import PeerHand, to_cents
from games.tables.hand_names import action_name
from games.tables.rounds import RoundRefused

if TYPE_CHECKING:
    from django.contrib.auth.models import User

RULE = DrawmahaRule.TABLE  # seats, buy-ins and who may act at the table


class Drawmaha(peer_services.PeerGame[drawmaha.DrawmahaState, Action | DrawAction]):
    """Drawmaha as the shared peer-table functions see it, and a Drawmaha player's decisions."""

    game = Game.DRAWMAHA
    rule = RULE
    deal_rule = DrawmahaRule.DEAL
    min_players = drawmaha.MIN_PLAYERS
    max_players = drawmaha.MAX_PLAYERS
    forced = FORCED

    def pause_seconds(self) -> int:
        return settings.DRAWMAHA_HAND_PAUSE_SECONDS

    def load_hand(self, data: dict[str, Any]) -> Hand:
        return Hand.from_json(data)

    def folded_cards(self, hand: PeerHand[drawmaha.DrawmahaState], seat: int) -> tuple[Card, ...]:
        return hand.state.hands[seat]

    def new_hand(
        self,
        state: drawmaha.DrawmahaState,
        seats: tuple[int, ...],
        players: tuple[int, ...],
        seat_ids: tuple[int, ...],
    ) -> Hand:
        return Hand(state, seats, players, seat_ids)

    def hand_over(self, hand: PeerHand[drawmaha.DrawmahaState]) -> bool:
        return hand.state.street == drawmaha.Street.OVER

    def apply(
        self, state: drawmaha.DrawmahaState, decision: Action | DrawAction
    ) -> tuple[drawmaha.DrawmahaState, Sequence[Event]]:
        return drawmaha.apply(state, decision)

    def default_decision(self, state: drawmaha.DrawmahaState, seat: int) -> Action | DrawAction:
        """What a player who does not act does: checks if free, else folds; in the draw stands
        pat (DM-5) and takes a twist card shown (DM-6), so no card is dealt on the player's
        behalf."""
        if state.street == drawmaha.Street.DRAW:
            kinds = {option.kind for option in drawmaha.legal_actions(state)}
            return DrawAction(
                seat, DrawChoice.TAKE if DrawChoice.TAKE in kinds else DrawChoice.EXCHANGE
            )
        legal = {option.kind for option in drawmaha.legal_actions(state)}
        return Action(seat, ActionKind.CHECK if ActionKind.CHECK in legal else ActionKind.FOLD)

    def deal(self, table: Table, ready: Sequence[Seat]) -> Round:
        """Post the blinds and deal the hands (DM-1, DM-2) from a committed shuffle (FS-2)."""
        button = _next_button(table, ready)

        def start(
            limits: TableLimits, stacks: list[int], deck: Deck
        ) -> tuple[drawmaha.DrawmahaState, list[Event]]:
            return drawmaha.start_hand(engine_table(limits), stacks, button, deck)

        return peer_services.open_hand(self, table, ready, start, button=button)

    def carry_on(
        self, round_: Round, hand: PeerHand[drawmaha.DrawmahaState], *, actor: User | None
    ) -> None:
        """A player who left acts by default at once; otherwise wait, with a timer."""
        seat = peer_services.leaver_to_act(self, round_, hand, actor=actor)
        if seat is None:
            return
        # A dead hand folds at its turn even when a check is free; in the draw it cannot fold
        # (DM-5) and goes by default until the next betting round.
        choice = self.default_decision(hand.state, seat)
        if isinstance(choice, Action):
            choice = Action(seat, ActionKind.FOLD)
        peer_services.play(self, round_, hand, choice, actor=actor)

    def act(
        self,
        *,
        player: User,
        table: Table,
        action: str,
        amount: Decimal | None = None,
        cards: Sequence[str] = (),
        client_address: str = "",
    ) -> Round:
        """The player's decision in the running hand: a bet, the draw's exchange of ``cards``
        (DM-5) or the twist's take or reject (DM-6), from ``client_address`` (the request's),
        which no other player dealt into it may share (``fair_play``). Once the player's time
        has run out the decision is refused (409, DM-1): the timer takes it (``hand_to_act``)."""
        if action not in ACTIONS:
            raise RoundRefused(
                _("action must be one of %(actions)s.") % {"actions": ", ".join(ACTIONS)},
                field="action",
                rule=RULE,
            )
        if cards and action != DrawChoice.EXCHANGE:
            raise RoundRefused(
                _("%(action)s takes no cards.") % {"action": action_name(action)},
                field="cards",
                rule=DrawmahaRule.DRAW,
            )
        with transaction.atomic():
            round_, hand, seat = peer_services.hand_to_act(self, player, table, client_address)
            decision: Action | DrawAction
            if action in DRAW_CHOICES:
                if amount is not None:
                    raise RoundRefused(
                        _("%(action)s takes no amount.") % {"action": action_name(action)},
                        field="amount",
                        rule=DrawmahaRule.DRAW,
                    )
                decision = DrawAction(seat, DrawChoice(action), _parse_cards(cards))
            else:
                kind = ActionKind(action)
                chips = None
                if amount is not None:
                    if kind not in WAGERS:
                        raise RoundRefused(
                            _("%(action)s takes no amount.") % {"action": action_name(action)},
                            field="amount",
                            rule=DrawmahaRule.POT_LIMIT,
                        )
                    chips = to_cents(amount)
                decision = Action(seat, kind, chips)
            peer_services.play(self, round_, hand, decision, actor=player)
        return round_


def _parse_cards(cards: Sequence[str]) -> tuple[Card, ...]:
    try:
        return tuple(parse_card(card) for card in cards)
    except ValueError:
        raise RoundRefused(
            _("cards are written rank then suit, such as As or Td."),
            field="cards",
            rule=DrawmahaRule.DRAW,
        ) from None


def _next_button(table: Table, ready: Sequence[Seat]) -> int:
    """DM-1: the button moves one seat clockwise each hand, to the next player dealt in after
    the last hand's button; the first hand's button is the lowest seat dealt in."""
    last = Round.objects.filter(table=table).order_by("-nonce").first()
    numbers = [seating.number for seating in ready]
    if last is None:
        return 0
    previous = Hand.from_json(last.engine_state).button
    return next((n for n, number in enumerate(numbers) if number > previous), 0)
