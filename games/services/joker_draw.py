"""Joker draw poker rounds: open, act, time out and settle, with every cent through the ledger.

Each call runs in one database transaction under a row lock on the round, so two requests on
the same round never both apply, and a round is always either as it was or fully moved on:
the engine state, the hand history and the ledger postings commit together. A round therefore
survives a restart exactly where it was.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

from django.db import transaction
from django.db.models import Exists, Subquery
from django.utils import timezone

from casino.faults import fault_point
from games import live
from games.engine import fairness, joker_draw
from games.engine.cards import Card, parse_card
from games.engine.hands import evaluate
from games.engine.joker_draw import Bet, Exchange, Fold, RuleViolation, Stake
from games.models import (
    BoxSettlement,
    Game,
    Round,
    RoundEvent,
    RoundStatus,
    Table,
    TableLimits,
    TableStatus,
)
from games.services.rounds import RoundRefused, limits_in_force
from payouts.models import ChangeStatus, PaytableLine, PaytableVersion, TransactionKind
from payouts.services import GameAccounts, Posting, Transfer, game_accounts, post_transactions

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


@dataclass(frozen=True)
class BoxRequest:
    box: int
    ante: Decimal
    bonus: Decimal | None = None


ACTIONS = ("fold", "bet", "exchange")


class DecisionOverdue(Exception):
    """A decision came after its box's time ran out, inside a caller's transaction: the caller
    rolls back, folds the box with `expire_decision` and decides again (JD-4)."""


def open_round(
    *, player: User, table: Table, boxes: Sequence[BoxRequest], client_seed: str | None = None
) -> Round:
    """Take the antes and BONUS bets, commit to a shuffle (FS-2) and deal (JD-3)."""
    limits = limits_in_force(table, game=Game.JOKER_DRAW, rule="JD-1")
    stakes = _checked_stakes(limits, boxes)
    (bet_version, bet_odds), (bonus_version, bonus_odds) = _approved_versions(limits)
    server_seed = fairness.new_server_seed()
    client_seed = client_seed or fairness.new_server_seed()[:16]
    with transaction.atomic():
        # The table lock makes nonces gapless and unique (FS-2) and keeps a player to one
        # unfinished round here; it is taken late and held for a few statements only.
        status = (
            Table.objects.select_for_update(no_key=True)
            .filter(pk=table.pk)
            .values_list("status")
            .get()
        )
        if status != (TableStatus.OPEN,):
            raise RoundRefused(f"{table} is closed.", field="table", rule="JD-2", status=409)
        # Both facts the lock guards in one statement (not in the locking one: that statement's
        # snapshot predates the wait for the lock).
        busy, last_nonce = (
            Table.objects.filter(pk=table.pk)
            .annotate(
                busy=Exists(
                    Round.objects.filter(table=table, player=player, status=RoundStatus.DECIDING)
                ),
                last_nonce=Subquery(
                    Round.objects.filter(table=table).order_by("-nonce").values("nonce")[:1]
                ),
            )
            .values_list("busy", "last_nonce")
            .get()
        )
        if busy:
            raise RoundRefused(
                "Finish your round at this table before starting another.",
                field="table",
                rule="JD-4",
                status=409,
            )
        nonce = (last_nonce or 0) + 1
        deck = fairness.deck_order(server_seed, client_seed, nonce, jokers=1)
        state, events = joker_draw.start_round(
            deck, stakes, bet_paytable=bet_odds, bonus_paytable=bonus_odds
        )
        round_ = Round.objects.create(
            table=table,
            nonce=nonce,
            player=player,
            commitment=fairness.commitment(server_seed),
            server_seed=server_seed,
            client_seed=client_seed,
            engine_state=joker_draw.to_json(state),
            bet_paytable_version=bet_version,
            bonus_paytable_version=bonus_version,
            decision_deadline=timezone.now() + _decision_time(limits),
            history_length=1 + len(events),  # the opening facts, then the deal
        )
        antes = sum((s.ante for s in stakes), Decimal(0))
        bonuses = sum((s.bonus or Decimal(0) for s in stakes), Decimal(0))
        accounts = game_accounts(player, table.currency)
        postings = [
            Posting(accounts.wallet, -(antes + bonuses)),
            Posting(accounts.stakes_in_play, antes),
        ]
        if bonuses:
            postings.append(Posting(accounts.bonus, bonuses))
        history = [joker_draw.Event("round_opened", _opening_facts(round_, stakes)), *events]
        _record(round_, history, start=0, actor=player)
        post_transactions(
            [
                Transfer(
                    kind=TransactionKind.STAKE,
                    postings=postings,
                    reason=f"{round_}: antes and BONUS",
                    created_by=player,
                    reference=f"round:{round_.pk}:open",
                )
            ]
        )
        fault_point("round.opened")
        _schedule_timeout(round_)
    return round_


def act(
    *,
    player: User,
    round_id: int,
    box: int,
    action: str,
    cards: Sequence[str] = (),
    fold_overdue_first: bool = True,
) -> Round:
    """Apply one box decision (JD-4..JD-7); settles and pays when the last box closes.

    An overdue box is folded first, in a transaction of its own, so the fold stands even when
    the late decision is then refused. Callers inside an outer transaction (an idempotent
    request) pass `fold_overdue_first=False`: an overdue round then raises `DecisionOverdue`,
    and they fold it outside their transaction and call again. That spares the common, timely
    decision a query of its own.
    """
    if fold_overdue_first:
        expire_decision(round_id)
    with transaction.atomic():
        round_ = _locked_round(round_id, player)
        if round_.status != RoundStatus.DECIDING:
            raise RoundRefused("The round is over.", field="action", rule="JD-8", status=409)
        deadline = round_.decision_deadline
        if not fold_overdue_first and deadline is not None and deadline <= timezone.now():
            raise DecisionOverdue(round_id)
        _apply(round_, _engine_action(box, action, cards), actor=player)
    return round_


def expire_decision(round_id: int) -> Round | None:
    """Fold the box whose decision time ran out (the timer task; also run on every touch)."""
    overdue = Round.objects.filter(
        pk=round_id, status=RoundStatus.DECIDING, decision_deadline__lte=timezone.now()
    )
    if not overdue.exists():  # the common case: on time, nothing to lock
        return None
    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update(of=("self",), no_key=True)
            .select_related("table")
            .filter(pk=round_id)
            .first()
        )
        if round_ is None:
            return None
        _fold_overdue(round_)
    return round_


# Internals -----------------------------------------------------------------------------------


def _checked_stakes(limits: TableLimits, boxes: Sequence[BoxRequest]) -> list[Stake]:
    # Approved limits of a joker draw table have every joker draw field (games.limits).
    min_ante, max_ante = cast(Decimal, limits.min_ante), cast(Decimal, limits.max_ante)
    ante_step = cast(Decimal, limits.ante_step)
    bonus_min, bonus_max = cast(Decimal, limits.bonus_min), cast(Decimal, limits.bonus_max)
    if not boxes:
        raise RoundRefused("Play at least one box.", field="boxes", rule="JD-15")
    allowed = limits.boxes_per_round or 1
    if len(boxes) > allowed:
        raise RoundRefused(
            f"This table allows {allowed} box{'es' if allowed > 1 else ''} per round.",
            field="boxes",
            rule="JD-15",
        )
    numbers = [b.box for b in boxes]
    if sorted(numbers) != list(range(1, len(boxes) + 1)):
        raise RoundRefused(
            f"Boxes are numbered 1 to {len(boxes)}, each once.", field="boxes", rule="JD-3"
        )
    stakes = []
    for request in sorted(boxes, key=lambda b: b.box):
        where = f"boxes[{request.box}]"
        if not min_ante <= request.ante <= max_ante:
            raise RoundRefused(
                f"The ante must be from {min_ante} to {max_ante}.",
                field=f"{where}.ante",
                rule="JD-2",
            )
        if request.ante % ante_step:
            raise RoundRefused(
                f"The ante {request.ante} is not a whole multiple of the ante step {ante_step}.",
                field=f"{where}.ante",
                rule="JD-2",
            )
        if request.bonus is not None and not bonus_min <= request.bonus <= bonus_max:
            raise RoundRefused(
                f"The BONUS must be from {bonus_min} to {bonus_max}.",
                field=f"{where}.bonus",
                rule="JD-13",
            )
        stakes.append(Stake(box=request.box, ante=request.ante, bonus=request.bonus))
    return stakes


def _approved_versions(
    limits: TableLimits,
) -> tuple[
    tuple[PaytableVersion, joker_draw.Paytable], tuple[PaytableVersion, joker_draw.Paytable]
]:
    """The bet and BONUS paytable versions in force now, with their odds (JD-14): one query for
    the lines of the newest approved version of each paytable, with their versions."""
    in_force = (
        PaytableVersion.objects.filter(
            paytable_id__in=[limits.bet_paytable_id, limits.bonus_paytable_id],
            status=ChangeStatus.APPROVED,
        )
        .order_by("paytable_id", "-number")
        .distinct("paytable_id")
        .values("pk")
    )
    versions: dict[int, PaytableVersion] = {}
    odds: dict[int, dict[str, Fraction]] = {}
    for line in PaytableLine.objects.filter(version__in=in_force).select_related(
        "version__paytable"
    ):
        paytable_id = line.version.paytable_id
        versions.setdefault(paytable_id, line.version)
        odds.setdefault(paytable_id, {})[line.category] = line.odds
    bet, bonus = limits.bet_paytable_id, limits.bonus_paytable_id
    if bet not in versions or bonus not in versions:
        raise RoundRefused(
            "The table's paytable has no approved version.", field="table", rule="JD-14", status=409
        )
    return (versions[bet], odds[bet]), (versions[bonus], odds[bonus])


def _locked_round(round_id: int, player: User) -> Round:
    round_ = (
        Round.objects.select_for_update(of=("self",), no_key=True)
        # The paytable names too: the response shows them.
        .select_related(
            "table", "bet_paytable_version__paytable", "bonus_paytable_version__paytable"
        )
        .filter(pk=round_id, player=player, table__game=Game.JOKER_DRAW)
        .first()
    )
    if round_ is None:  # another player's round is as good as no round at all
        raise RoundRefused("No such round.", field="round", rule="JD-4", status=404)
    round_.player = player
    return round_


def _engine_action(box: int, action: str, cards: Sequence[str]) -> joker_draw.Action:
    if action not in ACTIONS:
        raise RoundRefused(
            f"action must be one of {', '.join(ACTIONS)}.", field="action", rule="JD-5"
        )
    if action != "exchange":
        if cards:
            raise RoundRefused("Only an exchange names cards.", field="cards", rule="JD-5")
        return Fold(box) if action == "fold" else Bet(box)
    try:
        parsed: tuple[Card, ...] = tuple(parse_card(text) for text in cards)
    except ValueError as bad:
        raise RoundRefused(str(bad), field="cards", rule="JD-5") from None
    return Exchange(box, parsed)


def _decision_time(limits: TableLimits | None) -> timedelta:
    return timedelta(seconds=limits.decision_timeout_seconds or 0 if limits else 0)


def _fold_overdue(round_: Round) -> None:
    """Fold every box whose decision time has run out, each box having its full time (JD-4)."""
    now = timezone.now()
    timeout = _decision_time(round_.table.active_limits())
    while (
        round_.status == RoundStatus.DECIDING
        and round_.decision_deadline
        and round_.decision_deadline <= now
    ):
        state = joker_draw.from_json(round_.engine_state)
        box = state.to_act
        if box is None:
            return
        deadline = round_.decision_deadline
        _apply(round_, Fold(box.number, timed_out=True), actor=None)
        if round_.status == RoundStatus.DECIDING:
            round_.decision_deadline = deadline + timeout
            round_.save(update_fields=["decision_deadline"])


def _apply(round_: Round, action: joker_draw.Action, *, actor: User | None) -> None:
    state = joker_draw.from_json(round_.engine_state)
    try:
        extra = joker_draw.extra_stake(state, action)
        state, events = joker_draw.apply(state, action)
    except RuleViolation as refused:
        raise RoundRefused(refused.message, field=refused.field, rule=refused.rule) from None
    accounts = game_accounts(_player_of(round_), round_.table.currency)
    transfers = []
    if extra:
        transfers.append(
            Transfer(
                kind=TransactionKind.STAKE,
                postings=[
                    Posting(accounts.wallet, -extra),
                    Posting(accounts.stakes_in_play, extra),
                ],
                reason=f"{round_}: box {action.box} {type(action).__name__.lower()}",
                created_by=actor,
                reference=f"round:{round_.pk}:event:{round_.history_length}",
            )
        )
    _record(round_, events, start=round_.history_length, actor=actor)
    round_.history_length += len(events)
    round_.engine_state = joker_draw.to_json(state)
    fields = ["engine_state", "history_length"]
    if state.phase == joker_draw.Phase.SETTLED:
        transfers.append(_settle(round_, state, accounts))
        fields += ["status", "settled_at", "decision_deadline"]
    else:
        round_.decision_deadline = timezone.now() + _decision_time(round_.table.active_limits())
        fields.append("decision_deadline")
    fault_point("round.before_update")
    round_.save(update_fields=fields)
    # The ledger goes last: the shared house accounts stay locked only until the commit.
    post_transactions(transfers)
    if round_.status == RoundStatus.SETTLED:
        fault_point("round.settled")
    if round_.status == RoundStatus.DECIDING:
        _schedule_timeout(round_)


def _settle(round_: Round, state: joker_draw.RoundState, accounts: GameAccounts) -> Transfer:
    """Write the payout records and return the one transfer that pays every box (JD-11..13)."""
    player = _player_of(round_)
    bet_version = round_.bet_paytable_version
    if bet_version is None:
        raise ValueError(f"{round_} names no bet paytable version (JD-14)")
    currency = round_.table.currency
    now = timezone.now()
    dealer = evaluate(state.dealer_final)
    held_antes = held_bonuses = paid = Decimal(0)
    records = []
    for box, result in zip(state.boxes, state.results, strict=True):
        bet_staked = 2 * box.ante if box.status == joker_draw.BoxStatus.BET else Decimal(0)
        bonus_staked = box.bonus or Decimal(0)
        held_antes += box.ante + bet_staked
        held_bonuses += bonus_staked
        paid += box.ante + bet_staked + bonus_staked + result.total
        records.append(
            BoxSettlement(
                round=round_,
                box=box.number,
                player=player,
                table=round_.table,
                currency=currency,
                status=box.status.value,
                initial_cards=" ".join(map(str, box.initial_cards)),
                final_cards=" ".join(map(str, box.cards)),
                category=result.category,
                hand=result.hand,
                dealer_cards=" ".join(map(str, state.dealer_final)),
                dealer_category=dealer.category,
                dealer_qualifies=joker_draw.dealer_qualifies(dealer),
                ante_staked=box.ante,
                bet_staked=bet_staked,
                bonus_staked=bonus_staked,
                bet_paytable_version=bet_version,
                bet_line=result.bet_line or "",
                bonus_paytable_version=round_.bonus_paytable_version if box.bonus else None,
                bonus_category=result.bonus_category or "",
                bonus_line=result.bonus_line or "",
                ante_result=result.ante,
                bet_result=result.bet,
                bonus_result=result.bonus,
                total_result=result.total,
                settled_at=now,
            )
        )
    BoxSettlement.objects.bulk_create(records)
    house_result = held_antes + held_bonuses - paid
    postings = [Posting(accounts.stakes_in_play, -held_antes)]
    if held_bonuses:
        postings.append(Posting(accounts.bonus, -held_bonuses))
    if paid:
        postings.append(Posting(accounts.wallet, paid))
    if house_result:
        postings.append(Posting(accounts.house_bankroll, house_result))
    round_.status = RoundStatus.SETTLED
    round_.settled_at = now
    round_.decision_deadline = None
    return Transfer(
        kind=TransactionKind.SETTLEMENT,
        postings=postings,
        reason=f"{round_}: settlement",
        reference=f"round:{round_.pk}:settle",
    )


def _player_of(round_: Round) -> User:
    if round_.player is None:
        raise ValueError(f"{round_} is a banked round without a player")
    return round_.player


def _record(
    round_: Round, events: Sequence[joker_draw.Event], *, start: int, actor: User | None
) -> None:
    """Append events to the hand history after the `start` events already there."""
    RoundEvent.objects.bulk_create(
        RoundEvent(round=round_, sequence=start + n, kind=event.kind, data=event.data, actor=actor)
        for n, event in enumerate(events)
    )
    live.table_changed(round_.table_id)


def _opening_facts(round_: Round, stakes: Sequence[Stake]) -> dict[str, Any]:
    return {
        "boxes": [
            {"box": s.box, "ante": f"{s.ante:.2f}", "bonus": f"{s.bonus:.2f}" if s.bonus else None}
            for s in stakes
        ],
        "table": round_.table_id,
        "nonce": round_.nonce,
        "commitment": round_.commitment,
        "client_seed": round_.client_seed,
        "bet_paytable_version": round_.bet_paytable_version_id,
        "bonus_paytable_version": round_.bonus_paytable_version_id,
    }


def _schedule_timeout(round_: Round) -> None:
    """Ask a worker to fold at the deadline. If the broker is down the fold still happens: the
    sweeper task and the next touch of the round run the same check."""
    from games.tasks import expire_joker_draw_decision

    round_id, deadline = round_.pk, round_.decision_deadline

    def send() -> None:
        try:
            expire_joker_draw_decision.apply_async((round_id,), eta=deadline)
        except Exception:  # the broker being down must not fail a committed round
            logger.warning(
                "could not schedule the decision timer of round %s", round_id, exc_info=True
            )

    transaction.on_commit(send)
