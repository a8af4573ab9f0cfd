"""How settled joker draw boxes were played against best play, and who plays close to it.

Each settled box is assessed once, after its settlement and off the round's path (the task
``assess_box_play`` every few minutes, and the nightly RTP observation first): its decisions
are read from the round's hand history and judged by the best-play solution of its bet
paytable version (``games.engine.joker_draw_review``). The record (``BoxPlay``) keeps what the
decisions should return and what they gave away against best play; it is never changed. A box
whose paytable nobody has solved yet waits until somebody does.

Staff read, per player and currency, the average given away per round and per original ante;
players who give away less than ``BEST_PLAY_ADVANTAGE_MAX_LOSS`` antes per ante over at least
``BEST_PLAY_ADVANTAGE_MIN_ROUNDS`` rounds are listed as advantage players, with their rounds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import Count, Sum

from games.engine import joker_draw_review
from games.engine.cards import parse_cards
from games.engine.common import cards_from_json
from games.engine.joker_draw import BoxStatus, JokerDrawEvent, from_json
from games.engine.joker_draw_best import Option
from games.joker_draw import best_play
from games.models import EXPECTATION_PLACES, BoxPlay, BoxSettlement, RoundEvent
from games.tables.hand_names import action_name
from payouts.models import PaytableVersion

BATCH = 2000  # boxes read and written at once
_PLACES = Decimal(1).scaleb(-EXPECTATION_PLACES)


def assess_boxes(limit: int | None = None) -> int:
    """Assess the settled boxes not yet assessed whose bet paytable has a solution, oldest
    first (at most `limit`); returns how many it judged. Safe to run twice at once: a box
    judged meanwhile keeps its first record."""
    done = 0
    for version_id in _waiting_versions():
        version = PaytableVersion.objects.get(pk=version_id)
        solution = best_play.solution_for(version.odds())
        if solution is None:
            continue  # nobody has solved these lines yet: the boxes wait
        while limit is None or done < limit:
            size = BATCH if limit is None else min(BATCH, limit - done)
            batch = list(
                BoxSettlement.objects.filter(bet_paytable_version=version_id, play__isnull=True)
                .order_by("round_id", "box")
                .select_related("round")[:size]
            )
            if not batch:
                break
            done += _record(batch, solution)
    return done


def _waiting_versions() -> list[int]:
    return list(
        BoxSettlement.objects.filter(play__isnull=True)
        .order_by()
        .values_list("bet_paytable_version", flat=True)
        .distinct()
    )


def _record(batch: list[BoxSettlement], solution: best_play.best.Solution) -> int:
    draws = _draws({settlement.round_id for settlement in batch})
    plays = []
    for settlement in batch:
        box = from_json(settlement.round.engine_state).box(settlement.box)
        review = joker_draw_review.review(
            solution,
            parse_cards(settlement.initial_cards),
            draws.get((settlement.round_id, settlement.box), []),
            joker_draw_review.BET if box.status == BoxStatus.BET else joker_draw_review.FOLD,
        )
        plays.append(
            BoxPlay(
                settlement=settlement,
                base_ante=box.base_ante,
                expected_result=_money(box.base_ante, review.expected),
                loss=_money(box.base_ante, review.loss),
                decisions=[
                    {
                        "decision": decision.number,
                        "taken": _option(decision.taken),
                        "best": _option(decision.best),
                    }
                    for decision in review.decisions
                ],
                solution=solution.digest,
            )
        )
    return len(BoxPlay.objects.bulk_create(plays, ignore_conflicts=True))


def _draws(round_ids: Iterable[int]) -> dict[tuple[int, int], list[joker_draw_review.Draw]]:
    """Every exchange of the rounds' boxes, in order, from the hand history."""
    draws: dict[tuple[int, int], list[joker_draw_review.Draw]] = defaultdict(list)
    events = RoundEvent.objects.filter(
        round_id__in=list(round_ids), kind=JokerDrawEvent.EXCHANGE
    ).order_by("round_id", "sequence")
    for round_id, data in events.values_list("round_id", "data"):
        draws[round_id, data["box"]].append(
            joker_draw_review.Draw(
                cards_from_json(data["discarded"]), cards_from_json(data["drawn"])
            )
        )
    return draws


def _money(base_ante: Decimal, antes: float) -> Decimal:
    return (base_ante * Decimal(repr(antes))).quantize(_PLACES)


def _option(option: Option) -> dict[str, object]:
    return {
        "action": option.action,
        "keep": [str(card) for card in option.keep],
        "ev": round(option.ev, EXPECTATION_PLACES),
    }


# Players against best play ---------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerPlay:
    """One player's assessed boxes in one currency."""

    player_id: int
    username: str
    currency: str
    rounds: int
    boxes: int
    given_away: Decimal  # against best play, in the currency
    antes: Decimal  # the boxes' original antes

    @property
    def per_round(self) -> Decimal:
        return (self.given_away / self.rounds).quantize(Decimal("0.0001"))

    @property
    def per_ante(self) -> Decimal:
        """What the player gives away per original ante staked, in antes."""
        return (self.given_away / self.antes).quantize(Decimal("0.0001"))

    @property
    def advantage(self) -> bool:
        return self.rounds >= settings.BEST_PLAY_ADVANTAGE_MIN_ROUNDS and self.per_ante <= Decimal(
            str(settings.BEST_PLAY_ADVANTAGE_MAX_LOSS)
        )


def players_against_best_play() -> list[PlayerPlay]:
    """Every player with assessed boxes, per currency, closest to best play first."""
    rows = (
        BoxPlay.objects.values(
            "settlement__player", "settlement__player__username", "settlement__currency"
        )
        .annotate(
            rounds=Count("settlement__round", distinct=True),
            boxes=Count("pk"),
            given_away=Sum("loss"),
            antes=Sum("base_ante"),
        )
        .order_by("settlement__player__username", "settlement__currency")
    )
    players = [
        PlayerPlay(
            row["settlement__player"],
            row["settlement__player__username"],
            row["settlement__currency"],
            row["rounds"],
            row["boxes"],
            row["given_away"],
            row["antes"],
        )
        for row in rows
    ]
    return sorted(players, key=lambda play: (play.per_ante, play.username, play.currency))


@dataclass(frozen=True)
class AssessedRound:
    round_id: int
    table: str
    settled_at: datetime
    boxes: int
    given_away: Decimal


def rounds_of(player_id: int, currency: str, count: int) -> list[AssessedRound]:
    """The player's latest assessed rounds in the currency, with what each gave away."""
    rows = (
        BoxPlay.objects.filter(settlement__player=player_id, settlement__currency=currency)
        .values("settlement__round", "settlement__table__name", "settlement__settled_at")
        .annotate(boxes=Count("pk"), given_away=Sum("loss"))
        .order_by("-settlement__round")[:count]
    )
    return [
        AssessedRound(
            row["settlement__round"],
            row["settlement__table__name"],
            row["settlement__settled_at"],
            row["boxes"],
            row["given_away"],
        )
        for row in rows
    ]


@dataclass(frozen=True)
class DecisionRow:
    """One decision of a judged box, for the round's page: what was taken and what best play
    takes, each in words with its value in original antes."""

    box: int
    decision: int
    taken: str
    taken_value: float
    best: str
    best_value: float


def round_decisions(round_id: int) -> list[DecisionRow]:
    """Every decision of the round's judged boxes, box by box."""
    plays = BoxPlay.objects.filter(settlement__round=round_id).order_by("settlement__box")
    return [
        DecisionRow(
            box,
            decision["decision"],
            _words(decision["taken"]),
            decision["taken"]["ev"],
            _words(decision["best"]),
            decision["best"]["ev"],
        )
        for box, decisions in plays.values_list("settlement__box", "decisions")
        for decision in decisions
    ]


def _words(option: dict[str, Any]) -> str:
    name = action_name(option["action"])
    return f"{name} ({' '.join(option['keep'])})" if option["keep"] else name
