"""Replay a settled joker draw round from its revealed seed and recorded decisions (FS-7).

The deck is recomputed from the server seed, client seed and nonce; the commitment is checked;
the recorded decisions are fed to the engine again; and every event it produces (every card,
with its deck position, and every amount) must equal the hand history, the payout records and
the ledger postings of the round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db.models import Sum

from games.engine import fairness, joker_draw
from games.engine.cards import parse_cards
from games.models import Round, RoundStatus
from payouts.models import AccountKind, LedgerEntry


@dataclass
class ReplayReport:
    round_id: int
    mismatches: list[str] = field(default_factory=list)
    events_checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.mismatches


def _decision(event: dict[str, Any], kind: str) -> joker_draw.Action | None:
    if kind == "fold":
        return joker_draw.Fold(event["box"], timed_out=event.get("timed_out", False))
    if kind == "bet":
        return joker_draw.Bet(event["box"])
    if kind == "exchange":
        return joker_draw.Exchange(event["box"], tuple(parse_cards(" ".join(event["discarded"]))))
    return None


def replay_joker_draw(round_: Round) -> ReplayReport:
    report = ReplayReport(round_id=round_.pk)
    if round_.status != RoundStatus.SETTLED:
        report.mismatches.append(
            f"round {round_.pk} is {round_.status}: only settled rounds replay"
        )
        return report
    if fairness.commitment(round_.server_seed) != round_.commitment:
        report.mismatches.append("the revealed server seed does not match the commitment (FS-2)")
    recorded = list(round_.events.order_by("sequence").values("kind", "data"))
    opened = recorded[0]["data"]
    deck = fairness.deck_order(round_.server_seed, round_.client_seed, round_.nonce, jokers=1)
    stakes = [
        joker_draw.Stake(b["box"], Decimal(b["ante"]), Decimal(b["bonus"]) if b["bonus"] else None)
        for b in opened["boxes"]
    ]
    bet_version, bonus_version = round_.bet_paytable_version, round_.bonus_paytable_version
    if bet_version is None or bonus_version is None:
        report.mismatches.append("the round does not name the paytable versions it used (JD-14)")
        return report
    state, produced = joker_draw.start_round(
        deck, stakes, bet_paytable=bet_version.odds(), bonus_paytable=bonus_version.odds()
    )
    for event in recorded[1:]:
        action = _decision(event["data"], event["kind"])
        if action is not None:
            state, more = joker_draw.apply(state, action)
            produced += more
    _compare_events(report, [(e["kind"], e["data"]) for e in recorded[1:]], produced)
    _compare_payouts(report, round_, state)
    return report


def _compare_events(
    report: ReplayReport,
    recorded: list[tuple[str, dict[str, Any]]],
    produced: list[joker_draw.Event],
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


def _compare_payouts(report: ReplayReport, round_: Round, state: joker_draw.RoundState) -> None:
    settlements = {s.box: s for s in round_.box_settlements.all()}
    for result in state.results:
        record = settlements.get(result.box)
        if record is None:
            report.mismatches.append(f"box {result.box} has no payout record")
            continue
        expected = (result.ante, result.bet, result.bonus, result.total, result.category)
        stored = (
            record.ante_result,
            record.bet_result,
            record.bonus_result,
            record.total_result,
            record.category,
        )
        if expected != stored:
            report.mismatches.append(f"box {result.box}: replayed {expected}, recorded {stored}")
    net = sum((r.total for r in state.results), Decimal(0))
    ledger_net = LedgerEntry.objects.filter(
        transaction__reference__startswith=f"round:{round_.pk}:",
        account__kind=AccountKind.PLAYER_WALLET,
    ).aggregate(total=Sum("amount"))["total"] or Decimal(0)
    if ledger_net != net:
        report.mismatches.append(f"the player's ledger net is {ledger_net}, the replay says {net}")
