"""Settlement corrections: a settled joker draw round's payout put right by two staff members.

A round's money is never reversed. A round in play is voided (games.tables.voids); a settled
round whose payout was wrong is corrected: one staff member proposes what each box's player gets
on top of the settlement (or gives back), with a reason, and another approves it. The approval
posts one balanced transaction between the player's wallet and the house bankroll under the
round's own reference, so the round's ledger, its payout records (which show the correction
beside them) and its replay agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

import pghistory
from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from games.models import Game, Round, RoundStatus, SettlementCorrection
from payouts import approvals
from payouts.approvals import ChangeRefused, ChangeStatus
from payouts.models import CENT, TransactionKind
from payouts.services import LedgerError, Posting, game_accounts, post_transaction


def propose_correction(
    round_: Round, *, amounts: Mapping[int, Decimal], reason: str, by: User
) -> SettlementCorrection:
    """A draft correction of a settled joker draw round: ``amounts`` maps boxes to what their
    player gets (negative: gives back) on top of the settlement."""
    errors: dict[str, str] = {}
    reason = (reason or "").strip()
    if not reason:
        errors["reason"] = _("Say why the settlement is corrected (kept with the round).")
    if round_.table.game != Game.JOKER_DRAW or round_.status != RoundStatus.SETTLED:
        errors["round"] = _(
            "%(round)s is not a settled joker draw round: only a settled banked round's payout "
            "is corrected; a round in play is voided."
        ) % {"round": round_}
    else:
        boxes = set(round_.box_settlements.values_list("box", flat=True))
        if not amounts:
            errors["amounts"] = _("Name at least one box and what its player gets or gives back.")
        for box, amount in amounts.items():
            if box not in boxes:
                errors[f"amounts.{box}"] = _("%(round)s has no settled box %(box)s.") % {
                    "round": round_,
                    "box": box,
                }
            elif not amount.is_finite() or amount != amount.quantize(CENT) or amount == 0:
                errors[f"amounts.{box}"] = _(
                    "%(amount)s must be a non-zero amount in whole cents."
                ) % {"amount": amount}
        if not errors and sum(amounts.values(), Decimal(0)) == 0:
            errors["amounts"] = _("The correction moves no money: the boxes' amounts cancel out.")
    if errors:
        raise ChangeRefused(errors)
    with pghistory.context(user=by.pk, reason=reason), transaction.atomic():
        # Under the round's lock, one draft at a time: a form sent twice must not leave two
        # corrections for an approver to pass, paying the player twice.
        Round.objects.select_for_update().filter(pk=round_.pk).first()
        if round_.corrections.filter(status=ChangeStatus.DRAFT).exists():
            raise ChangeRefused(
                {
                    "round": _(
                        "A correction of %(round)s is already waiting for approval: have it "
                        "approved or rejected before proposing another."
                    )
                    % {"round": round_}
                }
            )
        return SettlementCorrection.objects.create(
            round=round_,
            amounts={str(box): f"{amount:.2f}" for box, amount in sorted(amounts.items())},
            reason=reason,
            proposed_by=by,
        )


def approve_correction(correction: SettlementCorrection, *, by: User) -> SettlementCorrection:
    """Post a proposed correction: by a staff member who neither proposed nor changed it."""

    def post(correction: SettlementCorrection) -> tuple[str]:
        round_ = correction.round
        if round_.player is None:
            raise ValueError(f"{round_} is a banked round without a player")
        accounts = game_accounts(round_.player, round_.table.currency)
        total = sum(correction.box_amounts().values(), Decimal(0))
        try:
            correction.transaction = post_transaction(
                kind=TransactionKind.CORRECTION,
                postings=[
                    Posting(accounts.house_bankroll, -total),
                    Posting(accounts.wallet, total),
                ],
                reason=f"{round_}: settlement corrected: {correction.reason}",
                created_by=by,
                reference=f"round:{round_.pk}:correction:{correction.pk}",
            )
        except LedgerError as refused:
            raise ChangeRefused({"amounts": refused.message}) from refused
        return ("transaction",)

    locked = SettlementCorrection.objects.select_for_update(of=("self",)).select_related(
        "round__table", "round__player"
    )
    return approvals.approve(correction, by=by, locked=locked, takes_effect=post)
