"""Voiding a round: pit staff call off a joker draw round or a peer hand in progress.

Every stake goes back where it came from in one balanced ledger transaction: a joker draw
player's antes, bets and BONUS bets from the stakes in play to the wallet (and the round's hold
of the house bankroll back to the bankroll); a stud or Drawmaha
player's chips in the pot back to the stack in front of them (or to the wallet of a player
who already left the table). The round is marked voided with the reason, and a ``voided``
event records who did it and why. A peer table then goes on with its next hand.
"""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from casino.refusals import Kind
from games.engine.common import Event
from games.models import Round, RoundStatus, Table
from games.tables import seeds
from games.tables.event_words import Wordings, says
from games.tables.rounds import record
from games.tables.table_game import game_of
from payouts.approvals import ChangeRefused
from payouts.models import LedgerEntry, TransactionKind
from payouts.services import Posting, Transfer, post_transactions


class PitEvent(StrEnum):
    """What the pit records in a round's history, whatever the game."""

    VOIDED = "voided"


PIT_WORDS: Wordings = {PitEvent.VOIDED: says(gettext_lazy("Voided by the pit: %(reason)s."))}

NOT_IN_PLAY = "round_not_in_play"  # the refusal of a round already settled or voided


def void_round(round_: Round, *, by: User, reason: str) -> Round:
    """Call off a round in progress and return every stake; refused for a round that is over."""
    reason = (reason or "").strip()
    if not reason:
        raise ChangeRefused({"reason": _("Say why the round is voided (kept in its history).")})
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
                {
                    "round": _(
                        "%(round)s is already voided: a round is voided once, nothing moved."
                    )
                    % {"round": round_}
                },
                code=NOT_IN_PLAY,
                kind=Kind.CONFLICT,
            )
        if round_.status != RoundStatus.DECIDING:
            raise ChangeRefused(
                {
                    "round": _(
                        "%(round)s is settled: a settled round cannot be voided; propose a "
                        "settlement correction for a second staff member to approve."
                    )
                    % {"round": round_}
                },
                code=NOT_IN_PLAY,
                kind=Kind.CONFLICT,
            )
        game = game_of(table.game)
        voided = game.void_stakes(round_, by=by, reason=reason)
        record(
            round_,
            [
                Event(
                    PitEvent.VOIDED,
                    {"by": by.username, "reason": reason, "returned": voided.returned},
                )
            ],
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
        if voided.transfer is not None:
            post_transactions([voided.transfer])
        if voided.after_posting is not None:
            voided.after_posting()
    game.after_void(table.pk)
    return round_


def round_total(round_: Round, kind: str) -> Decimal:
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


def void_transfer(round_: Round, postings: list[Posting], by: User, reason: str) -> Transfer | None:
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
