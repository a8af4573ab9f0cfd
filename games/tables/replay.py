"""Replay a settled round of any game from its revealed seed and recorded decisions (FS-7).

The deck is recomputed from the server seed, client seed and nonce; the commitment is checked;
the recorded decisions are fed to the engine again; and every event it produces (every card,
with its deck position, and every amount) must equal the hand history, the payout records (the
stacks, for the peer games) and the ledger postings of the round.
"""

from __future__ import annotations

from typing import Any

from games.engine import fairness
from games.engine.common import Event
from games.models import Round, RoundStatus
from games.tables.table_game import ReplayReport, game_of
from payouts.models import LedgerTransaction


def replay_round(round_: Round) -> ReplayReport:
    """Replay a round of any game that has one."""
    report = game_of(round_.table.game).replay(round_)
    _check_reversals(report, round_)
    return report


def _check_reversals(report: ReplayReport, round_: Round) -> None:
    """A round's money is never reversed: a reversal of one of its transactions (posted before
    that rule) paid what neither the round nor its payout records show."""
    for reversal in LedgerTransaction.objects.filter(
        reverses__reference__startswith=f"round:{round_.pk}:"
    ):
        report.mismatches.append(
            f"transaction #{reversal.reverses_id} of the round was reversed by #{reversal.pk} "
            "outside the round"
        )


def revealed(round_: Round, report: ReplayReport) -> str | None:
    """The round's server seed if the round can be replayed: it is settled; the seed must also
    match the commitment (FS-2). The replay is the house's check and runs before a joker draw
    seed pair is rotated too: it reads the seed, but shows none of it."""
    if round_.status != RoundStatus.SETTLED:
        report.mismatches.append(
            f"round {round_.pk} is {round_.status}: only settled rounds replay"
        )
        return None
    seed = round_.secret_server_seed()
    if fairness.commitment(seed) != round_.commitment:
        report.mismatches.append("the revealed server seed does not match the commitment (FS-2)")
    return seed


def compare_events(
    report: ReplayReport,
    recorded: list[tuple[str, dict[str, Any]]],
    produced: list[Event],
) -> None:
    if len(recorded) != len(produced):
        report.mismatches.append(f"{len(recorded)} events recorded, {len(produced)} replayed")
    for number, (kind_data, event) in enumerate(zip(recorded, produced, strict=False), start=1):
        kind, data = kind_data
        if (kind, data) != (event.kind, event.data):
            report.mismatches.append(
                f"event {number}: recorded {kind} {data}, replayed {event.kind} {event.data}"
            )
        report.events_checked += 1
