"""Seven-card stud tables: seats bought in from the wallet, hands that start by themselves, every
chip through the ledger, and timers for players who do not act (ST-1..ST-13).

Seats, buy-in and cash-out, the ledger transaction of each event, dealing, timers and the
catch-up are the peer tables' (games.peer.services), shared with Drawmaha; this module
describes the game to them (``Stud``), and games.stud.tasks makes its one instance, ``STUD``,
with the timer that catches its tables up.

Every write runs in one database transaction under a row lock on the table, so the seats, the
hand's engine state, its history and the ledger commit together: a hand survives a restart
exactly where it was, and the timer (or the sweeper behind it) carries it on.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from casino.refusals import Kind
from games.engine import stud
from games.engine.betting import WAGERS, Action, ActionKind
from games.engine.cards import Card
from games.engine.common import Event
from games.engine.dealer import Deck
from games.engine.rules import StudRule
from games.models import Game, Round, RoundStatus, Seat, ShownHand, Table, TableLimits
from games.peer import fair_play
from games.peer import services as peer_services
from games.peer.hands import PeerHand, to_cents
from games.stud.hand import ACTIONS, FORCED, Hand, engine_table
from games.tables import live
from games.tables.hand_names import action_name
from games.tables.rounds import RoundRefused, limits_in_force
from payouts.models import LedgerTransaction, TransactionKind
from payouts.protection import gate
from payouts.services import Posting, Transfer, post_transactions, wallet

if TYPE_CHECKING:
    from django.contrib.auth.models import User

RULE = StudRule.TABLE  # seats, buy-ins and who may act at the table


class Stud(peer_services.PeerGame[stud.StudState, Action]):
    """Seven-card stud as the shared peer-table functions see it, and what a stud player does
    beyond sitting down and leaving: acting, rebuying, switching the automatic ante."""

    game = Game.SEVEN_CARD_STUD
    rule = RULE
    deal_rule = StudRule.THIRD_STREET
    min_players = stud.MIN_PLAYERS
    max_players = stud.MAX_PLAYERS
    forced = FORCED

    def pause_seconds(self) -> int:
        return settings.STUD_HAND_PAUSE_SECONDS

    def load_hand(self, data: dict[str, Any]) -> Hand:
        return Hand.from_json(data)

    def folded_cards(self, hand: PeerHand[stud.StudState], seat: int) -> tuple[Card, ...]:
        return hand.state.hands[seat].cards

    def new_hand(
        self,
        state: stud.StudState,
        seats: tuple[int, ...],
        players: tuple[int, ...],
        seat_ids: tuple[int, ...],
    ) -> Hand:
        return Hand(state, seats, players, seat_ids)

    def hand_over(self, hand: PeerHand[stud.StudState]) -> bool:
        return hand.state.street == stud.Street.OVER

    def apply(
        self, state: stud.StudState, decision: Action
    ) -> tuple[stud.StudState, Sequence[Event]]:
        return stud.apply(state, decision)

    def default_decision(self, state: stud.StudState, seat: int) -> Action:
        """What a player who does not act does: checks if free, else folds; a forced bring-in
        is brought in (ST-3) and a hand at the showdown is shown (cards speak, ST-11)."""
        legal = {option.kind for option in stud.legal_actions(state)}
        return Action(
            seat,
            next(
                kind
                for kind in (
                    ActionKind.CHECK,
                    ActionKind.FOLD,
                    ActionKind.BRING_IN,
                    ActionKind.SHOW,
                )
                if kind in legal
            ),
        )

    def deal(self, table: Table, ready: Sequence[Seat]) -> Round:
        """Take the antes and deal third street (ST-2) from a committed shuffle (FS-2)."""

        def start(
            limits: TableLimits, stacks: list[int], deck: Deck
        ) -> tuple[stud.StudState, list[Event]]:
            return stud.start_hand(engine_table(limits), stacks, deck)

        return peer_services.open_hand(self, table, ready, start)

    def carry_on(
        self, round_: Round, hand: PeerHand[stud.StudState], *, actor: User | None
    ) -> None:
        """A player who left acts by default at once; otherwise wait, with a timer."""
        seat = peer_services.leaver_to_act(self, round_, hand, actor=actor)
        if seat is None:
            return
        # A player who leaves has a dead hand: folded at the turn, even when a check is free.
        # Only a forced bring-in (ST-3) or a showdown (cards speak, ST-11) goes by default.
        legal = {option.kind for option in stud.legal_actions(hand.state)}
        if legal & {ActionKind.CHECK, ActionKind.FOLD}:
            decision = Action(seat, ActionKind.FOLD)
        else:
            decision = self.default_decision(hand.state, seat)
        peer_services.play(self, round_, hand, decision, actor=actor)

    def act(
        self,
        *,
        player: User,
        table: Table,
        action: str,
        amount: Decimal | None = None,
        client_address: str = "",
    ) -> Round:
        """The player's decision in the running hand, from ``client_address`` (the request's),
        which no other player dealt into it may share (``fair_play``). Once the player's time
        has run out the decision is refused (409, ST-1): the timer takes it (``hand_to_act``)."""
        if action not in ACTIONS:
            raise RoundRefused(
                _("action must be one of %(actions)s.") % {"actions": ", ".join(ACTIONS)},
                field="action",
                rule=StudRule.TABLE,
            )
        with transaction.atomic():
            round_, hand, seat = peer_services.hand_to_act(self, player, table, client_address)
            kind = ActionKind(action)
            chips = None
            if amount is not None:
                if kind not in WAGERS:
                    raise RoundRefused(
                        _("%(action)s takes no amount.") % {"action": action_name(action)},
                        field="amount",
                        rule=StudRule.TABLE,
                    )
                chips = to_cents(amount)
            peer_services.play(self, round_, hand, Action(seat, kind, chips), actor=player)
        return round_

    def set_auto_ante(self, *, player: User, table: Table, on: bool) -> Seat:
        """Switch the automatic ante on or off (source 002: the ante is posted by default, and a
        player may switch that off). Off, the player sits out: no ante is taken and no hand is
        dealt to them until it is on again; a hand they are in is played to its end."""
        with transaction.atomic():
            table = peer_services.locked_table(table.pk, rule=RULE)
            seating = peer_services.own_seat(player, table, rule=RULE)
            seating.auto_ante = on
            seating.save(update_fields=["auto_ante"])
            live.table_changed(table.pk)
            if on:
                peer_services.start_or_schedule(self, table)
        return seating

    def rebuy(
        self, *, player: User, table: Table, amount: Decimal, client_address: str = ""
    ) -> Seat:
        """Add chips from the wallet to the player's stack between hands. No short buys (source
        002): the stack after it is at least the table's minimum buy-in, and at most its maximum
        (ST-1); while the player's cards are in a hand the stack is in play and cannot change.
        No chips go onto a table where another seated player shares the player's address, the
        request's ``client_address`` or a sign-in since sitting down (``fair_play``)."""
        limits = limits_in_force(table, game=self.game, rule=RULE)
        low, high = cast(Decimal, limits.buy_in_min), cast(Decimal, limits.buy_in_max)
        if amount <= 0:
            raise RoundRefused(_("A rebuy adds more than 0.00."), field="amount", rule=RULE)
        with transaction.atomic():
            table = peer_services.locked_table(table.pk, rule=RULE, open_only=True)
            seating = peer_services.own_seat(player, table, rule=RULE)
            fair_play.check_address(
                player=player, table=table, client_address=client_address, rule=RULE
            )
            round_ = peer_services.running_hand(table)
            # Folded or not, a sitting dealt into the hand being played has its stack written by
            # every action of that hand: chips go on between its hands only.
            if round_ is not None and seating.pk in Hand.from_json(round_.engine_state).seat_ids:
                raise RoundRefused(
                    _("Chips are added between hands, not while yours is played."),
                    field="amount",
                    rule=RULE,
                    kind=Kind.CONFLICT,
                )
            stack = seating.chips + amount
            if not low <= stack <= high:
                raise RoundRefused(
                    _(
                        "The stack after a rebuy ({stack}) must be within the table's buy-in, "
                        "from {low} to {high}: no short buys."
                    ).format(stack=stack, low=low, high=high),
                    field="amount",
                    rule=RULE,
                )
            gate.check_stake(
                player=player,
                currency=table.currency,
                amount=amount,
                starts_play=True,
                field="amount",
            )
            number = LedgerTransaction.objects.filter(
                reference__startswith=f"seat:{seating.pk}:rebuy:"
            ).count()
            post_transactions(
                [
                    Transfer(
                        kind=TransactionKind.STAKE,
                        postings=[
                            Posting(wallet(player, table.currency), -amount),
                            Posting(peer_services.table_chips(table), amount),
                        ],
                        reason=f"{seating}: rebuy",
                        created_by=player,
                        reference=f"seat:{seating.pk}:rebuy:{number + 1}",
                    )
                ]
            )
            seating.chips = stack
            seating.save(update_fields=["chips"])
            live.table_changed(table.pk)
            peer_services.start_or_schedule(self, table)
        return seating


def show_won_hand(*, player: User, hand: Round) -> ShownHand:
    """A winner whose bets were not called chooses to show the hand after it (ST-10): its
    cards join the hand history its players see. Showing twice is showing once."""
    if hand.status != RoundStatus.SETTLED:
        raise RoundRefused(
            _("A hand is shown once it is over."),
            field="hand",
            rule=StudRule.SHOWDOWN_ORDER,
            kind=Kind.CONFLICT,
        )
    stored = Hand.from_json(hand.engine_state)
    state = stored.state
    if state.showdown_order or player.pk not in stored.players:
        raise RoundRefused(
            _(
                "Only a winner whose bets were not called chooses to show; a hand at the "
                "showdown is in the hand history already."
            ),
            field="hand",
            rule=StudRule.SHOWDOWN_ORDER,
        )
    (winner,) = state.in_hand
    if stored.players[winner] != player.pk:
        raise RoundRefused(
            _("Folded cards are never shown; only the winner may show."),
            field="hand",
            rule=StudRule.SHOWDOWN_ORDER,
        )
    shown, _created = ShownHand.objects.get_or_create(
        round=hand, seat=stored.seats[winner], defaults={"player": player}
    )
    return shown
