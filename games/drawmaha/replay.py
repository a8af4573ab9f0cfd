"""Replay a settled Drawmaha hand (FS-7)."""

from __future__ import annotations

from typing import Any

from games.drawmaha import hand as drawmaha_hand
from games.engine import drawmaha
from games.engine.betting import WAGERS, Action, ActionKind
from games.engine.cards import parse_cards
from games.engine.common import RuleViolation
from games.engine.dealer import Deck
from games.engine.drawmaha import DrawAction, DrawChoice, DrawmahaEvent
from games.models import Round, TableLimits
from games.peer.hands import SERVICE_EVENTS
from games.peer.replay import compare_stacks_and_ledger
from games.tables.replay import compare_events, revealed
from games.tables.table_game import ReplayReport


def _drawmaha_decision(kind: str, data: dict[str, Any]) -> Action | DrawAction | None:
    """The decision a recorded Drawmaha event stands for, if it is one."""
    if kind in drawmaha_hand.BETTING:
        amount = data["amount"] if kind in WAGERS else None
        return Action(data["seat"], ActionKind(kind), amount)
    if kind == DrawmahaEvent.EXCHANGE:
        discards = tuple(parse_cards(" ".join(data["discards"])))
        return DrawAction(data["seat"], DrawChoice.EXCHANGE, discards)
    if kind in (
        DrawmahaEvent.TWIST_TAKEN,
        DrawmahaEvent.TWIST_REJECTED,
    ):  # DM-6: the player's take or reject
        choice = DrawChoice.TAKE if kind == DrawmahaEvent.TWIST_TAKEN else DrawChoice.REJECT
        return DrawAction(data["seat"], choice)
    return None


def replay_drawmaha(round_: Round) -> ReplayReport:
    """A Drawmaha hand: dealt again from the seeds with the limits version and the button it
    was played with, the recorded decisions (bets, exchanges, twists) applied, and the events,
    the finishing stacks and the ledger compared."""
    report = ReplayReport(round_id=round_.pk)
    seed = revealed(round_, report)
    if seed is None:
        return report
    recorded = list(round_.events.order_by("sequence").values_list("kind", "data"))
    opened = recorded[0][1]
    limits = TableLimits.objects.get(table_id=round_.table_id, number=opened["limits_version"])
    deck = Deck.shuffled(seed, round_.client_seed, round_.nonce)
    state, produced = drawmaha.start_hand(
        drawmaha_hand.engine_table(limits), opened["starting_stacks"], opened["button"], deck
    )
    played = [(kind, data) for kind, data in recorded[1:] if kind not in SERVICE_EVENTS]
    for number, (kind, data) in enumerate(played, start=1):
        decision = _drawmaha_decision(kind, data)
        if decision is None:
            continue
        try:
            state, more = drawmaha.apply(state, decision)
        except RuleViolation as refused:
            compare_events(report, played, produced)  # shows where the deals part
            report.mismatches.append(f"event {number}: the replay refuses {kind}: {refused}")
            return report
        produced += more
    compare_events(report, played, produced)
    stored = drawmaha_hand.Hand.from_json(round_.engine_state).state
    compare_stacks_and_ledger(report, round_, state, stored)
    return report
