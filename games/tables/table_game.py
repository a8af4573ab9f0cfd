"""What every game gives the tables it is played at, and where the shared code finds it.

The shared parts of the house (tables and their limits, voids, the replay check, the sweeper,
the ledger's reconciliation with the game state, the pages) are written once for every game.
Where they need a game's own behaviour they ask its ``TableGame``, found by the game's code
with ``game_of``. ``games.registry`` names the games and registers them when the app starts;
nothing else names them, so a new game is a new package and one line there.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

from django.db.models import Q

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.urls import URLPattern

    from games.models import Round, Table, TableLimits
    from payouts.services import Transfer

ZERO = Decimal("0.00")


@dataclass(frozen=True)
class VoidedStakes:
    """What voiding a round in play gives back: each player's stake by name (for the round's
    history), the one transfer that returns it, and what the game does once that is posted (a
    peer table cashes out the seats that were leaving)."""

    returned: dict[str, str]
    transfer: Transfer | None
    after_posting: Callable[[], None] | None = None


@dataclass
class ReplayReport:
    """What replaying a round found: every mismatch with what was stored (none: it verifies)."""

    round_id: int
    mismatches: list[str] = field(default_factory=list)
    events_checked: int = 0
    # Approved settlement corrections, described: the round as played plus these is what paid.
    corrections: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


@dataclass(frozen=True)
class CatchUp:
    """Something overdue at a table (a decision out of time, a hand due to be dealt), and what
    settles it. ``round_id`` names the round when the catch-up is of one overdue round."""

    table_id: int
    run: Callable[[], object]
    round_id: int | None = None


@dataclass(frozen=True)
class Staked:
    """What a round in play holds on the house's sub-ledgers: in the pot, and in BONUS bets."""

    stakes: Decimal = ZERO
    bonus: Decimal = ZERO


@dataclass(frozen=True)
class ExpectedReturn:
    """What the house expects to keep of each unit staked under a banked round's paytables, by
    the RTP laboratory: on the game (ante and bet) and on the BONUS, each with the standard
    deviation of one box's return per unit staked, the spread a few rounds' hold may show."""

    game_edge: Decimal
    game_spread: float
    bonus_edge: Decimal = ZERO
    bonus_spread: float = 0.0


class TableGame(ABC):
    """One game as the shared code sees it. A subclass declares the class attributes and
    implements the methods; ``games.registry`` holds one instance of each."""

    code: ClassVar[str]  # the ``Game`` its tables play
    slug: ClassVar[str]  # its part of the API's and the pages' addresses
    limit_fields: ClassVar[tuple[str, ...]]  # the limits its tables are proposed with
    default_limits: ClassVar[Mapping[str, Any]]  # a new table's first proposal
    banked: ClassVar[bool] = False  # played against the house's bankroll, not between players

    def own_rounds(self, user: User) -> Q:
        """The rounds a player took part in: a banked round's own player."""
        return Q(player=user)

    def top_round_payout(self, limits: TableLimits) -> Decimal | None:
        """The most one round at the top of these limits can cost the house's bankroll; None
        where players play against each other."""
        return None

    def expected_return(
        self, bet_version_id: int | None, bonus_version_id: int | None
    ) -> ExpectedReturn | None:
        """What a banked round under these paytable versions is expected to keep for the house;
        None where the laboratory has no figure for them, and where players play each other
        (there the rake is the house's whole win)."""
        return None

    def seated(self, table: Table) -> list[str]:
        """The players who hold chips at the table, each as "seat N: name"; none where a
        round is a player's alone (a closed banked table lets its rounds in play finish)."""
        return []

    def cash_out_closed(self, table: Table) -> None:
        """Pit staff closed the table (locked, inside the closing's transaction): what its
        players hold goes back to their wallets, at once or once the hand in play is over.
        Nothing for a banked table: its rounds in play finish, or time out, as they would."""
        return

    @abstractmethod
    def round_state(self, round_: Round) -> str:
        """A round in progress in a few words for the pit, without a card."""

    def demo_limits(self) -> dict[str, Any]:
        """The limits of the demonstration data's tables."""
        return dict(self.default_limits)

    @abstractmethod
    def limit_problems(self, values: Mapping[str, Any]) -> dict[str, str]:
        """What is wrong with proposed limits, by field, each message naming its rule."""

    @abstractmethod
    def void_stakes(self, round_: Round, *, by: User, reason: str) -> VoidedStakes:
        """Every stake of a round in play, to be given back; called with the table and the
        round locked, inside the void's transaction."""

    @abstractmethod
    def after_void(self, table_id: int) -> None:
        """What follows a void once it is committed (a peer table deals its next hand)."""

    @abstractmethod
    def replay(self, round_: Round) -> ReplayReport:
        """Play the round's history again on the engine and compare it with what was stored."""

    @abstractmethod
    def staked(self, engine_state: dict[str, Any]) -> Staked:
        """What a round still in play holds, from its stored engine state."""

    @abstractmethod
    def overdue(self) -> list[CatchUp]:
        """Everything overdue at the game's tables; the sweeper runs each catch-up in a
        transaction of its own."""

    @property
    @abstractmethod
    def api_urls(self) -> list[URLPattern]:
        """The game's endpoints, under ``/api/v1/``."""


_games: dict[str, TableGame] = {}


def register(*games: TableGame) -> None:
    for game in games:
        _games[game.code] = game


def game_of(code: str) -> TableGame:
    """The game a table with this code plays."""
    return _games[code]


def all_games() -> list[TableGame]:
    return list(_games.values())
