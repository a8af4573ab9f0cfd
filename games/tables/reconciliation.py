"""What the ledger's sub-ledgers must agree with: the game state they hold money for.

The ledger balancing with itself is not enough: chips that no seat owns, or stakes that no round
is playing for, balance perfectly. Each check here is a small function returning what breaks
it, per currency (nothing when it holds), from one ``GameState`` read once per run; ``CHECKS``
lists them once, with the name the reports give them, and ``check_ledger`` (hence
``ledger_check``, the nightly report and the auditors' reconciliation page) runs every one. One
more check is one more function in ``CHECKS``.

They read inside the caller's snapshot (``ledger_snapshot``), so play going on cannot make the
ledger and the game state disagree for a moment.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from decimal import Decimal
from functools import cached_property

from django.db.models import Sum
from django.utils.translation import gettext_noop

from games.models import Round, RoundStatus, Seat
from games.tables.table_game import ZERO, game_of
from payouts.models import Account, AccountKind


def _house_balances(kind: str) -> dict[str, Decimal]:
    return dict(
        Account.objects.filter(kind=kind, owner__isnull=True)
        .values("currency")
        .annotate(total=Sum("balance"))
        .values_list("currency", "total")
    )


def _differences(kind: str, expected: dict[str, Decimal], what: str) -> list[str]:
    """Each currency whose house account of ``kind`` holds other than ``expected``."""
    held = _house_balances(kind)
    differing = {
        currency: (held.get(currency, ZERO), expected.get(currency, ZERO))
        for currency in sorted(held.keys() | expected.keys())
    }
    return [
        f"{currency}: held {account:.2f}, {what} {game:.2f}"
        for currency, (account, game) in differing.items()
        if account != game
    ]


class GameState:
    """What the sub-ledgers hold money for, per currency, each part read once per check run
    (the stakes and the BONUS bets come from one pass over the rounds in play)."""

    @cached_property
    def seat_stacks(self) -> dict[str, Decimal]:
        return dict(
            Seat.objects.values("table__currency")
            .annotate(total=Sum("chips"))
            .values_list("table__currency", "total")
        )

    @cached_property
    def _staked(self) -> tuple[dict[str, Decimal], dict[str, Decimal]]:
        """In the pot (a banked box's antes and bets, a peer hand's chips committed) and in
        BONUS bets, over every round still in play."""
        stakes: dict[str, Decimal] = defaultdict(lambda: ZERO)
        bonuses: dict[str, Decimal] = defaultdict(lambda: ZERO)
        for game, currency, engine_state in (
            Round.objects.filter(status=RoundStatus.DECIDING)
            .values_list("table__game", "table__currency", "engine_state")
            .iterator()
        ):
            staked = game_of(game).staked(engine_state)
            stakes[currency] += staked.stakes
            bonuses[currency] += staked.bonus
        return stakes, bonuses

    @property
    def stakes(self) -> dict[str, Decimal]:
        return self._staked[0]

    @property
    def bonuses(self) -> dict[str, Decimal]:
        return self._staked[1]

    @cached_property
    def holds(self) -> dict[str, Decimal]:
        return dict(
            Round.objects.filter(status=RoundStatus.DECIDING)
            .values("table__currency")
            .annotate(total=Sum("house_hold"))
            .values_list("table__currency", "total")
        )


def table_chips_held(game: GameState) -> list[str]:
    """The table chips account holds exactly the seats' stacks: chips bet in a hand are the pot's
    (stakes in play), and a seat that left holds none."""
    return _differences(AccountKind.TABLE_CHIPS, game.seat_stacks, "the seats' stacks")


def stakes_in_play_held(game: GameState) -> list[str]:
    """The stakes in play account holds exactly what the rounds in play have staked."""
    return _differences(AccountKind.STAKES_IN_PLAY, game.stakes, "staked in rounds in play")


def bonus_held(game: GameState) -> list[str]:
    """The BONUS account holds exactly the BONUS bets of the rounds in play (a settled round
    pays or takes them at once)."""
    return _differences(AccountKind.BONUS, game.bonuses, "BONUS bets in rounds in play")


def house_reserved_held(game: GameState) -> list[str]:
    """The house's reserved account holds exactly the top-payout holds of the rounds in play
    (HB-1): a hold left after its round ended, or a round playing on a hold the ledger does not
    have, shows here."""
    return _differences(AccountKind.HOUSE_RESERVED, game.holds, "holds of open rounds")


# The checks' names are kept in the nightly reports in English and translated when shown.
CHECKS: tuple[tuple[str, Callable[[GameState], list[str]]], ...] = (
    (gettext_noop("table chips differing from the seats' stacks"), table_chips_held),
    (
        gettext_noop("stakes in play differing from the stakes of rounds in play"),
        stakes_in_play_held,
    ),
    (gettext_noop("BONUS held differing from the BONUS bets of rounds in play"), bonus_held),
    (
        gettext_noop("house reservations differing from the holds of open rounds"),
        house_reserved_held,
    ),
)


def sub_ledger_findings() -> list[tuple[str, list[str]]]:
    """Every check against one reading of the game state: its name, and what breaks it."""
    game = GameState()
    return [(name, check(game)) for name, check in CHECKS]
