"""What voiding a joker draw round gives back: every stake the round took so far (antes, bets,
BONUS bets) to the wallet, and its hold of the bankroll to the bankroll."""

from __future__ import annotations

from django.contrib.auth.models import User

from games.models import Round
from games.tables.table_game import VoidedStakes
from games.tables.voids import round_total, void_transfer
from payouts.models import AccountKind
from payouts.services import Posting, game_accounts


def void_stakes(round_: Round, *, by: User, reason: str) -> VoidedStakes:
    """Every stake the round took so far (antes, bets, BONUS bets), back to the wallet."""
    if round_.player is None:
        raise ValueError(f"{round_} is a banked round without a player")
    accounts = game_accounts(round_.player, round_.table.currency)
    held = round_total(round_, AccountKind.STAKES_IN_PLAY)
    bonuses = round_total(round_, AccountKind.BONUS)
    # The round's hold of the bankroll goes back with the stakes (HB-1).
    reserved = round_total(round_, AccountKind.HOUSE_RESERVED)
    transfer = void_transfer(
        round_,
        [
            Posting(accounts.stakes_in_play, -held),
            Posting(accounts.bonus, -bonuses),
            Posting(accounts.wallet, held + bonuses),
            Posting(accounts.house_reserved, -reserved),
            Posting(accounts.house_bankroll, reserved),
        ],
        by,
        reason,
    )
    return VoidedStakes({round_.player.username: f"{held + bonuses:.2f}"}, transfer)
