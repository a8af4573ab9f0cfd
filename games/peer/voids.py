"""What voiding a peer hand gives back: each player's chips committed to the pot, to the stack
in front of them, or to the wallet of a player who already left the table."""

from __future__ import annotations

import functools
from decimal import Decimal

from django.contrib.auth.models import User

from games.models import Round, Seat, SeatStatus
from games.peer import services as peer_services
from games.peer.hands import PeerHand, PeerState, from_cents
from games.tables.table_game import VoidedStakes
from games.tables.voids import round_total, void_transfer
from payouts.models import AccountKind
from payouts.services import Posting, house_account, wallet


def void_pot(round_: Round, hand: PeerHand[PeerState], *, by: User, reason: str) -> VoidedStakes:
    """Each player's chips committed to the pot this hand, back to their stack; a player who
    already left is paid to the wallet, one who is leaving is cashed out after the void."""
    table = round_.table
    committed = [from_cents(chips.committed) for chips in hand.state.chips]
    pot = house_account(AccountKind.STAKES_IN_PLAY, table.currency)
    in_pot = round_total(round_, AccountKind.STAKES_IN_PLAY)
    if in_pot > sum(committed, Decimal(0)):
        # The ledger must never hold more than the hand says is in the pot.
        raise ValueError(f"{round_}: the hand commits {sum(committed)}, the ledger holds {in_pot}")
    # By sitting: a player who left the hand and sat down again has a new stack of their own.
    seats = peer_services.sittings(hand)
    postings = [Posting(pot, -in_pot)]
    returned: dict[str, str] = {}
    to_wallets = Decimal(0)
    leavers: list[Seat] = []
    for seat_id, player_id, amount in zip(hand.seat_ids, hand.players, committed, strict=True):
        seating = seats.get(seat_id)
        if seating is None:  # cashed out after folding: the chips go to the wallet
            player = User.objects.get(pk=player_id)
            postings.append(Posting(wallet(player, table.currency), amount))
            to_wallets += amount
        else:
            player = seating.player
            seating.chips += amount
            if seating.status == SeatStatus.LEAVING:
                leavers.append(seating)
        returned[player.username] = f"{amount:.2f}"
    # Every committed chip goes back, and the table chips account ends equal to the stacks: what
    # the pot holds, less what goes to wallets (a stake reversed before reversals of game money
    # were refused is already back on that account).
    postings.append(Posting(peer_services.table_chips(table), in_pot - to_wallets))
    Seat.objects.bulk_update(seats.values(), ["chips"])
    return VoidedStakes(
        returned,
        void_transfer(round_, postings, by, reason),
        # Their hand is over: their stacks go back to the wallet.
        after_posting=functools.partial(_cash_out, leavers, by) if leavers else None,
    )


def _cash_out(seatings: list[Seat], by: User) -> None:
    for seating in seatings:
        peer_services.cash_out(seating, by=by)
