"""Replay a settled joker draw round, seven-card stud or Drawmaha hand from its revealed seed and
recorded decisions (FS-7).

The deck is recomputed from the server seed, client seed and nonce; the commitment is checked;
the recorded decisions are fed to the engine again; and every event it produces (every card,
with its deck position, and every amount) must equal the hand history, the payout records (the
stacks, for the peer games) and the ledger postings of the round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db.models import Sum

from games.drawmaha import hand as drawmaha_service
from games.engine import drawmaha, fairness, joker_draw, stud
from games.engine.betting import WAGERS, Action, ActionKind
from games.engine.cards import parse_cards
from games.engine.common import Event, RuleViolation
from games.engine.dealer import Deck
from games.engine.drawmaha import DrawAction, DrawChoice
from games.models import Game, Round, RoundStatus, TableLimits
from games.peer.hands import SERVICE_EVENTS, from_cents
from games.stud.hand import ACTIONS, Hand, engine_table
from payouts.models import AccountKind, ChangeStatus, LedgerEntry, LedgerTransaction


@dataclass
class ReplayReport:
    round_id: int
    mismatches: list[str] = field(default_factory=list)
    events_checked: int = 0
    # Approved settlement corrections, described: the round as played plus these is what paid.
    corrections: list[str] = field(default_factory=list)

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


def replay_round(round_: Round) -> ReplayReport:
    """Replay a round of any game that has one."""
    if round_.table.game == Game.SEVEN_CARD_STUD:
        report = replay_stud(round_)
    elif round_.table.game == Game.DRAWMAHA:
        report = replay_drawmaha(round_)
    else:
        report = replay_joker_draw(round_)
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


def _revealed(round_: Round, report: ReplayReport) -> str | None:
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


def replay_joker_draw(round_: Round) -> ReplayReport:
    report = ReplayReport(round_id=round_.pk)
    seed = _revealed(round_, report)
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
    _compare_events(report, [(e["kind"], e["data"]) for e in recorded[1:]], produced)
    _compare_payouts(report, round_, state)
    return report


def _compare_events(
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


def replay_stud(round_: Round) -> ReplayReport:
    """A stud hand: dealt again from the seeds with the limits version it was played under, the
    recorded decisions applied, and the events, the finishing stacks and the ledger compared."""
    report = ReplayReport(round_id=round_.pk)
    seed = _revealed(round_, report)
    if seed is None:
        return report
    recorded = list(round_.events.order_by("sequence").values_list("kind", "data"))
    opened = recorded[0][1]
    limits = TableLimits.objects.get(table_id=round_.table_id, number=opened["limits_version"])
    deck = Deck.shuffled(seed, round_.client_seed, round_.nonce)
    state, produced = stud.start_hand(engine_table(limits), opened["starting_stacks"], deck)
    played = [(kind, data) for kind, data in recorded[1:] if kind not in SERVICE_EVENTS]
    for number, (kind, data) in enumerate(played, start=1):
        if kind in ACTIONS:
            amount = data["amount"] if kind in WAGERS else None
            try:
                state, more = stud.apply(state, Action(data["seat"], ActionKind(kind), amount))
            except RuleViolation as refused:
                _compare_events(report, played, produced)  # shows where the deals part
                report.mismatches.append(f"event {number}: the replay refuses {kind}: {refused}")
                return report
            produced += more
    _compare_events(report, played, produced)
    report.mismatches += last_card_mismatches(played)
    stored = Hand.from_json(round_.engine_state).state
    _compare_stacks_and_ledger(report, round_, state, stored)
    return report


def last_card_mismatches(played: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """ST-9 checked on a stud hand's recorded events themselves, whatever engine dealt them: a
    card of a folded hand is never dealt again, and the last-card reshuffle returns exactly the
    burns (never a folded or a live card)."""
    mismatches = []
    holder: dict[str, int] = {}
    folded: set[int] = set()
    burns: set[str] = set()
    for number, (kind, data) in enumerate(played, start=1):
        dealt = [(c["card"], c["seat"]) for c in data["cards"]] if kind == "deal" else []
        if kind == "common_card":
            dealt = [(data["card"], -1)]
        for card, seat in dealt:
            if holder.get(card) in folded:
                mismatches.append(
                    f"event {number}: {card}, folded by seat {holder[card]}, is dealt again (ST-9)"
                )
            holder[card] = seat
        if kind == "burn":
            burns.add(data["card"])
        elif kind == "fold":
            folded.add(data["seat"])
        elif kind == "reshuffle" and set(data["returned"]) != burns:
            mismatches.append(
                f"event {number}: the reshuffle returns {' '.join(data['returned'])}, "
                f"not the burns {' '.join(sorted(burns))} (ST-9)"
            )
    return mismatches


def _compare_stacks_and_ledger(
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


def _drawmaha_decision(kind: str, data: dict[str, Any]) -> Action | DrawAction | None:
    """The decision a recorded Drawmaha event stands for, if it is one."""
    if kind in drawmaha_service.BETTING:
        amount = data["amount"] if kind in WAGERS else None
        return Action(data["seat"], ActionKind(kind), amount)
    if kind == "exchange":
        discards = tuple(parse_cards(" ".join(data["discards"])))
        return DrawAction(data["seat"], DrawChoice.EXCHANGE, discards)
    if kind in ("twist_taken", "twist_rejected"):  # DM-6: the player's take or reject
        choice = DrawChoice.TAKE if kind == "twist_taken" else DrawChoice.REJECT
        return DrawAction(data["seat"], choice)
    return None


def replay_drawmaha(round_: Round) -> ReplayReport:
    """A Drawmaha hand: dealt again from the seeds with the limits version and the button it
    was played with, the recorded decisions (bets, exchanges, twists) applied, and the events,
    the finishing stacks and the ledger compared."""
    report = ReplayReport(round_id=round_.pk)
    seed = _revealed(round_, report)
    if seed is None:
        return report
    recorded = list(round_.events.order_by("sequence").values_list("kind", "data"))
    opened = recorded[0][1]
    limits = TableLimits.objects.get(table_id=round_.table_id, number=opened["limits_version"])
    deck = Deck.shuffled(seed, round_.client_seed, round_.nonce)
    state, produced = drawmaha.start_hand(
        drawmaha_service.engine_table(limits), opened["starting_stacks"], opened["button"], deck
    )
    played = [(kind, data) for kind, data in recorded[1:] if kind not in SERVICE_EVENTS]
    for number, (kind, data) in enumerate(played, start=1):
        decision = _drawmaha_decision(kind, data)
        if decision is None:
            continue
        try:
            state, more = drawmaha.apply(state, decision)
        except RuleViolation as refused:
            _compare_events(report, played, produced)  # shows where the deals part
            report.mismatches.append(f"event {number}: the replay refuses {kind}: {refused}")
            return report
        produced += more
    _compare_events(report, played, produced)
    stored = drawmaha_service.Hand.from_json(round_.engine_state).state
    _compare_stacks_and_ledger(report, round_, state, stored)
    return report
