"""Replay a settled seven-card stud hand (FS-7), and check the last-card rule (ST-9) on its
recorded events."""

from __future__ import annotations

from typing import Any

from games.engine import stud
from games.engine.betting import WAGERS, Action, ActionKind, PeerEvent
from games.engine.common import RuleViolation
from games.engine.dealer import Deck
from games.engine.stud import StudEvent
from games.models import Round, TableLimits
from games.peer.hands import SERVICE_EVENTS
from games.peer.replay import compare_stacks_and_ledger
from games.stud.hand import ACTIONS, Hand, engine_table
from games.tables.replay import compare_events, revealed
from games.tables.table_game import ReplayReport


def replay_stud(round_: Round) -> ReplayReport:
    """A stud hand: dealt again from the seeds with the limits version it was played under, the
    recorded decisions applied, and the events, the finishing stacks and the ledger compared."""
    report = ReplayReport(round_id=round_.pk)
    seed = revealed(round_, report)
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
                compare_events(report, played, produced)  # shows where the deals part
                report.mismatches.append(f"event {number}: the replay refuses {kind}: {refused}")
                return report
            produced += more
    compare_events(report, played, produced)
    report.mismatches += last_card_mismatches(played)
    stored = Hand.from_json(round_.engine_state).state
    compare_stacks_and_ledger(report, round_, state, stored)
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
        dealt = [(c["card"], c["seat"]) for c in data["cards"]] if kind == PeerEvent.DEAL else []
        if kind == StudEvent.COMMON_CARD:
            dealt = [(data["card"], -1)]
        for card, seat in dealt:
            if holder.get(card) in folded:
                mismatches.append(
                    f"event {number}: {card}, folded by seat {holder[card]}, is dealt again (ST-9)"
                )
            holder[card] = seat
        if kind == PeerEvent.BURN:
            burns.add(data["card"])
        elif kind == PeerEvent.FOLD:
            folded.add(data["seat"])
        elif kind == PeerEvent.RESHUFFLE and set(data["returned"]) != burns:
            mismatches.append(
                f"event {number}: the reshuffle returns {' '.join(data['returned'])}, "
                f"not the burns {' '.join(sorted(burns))} (ST-9)"
            )
    return mismatches
