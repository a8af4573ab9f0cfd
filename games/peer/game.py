"""What stud and Drawmaha share as the shared code sees them (``TableGame``): a void gives the
pot back to the stacks, a table caught up deals its next hand, and the stakes in play are the
chips committed to the hands."""

from __future__ import annotations

import functools
from abc import abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from games.engine.cards import Card
from games.models import Round, RoundStatus, Seat, SeatStatus, Table
from games.peer.hands import PeerHand, PeerState, from_cents
from games.peer.services import PeerGame
from games.peer.voids import void_pot
from games.tables.event_words import Wordings
from games.tables.hand_names import street_name
from games.tables.table_game import CatchUp, Staked, TableGame, VoidedStakes

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


class PeerTableGame(TableGame):
    peer: ClassVar[PeerGame[Any, Any]]  # the game's tables' services, with their timer
    # What each kind of event its hands record says in a hand's history: the peer tables'
    # words (``PEER_WORDS``) and the words of the game's own kinds.
    event_words: ClassVar[Wordings]

    def load_hand(self, engine_state: dict[str, Any]) -> PeerHand[PeerState]:
        return self.peer.load_hand(engine_state)

    def catch_up(self, table_id: int) -> None:
        """Act for a player out of time, or deal the hand that is due."""
        self.peer.catch_up(table_id)

    @abstractmethod
    def recall(
        self, hand: Round, viewer: User | AnonymousUser
    ) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]] | None]:
        """A hand as the viewer may see it in recall, and the events whose cards the viewer
        may see (None: every event of the finished hand)."""

    @abstractmethod
    def folded_cards(self, hand: PeerHand[PeerState], seat: int) -> tuple[Card, ...]:
        """The cards the player at the engine ``seat`` of a finished ``hand`` held when folding
        (a folded hand is dealt no more cards): what the collusion report ranks."""

    def own_rounds(self, user: User) -> Q:
        # A peer hand has no one player: it lists the players dealt in.
        return Q(engine_state__contains={"players": [user.pk]})

    def seated(self, table: Table) -> list[str]:
        seats = Seat.objects.filter(table=table).exclude(status=SeatStatus.LEFT)
        return [
            _("seat %(number)s: %(name)s") % {"number": number, "name": name}
            for number, name in seats.order_by("number").values_list("number", "player__username")
        ]

    def cash_out_closed(self, table: Table) -> None:
        self.peer.cash_out_closed(table)

    def round_state(self, round_: Round) -> str:
        hand = self.load_hand(round_.engine_state)
        pot = from_cents(sum(chips.committed for chips in hand.state.chips))
        seat = hand.state.to_act
        turn = (
            _("seat %(seat)s to act") % {"seat": hand.seats[seat]}
            if seat is not None
            else _("showdown")
        )
        return _("hand %(hand)s: %(street)s, pot %(pot)s, %(turn)s") % {
            "hand": round_.nonce,
            "street": street_name(hand.state.street),
            "pot": pot,
            "turn": turn,
        }

    def void_stakes(self, round_: Round, *, by: User, reason: str) -> VoidedStakes:
        return void_pot(round_, self.load_hand(round_.engine_state), by=by, reason=reason)

    def after_void(self, table_id: int) -> None:
        self.catch_up(table_id)

    def staked(self, engine_state: dict[str, Any]) -> Staked:
        hand = self.load_hand(engine_state)
        return Staked(stakes=from_cents(sum(chips.committed for chips in hand.state.chips)))

    def overdue(self) -> list[CatchUp]:
        """Tables with an overdue decision, or with seated players a hand may be due to."""
        overdue = Round.objects.filter(
            status=RoundStatus.DECIDING,
            table__game=self.code,
            decision_deadline__lte=timezone.now(),
        ).values_list("table_id", flat=True)
        seated = Seat.objects.filter(status=SeatStatus.SEATED, table__game=self.code).values_list(
            "table_id", flat=True
        )
        return [
            CatchUp(table_id, functools.partial(self.catch_up, table_id))
            for table_id in sorted(set(overdue) | set(seated))
        ]
