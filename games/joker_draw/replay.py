"""Replay a settled joker draw round: the deck dealt again from the seeds, the recorded
decisions applied, and every event, every box's payout record and the player's ledger net
compared with what was stored (FS-7)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db.models import Sum

from games.engine import fairness, joker_draw
from games.engine.cards import parse_cards
from games.engine.joker_draw import JokerDrawEvent
from games.models import Round
from games.tables.replay import compare_events, revealed
from games.tables.table_game import ReplayReport
from payouts.approvals import ChangeStatus
from payouts.models import AccountKind, LedgerEntry


def _decision(event: dict[str, Any], kind: str) -> joker_draw.Action | None:
    if kind == JokerDrawEvent.FOLD:
        return joker_draw.Fold(event["box"], timed_out=event.get("timed_out", False))
    if kind == JokerDrawEvent.BET:
        return joker_draw.Bet(event["box"])
    if kind == JokerDrawEvent.EXCHANGE:
        return joker_draw.Exchange(event["box"], tuple(parse_cards(" ".join(event["discarded"]))))
    return None


def replay_joker_draw(round_: Round) -> ReplayReport:
    report = ReplayReport(round_id=round_.pk)
    seed = revealed(round_, report)
    if seed is None:
        return report
    recorded = list(round_.events.order_by("sequence").values("kind", "data"))
    opened = recorded[0]["data"]
    deck = fairness.deck_order(seed, round_.client_seed, round_.nonce, jokers=1)
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
    compare_events(report, [(e["kind"], e["data"]) for e in recorded[1:]], produced)
    _compare_payouts(report, round_, state)
    return report


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
    for correction in round_.corrections.filter(status=ChangeStatus.APPROVED).order_by("pk"):
        amounts = correction.box_amounts()
        net += sum(amounts.values(), Decimal(0))
        per_box = ", ".join(f"box {box} {amount:+.2f}" for box, amount in sorted(amounts.items()))
        report.corrections.append(
            f"correction {correction.pk} ({per_box}) approved by {correction.approved_by}: "
            f"{correction.reason}"
        )
    ledger_net = LedgerEntry.objects.filter(
        transaction__reference__startswith=f"round:{round_.pk}:",
        account__kind=AccountKind.PLAYER_WALLET,
    ).aggregate(total=Sum("amount"))["total"] or Decimal(0)
    if ledger_net != net:
        report.mismatches.append(
            f"the player's ledger net is {ledger_net}, the replay and its corrections say {net}"
        )
