"""Voiding a round: pit staff call off a joker draw round or a peer hand in progress.

Every stake goes back where it came from in one balanced ledger transaction: a joker draw
player's antes, bets and BONUS bets from the stakes in play to the wallet (and the round's hold
of the house bankroll back to the bankroll); a stud or Drawmaha
player's chips in the pot back to the stack in front of them (or to the wallet of a player
who already left the table). The round is marked voided with the reason, and a ``voided``
event records who did it and why. A peer table then goes on with its next hand.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q, Sum
from django.utils import timezone

from games.drawmaha.tasks import DRAWMAHA
from games.engine.common import Event
from games.models import Game, Round, RoundStatus, Seat, SeatStatus, Table
from games.peer import services as peer_tables
from games.peer.hands import from_cents
from games.stud.tasks import STUD
from games.tables import seeds
from payouts.models import AccountKind, LedgerEntry, TransactionKind
from payouts.services import (
    ChangeRefused,
    Posting,
    Transfer,
    game_accounts,
    house_account,
    post_transactions,
    wallet,
)

VOIDED = "voided"
# The game's catch-up deals the next hand at a peer table once the pause is over.
_CATCH_UP: dict[str, Callable[[int], None]] = {
    Game.SEVEN_CARD_STUD: STUD.catch_up,
    Game.DRAWMAHA: DRAWMAHA.catch_up,
}


def void_round(round_: Round, *, by: User, reason: str) -> Round:
    """Call off a round in progress and return every stake; refused for a round that is over."""
    reason = (reason or "").strip()
    if not reason:
        raise ChangeRefused({"reason": "Say why the round is voided (kept in its history)."})
    with transaction.atomic():
        # The services' lock order: the table, then the round.
        table = Table.objects.select_for_update(no_key=True).get(pk=round_.table_id)
        round_ = (
            Round.objects.select_for_update(of=("self",), no_key=True)
            .select_related("table", "player")
            .get(pk=round_.pk)
        )
        if round_.status == RoundStatus.VOIDED:
            raise ChangeRefused(
                {"round": f"{round_} is already voided: a round is voided once, nothing moved."}
            )
        if round_.status != RoundStatus.DECIDING:
            raise ChangeRefused(
                {
                    "round": f"{round_} is settled: a settled round cannot be voided; "
                    "propose a settlement correction for a second staff member to approve."
                }
            )
        if table.game == Game.JOKER_DRAW:
            returned, transfer = _joker_draw_stakes(round_, by, reason)
            leavers: list[Seat] = []
        else:
            returned, transfer, leavers = _peer_pot(round_, by, reason)
        # The hand history's append (any game's round), which also tells the table's watchers.
        peer_tables.record(
            round_,
            [Event(VOIDED, {"by": by.username, "reason": reason, "returned": returned})],
            actor=by,
        )
        round_.status = RoundStatus.VOIDED
        round_.void_reason = reason
        round_.settled_at = timezone.now()  # the pause before the next peer hand counts from it
        round_.decision_deadline = None
        round_.save(
            update_fields=[
                "history_length",
                "status",
                "void_reason",
                "settled_at",
                "decision_deadline",
            ]
        )
        seeds.reveal_hand_seed(round_)
        if transfer is not None:
            post_transactions([transfer])
        for seating in leavers:  # their hand is over: stacks back to the wallet
            peer_tables.cash_out(seating, by=by)
    if table.game in _CATCH_UP:
        _CATCH_UP[table.game](table.pk)
    return round_


def _round_total(round_: Round, kind: str) -> Decimal:
    """What the round's own postings, net of any reversal of them, hold on the house account of
    ``kind``. Game money is not reversed any more, but a reversal posted before that rule must
    not keep the round from being voided."""
    of_round = Q(transaction__reference__startswith=f"round:{round_.pk}:") | Q(
        transaction__reverses__reference__startswith=f"round:{round_.pk}:"
    )
    total = LedgerEntry.objects.filter(
        of_round, account__kind=kind, account__owner__isnull=True
    ).aggregate(total=Sum("amount"))["total"]
    return total or Decimal("0.00")


def _transfer(round_: Round, postings: list[Posting], by: User, reason: str) -> Transfer | None:
    postings = [posting for posting in postings if posting.amount]
    if not postings:
        return None
    return Transfer(
        kind=TransactionKind.SETTLEMENT,
        postings=postings,
        reason=f"{round_}: voided: {reason}",
        created_by=by,
        reference=f"round:{round_.pk}:void",
    )


def _joker_draw_stakes(
    round_: Round, by: User, reason: str
) -> tuple[dict[str, str], Transfer | None]:
    """Every stake the round took so far (antes, bets, BONUS bets), back to the wallet."""
    if round_.player is None:
        raise ValueError(f"{round_} is a banked round without a player")
    accounts = game_accounts(round_.player, round_.table.currency)
    held = _round_total(round_, AccountKind.STAKES_IN_PLAY)
    bonuses = _round_total(round_, AccountKind.BONUS)
    # The round's hold of the bankroll goes back with the stakes (HB-1).
    reserved = _round_total(round_, AccountKind.HOUSE_RESERVED)
    transfer = _transfer(
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
    return {round_.player.username: f"{held + bonuses:.2f}"}, transfer


def _peer_pot(
    round_: Round, by: User, reason: str
) -> tuple[dict[str, str], Transfer | None, list[Seat]]:
    """Each player's chips committed to the pot this hand, back to their stack; a player who
    already left is paid to the wallet, one who is leaving is cashed out after the void."""
    table = round_.table
    hand = (STUD if table.game == Game.SEVEN_CARD_STUD else DRAWMAHA).load_hand(round_.engine_state)
    committed = [from_cents(chips.committed) for chips in hand.state.chips]
    pot = house_account(AccountKind.STAKES_IN_PLAY, table.currency)
    in_pot = _round_total(round_, AccountKind.STAKES_IN_PLAY)
    if in_pot > sum(committed, Decimal(0)):
        # The ledger must never hold more than the hand says is in the pot.
        raise ValueError(f"{round_}: the hand commits {sum(committed)}, the ledger holds {in_pot}")
    # By sitting: a player who left the hand and sat down again has a new stack of their own.
    seats = peer_tables.sittings(hand)
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
    postings.append(Posting(peer_tables.table_chips(table), in_pot - to_wallets))
    Seat.objects.bulk_update(seats.values(), ["chips"])
    return returned, _transfer(round_, postings, by, reason), leavers
