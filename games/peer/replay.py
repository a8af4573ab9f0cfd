"""What the replay of a peer hand checks for both games: the finishing stacks, and what the
ledger moved on the table chips and the rake."""

from __future__ import annotations

from decimal import Decimal

from django.db.models import Sum

from games.engine import drawmaha, stud
from games.models import Round
from games.peer.hands import from_cents
from games.tables.table_game import ReplayReport
from payouts.models import AccountKind, LedgerEntry


def compare_stacks_and_ledger(
    report: ReplayReport,
    round_: Round,
    state: stud.StudState | drawmaha.DrawmahaState,
    stored: stud.StudState | drawmaha.DrawmahaState,
) -> None:
    """A peer game's hand: the replayed finishing stacks against the stored ones, and what the
    ledger moved on the table chips and the rake against what the replay says."""
    if state.finishing_stacks != stored.finishing_stacks:
        report.mismatches.append(
            f"finishing stacks: replayed {state.finishing_stacks}, "
            f"recorded {stored.finishing_stacks}"
        )
    moved = {
        kind: LedgerEntry.objects.filter(
            transaction__reference__startswith=f"round:{round_.pk}:", account__kind=kind
        ).aggregate(total=Sum("amount"))["total"]
        or Decimal(0)
        for kind in (AccountKind.TABLE_CHIPS, AccountKind.RAKE)
    }
    expected = {
        AccountKind.TABLE_CHIPS: from_cents(
            sum(state.finishing_stacks or ()) - sum(state.starting_stacks)
        ),
        AccountKind.RAKE: from_cents(state.rake),
    }
    for kind, amount in expected.items():
        if moved[kind] != amount:
            report.mismatches.append(f"the ledger moved {moved[kind]} on {kind}, replay {amount}")
