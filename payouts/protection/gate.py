"""The one door every deposit and stake passes before it moves money: the games and the cage
call it inside their transaction, before any posting, and a refusal (a ``Refused``) moves
nothing. It knows no game: the caller says how much leaves the wallet (``amount``), the
player's whole stake in the round or hand after it (``hand_total``), and whether it starts
play (a joker draw opening, a buy-in, a rebuy, a peer hand's deal) or is a decision inside a
round or hand already in play, which may be finished.

The checks come in this order: exclusion, a reality check due, the session time limit, then
the limits the player set (``limits``). Withdrawals never come here.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from payouts.protection import limits

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def check_deposit(*, player: User, currency: str, amount: Decimal, field: str = "amount") -> None:
    """Refuse a deposit into the player's wallet that the player's protection forbids."""
    limits.check_deposit(player=player, currency=currency, amount=amount, field=field)


def check_stake(
    *,
    player: User,
    currency: str,
    amount: Decimal,
    hand_total: Decimal | None = None,
    starts_play: bool,
    from_wallet: bool = True,
    field: str = "amount",
) -> None:
    """Refuse a stake that the player's protection forbids. ``from_wallet`` is False for chips
    a peer table's decision puts in the pot (they left the wallet at the buy-in); ``field`` is
    the request's field the refusal names."""
    del starts_play  # the limits bind a stake whether or not it starts play
    limits.check_stake(
        player=player,
        currency=currency,
        amount=amount,
        hand_total=hand_total,
        from_wallet=from_wallet,
        field=field,
    )
