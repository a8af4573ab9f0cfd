"""Joker draw poker rounds: open, act, time out and settle, with every cent through the ledger.

Each call runs in one database transaction (its caller's, when it is called inside one: a
refusal then rolls back the caller's work too) under a row lock on the round, so two requests
on the same round never both apply, and a round is always either as it was or fully moved on:
the engine state, the hand history and the ledger postings commit together. A round therefore
survives a restart exactly where it was. Each move returns the round with its engine state
(`RoundPlay`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import TYPE_CHECKING, Any, cast

from django.db import IntegrityError
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from casino import metrics
from casino.db import service_transaction
from casino.faults import fault_point
from casino.refusals import Kind
from games.engine import fairness, joker_draw
from games.engine.cards import Card, parse_card
from games.engine.joker_draw import Bet, Exchange, Fold, RuleViolation, Stake
from games.engine.rules import JokerDrawRule
from games.joker_draw import holds, sql
from games.models import (
    UNFINISHED_ROUND_CONSTRAINT,
    BoxSettlement,
    Game,
    Round,
    RoundStatus,
    Table,
    TableLimits,
    TableStatus,
)
from games.tables import live, seeds
from games.tables.rounds import RoundRefused, check_game, engine_refusal, no_limits
from payouts.approvals import ChangeStatus
from payouts.models import AccountKind, PaytableLine, PaytableVersion, TransactionKind
from payouts.protection import gate
from payouts.services import (
    GameAccounts,
    InsufficientFunds,
    Posting,
    Transfer,
    game_accounts,
    post_transactions,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


@dataclass(frozen=True)
class BoxRequest:
    box: int
    ante: Decimal
    bonus: Decimal | None = None


@dataclass(frozen=True)
class RoundPlay:
    """A round as a service left it, with its engine state as objects: what the response shows
    needs no second reading of the stored state."""

    round: Round
    state: joker_draw.RoundState


ACTIONS = ("fold", "bet", "exchange")


class JokerDrawHouseEvent(StrEnum):
    """What the house records in a joker draw round's history beside the engine's events."""

    ROUND_OPENED = "round_opened"  # the stakes taken and the rules in force


def open_round(
    *,
    player: User,
    table: Table | int,
    boxes: Sequence[BoxRequest],
    client_seed: str | None = None,
) -> RoundPlay:
    """Take the antes and BONUS bets and deal (JD-3) from the player's seed pair, committed
    before the stake (FS-2); a `client_seed` given here is the player's from this round on.
    `table` is the table or its id: the opening reads the table with its lock either way."""
    table_id = table if isinstance(table, int) else table.pk
    if client_seed is not None:
        seeds.checked_client_seed(client_seed)
    with service_transaction():
        opening = sql.lock_table(table_id)
        if opening is None:
            raise RoundRefused(
                _("There is no table %(table)s.") % {"table": table_id},
                field="table",
                rule=JokerDrawRule.TABLE,
            )
        table = opening.table
        check_game(table, game=Game.JOKER_DRAW, rule=JokerDrawRule.TABLE)
        if opening.limits_id is None:
            raise no_limits(table, rule=JokerDrawRule.TABLE)
        if opening.bet_version_id is None or opening.bonus_version_id is None:
            raise RoundRefused(
                _("The table's paytable has no approved version."),
                field="table",
                rule=JokerDrawRule.PAYTABLES,
                kind=Kind.CONFLICT,
            )
        rules = rules_in_force(opening.limits_id, opening.bet_version_id, opening.bonus_version_id)
        stakes = _checked_stakes(rules.limits, boxes)
        hold = joker_draw.top_payout(
            stakes, bet_paytable=rules.bet_odds, bonus_paytable=rules.bonus_odds
        )
        if table.status != TableStatus.OPEN:
            raise RoundRefused(
                _("%(table)s is closed.") % {"table": table},
                field="table",
                rule=JokerDrawRule.STAKES,
                kind=Kind.CONFLICT,
            )
        staked = sum((s.ante + (s.bonus or Decimal(0)) for s in stakes), Decimal(0))
        gate.check_stake(
            player=player,
            currency=table.currency,
            amount=staked,
            hand_total=staked,
            starts_play=True,
            field="boxes",
        )
        taken = sql.take_nonce(player.pk, client_seed)
        if taken is None:  # the pair was rotated since this transaction began, or is missing
            seeds.committed_pair(player)
            taken = cast(sql.Seeds, sql.take_nonce(player.pk, client_seed))
        deck = fairness.deck_order(taken.server_seed, taken.client_seed, taken.nonce, jokers=1)
        state, events = joker_draw.start_round(
            deck, stakes, bet_paytable=rules.bet_odds, bonus_paytable=rules.bonus_odds
        )
        now = timezone.now()
        round_ = Round(
            table=table,
            nonce=taken.nonce,
            seed_pair_id=taken.pair_id,
            player=player,
            commitment=taken.commitment,
            client_seed=taken.client_seed,
            engine_state=joker_draw.to_json(state),
            bet_paytable_version=rules.bet_version,
            bonus_paytable_version=rules.bonus_version,
            decision_deadline=now + _decision_time(rules.limits.decision_timeout_seconds),
            history_length=1 + len(events),  # the opening facts, then the deal
            created_at=now,
            house_hold=hold,
        )
        history = [
            joker_draw.Event(JokerDrawHouseEvent.ROUND_OPENED, _opening_facts(round_, stakes)),
            *events,
        ]
        try:
            sql.insert_round(round_, history, actor_id=player.pk)
        except IntegrityError as clash:
            if _constraint(clash) != UNFINISHED_ROUND_CONSTRAINT:
                raise
            raise RoundRefused(
                _("Finish your round at this table before starting another."),
                field="table",
                rule=JokerDrawRule.BOX_ORDER,
                kind=Kind.CONFLICT,
            ) from None
        live.table_changed(table_id)
        antes = sum((s.ante for s in stakes), Decimal(0))
        bonuses = sum((s.bonus or Decimal(0) for s in stakes), Decimal(0))
        # The house's own rules: the bankroll covers the top payout (HB-1), and no player or
        # table holds more than their share of it (HB-2, HB-3).
        holds.check_hold(
            player_id=player.pk,
            table=table,
            limits=rules.limits,
            stakes=stakes,
            hold=hold,
            bet_odds=rules.bet_odds,
            bonus_odds=rules.bonus_odds,
        )
        accounts = game_accounts(player, table.currency)
        postings = [
            Posting(accounts.wallet, -(antes + bonuses)),
            Posting(accounts.stakes_in_play, antes),
        ]
        if bonuses:
            postings.append(Posting(accounts.bonus, bonuses))
        # The round's top payout leaves what the house may still put at risk, in the same
        # transaction as the stakes: the settlement pays from it, so it can never fail for
        # house funds (HB-1).
        postings += [
            Posting(accounts.house_bankroll, -hold),
            Posting(accounts.house_reserved, hold),
        ]
        try:
            post_transactions(
                [
                    Transfer(
                        kind=TransactionKind.STAKE,
                        postings=postings,
                        reason=f"{round_}: antes and BONUS, top payout held",
                        created_by=player,
                        reference=f"round:{round_.pk}:open",
                    )
                ]
            )
        except InsufficientFunds as short:
            if short.account.kind != AccountKind.HOUSE_BANKROLL:
                raise
            # Neither the bankroll nor the shortfall is the player's business.
            raise RoundRefused(
                _("The house cannot cover this round's top payout: play lower stakes."),
                field="boxes",
                rule=holds.BankrollRule.HOUSE_COVER,
                kind=Kind.CONFLICT,
            ) from None
        metrics.round_opened(Game.JOKER_DRAW)
        fault_point("round.opened")
    return RoundPlay(round_, state)


def act(
    *, player: User, round_id: int, box: int, action: str, cards: Sequence[str] = ()
) -> RoundPlay:
    """Apply one box decision (JD-4..JD-7); settles and pays when the last box closes.

    A decision that comes after its box's time ran out is refused (JD-4) and changes nothing:
    folding the box is the timer's (`expire_decision`, every second).
    """
    with service_transaction():
        locked = sql.lock_round(round_id, Game.JOKER_DRAW, player_id=player.pk)
        if locked is None:  # another player's round is as good as no round at all
            raise RoundRefused(
                _("No such round."),
                field="round",
                rule=JokerDrawRule.BOX_ORDER,
                kind=Kind.NOT_FOUND,
            )
        round_, timeout_seconds = locked
        round_.player = player
        if round_.status != RoundStatus.DECIDING:
            raise RoundRefused(
                _("The round is over."),
                field="action",
                rule=JokerDrawRule.DEALER_TURN,
                kind=Kind.CONFLICT,
            )
        now = timezone.now()
        if round_.decision_deadline is not None and round_.decision_deadline <= now:
            raise RoundRefused(
                _("The decision came after the box's time ran out: the box folds."),
                field="action",
                rule=JokerDrawRule.BOX_ORDER,
                kind=Kind.CONFLICT,
            )
        state = _apply(
            round_,
            _engine_action(box, action, cards),
            actor=player,
            next_deadline=now + _decision_time(timeout_seconds),
        )
    return RoundPlay(round_, state)


def expire_decision(round_id: int) -> RoundPlay | None:
    """Fold every box of the round whose decision time ran out (JD-4): the timer's task. None
    when nothing was overdue."""
    if not sql.is_overdue(round_id, timezone.now()):
        return None  # the common case: on time, nothing to lock
    with service_transaction():
        locked = sql.lock_round(round_id, Game.JOKER_DRAW)
        if locked is None:
            return None
        round_, timeout_seconds = locked
        state = _fold_overdue(round_, _decision_time(timeout_seconds))
    return RoundPlay(round_, state)


# Internals -----------------------------------------------------------------------------------


def _checked_stakes(limits: TableLimits, boxes: Sequence[BoxRequest]) -> list[Stake]:
    # Approved limits of a joker draw table have every joker draw field (games.tables.limits).
    min_ante, max_ante = cast(Decimal, limits.min_ante), cast(Decimal, limits.max_ante)
    ante_step = cast(Decimal, limits.ante_step)
    bonus_min, bonus_max = cast(Decimal, limits.bonus_min), cast(Decimal, limits.bonus_max)
    if not boxes:
        raise RoundRefused(
            _("Play at least one box."), field="boxes", rule=JokerDrawRule.BOXES_PER_PLAYER
        )
    allowed = limits.boxes_per_round or 1
    if len(boxes) > allowed:
        raise RoundRefused(
            ngettext(
                "This table allows %(allowed)s box per round.",
                "This table allows %(allowed)s boxes per round.",
                allowed,
            )
            % {"allowed": allowed},
            field="boxes",
            rule=JokerDrawRule.BOXES_PER_PLAYER,
        )
    numbers = [b.box for b in boxes]
    if sorted(numbers) != list(range(1, len(boxes) + 1)):
        raise RoundRefused(
            _("Boxes are numbered 1 to %(boxes)s, each once.") % {"boxes": len(boxes)},
            field="boxes",
            rule=JokerDrawRule.DEAL,
        )
    stakes = []
    for request in sorted(boxes, key=lambda b: b.box):
        where = f"boxes[{request.box}]"
        if not min_ante <= request.ante <= max_ante:
            raise RoundRefused(
                _("The ante must be from %(low)s to %(high)s.")
                % {"low": min_ante, "high": max_ante},
                field=f"{where}.ante",
                rule=JokerDrawRule.STAKES,
            )
        if request.ante % ante_step:
            raise RoundRefused(
                _("The ante %(ante)s is not a whole multiple of the ante step %(step)s.")
                % {"ante": request.ante, "step": ante_step},
                field=f"{where}.ante",
                rule=JokerDrawRule.STAKES,
            )
        if request.bonus is not None and not bonus_min <= request.bonus <= bonus_max:
            raise RoundRefused(
                _("The BONUS must be from %(low)s to %(high)s.")
                % {"low": bonus_min, "high": bonus_max},
                field=f"{where}.bonus",
                rule=JokerDrawRule.BONUS,
            )
        stakes.append(Stake(box=request.box, ante=request.ante, bonus=request.bonus))
    return stakes


@dataclass(frozen=True)
class RulesInForce:
    """Approved limits and the bet and BONUS paytable versions a round is opened under."""

    limits: TableLimits
    bet_version: PaytableVersion
    bet_odds: joker_draw.Paytable
    bonus_version: PaytableVersion
    bonus_odds: joker_draw.Paytable


@functools.lru_cache(maxsize=256)
def rules_in_force(limits_id: int, bet_version_id: int, bonus_version_id: int) -> RulesInForce:
    """The limits and paytable versions by id, with their odds (JD-14), read once per process:
    approved limits, versions and lines can never change (the database refuses it), so what
    an id names stays true. Which ids are in force is read with the table's lock."""
    limits = TableLimits.objects.get(pk=limits_id, status=ChangeStatus.APPROVED)
    bet, bonus = (sql.paytable_version(pk) for pk in (bet_version_id, bonus_version_id))
    return RulesInForce(limits, bet, _odds_of(bet.pk), bonus, _odds_of(bonus.pk))


def _odds_of(version_id: int) -> joker_draw.Paytable:
    lines = PaytableLine.objects.filter(version_id=version_id)
    return {line.category: line.odds for line in lines}


def _constraint(clash: IntegrityError) -> str | None:
    diagnosis = getattr(clash.__cause__, "diag", None)
    return getattr(diagnosis, "constraint_name", None)


def _engine_action(box: int, action: str, cards: Sequence[str]) -> joker_draw.Action:
    if action not in ACTIONS:
        raise RoundRefused(
            _("action must be one of %(actions)s.") % {"actions": ", ".join(ACTIONS)},
            field="action",
            rule=JokerDrawRule.FIRST_DECISION,
        )
    if action != "exchange":
        if cards:
            raise RoundRefused(
                _("Only an exchange names cards."), field="cards", rule=JokerDrawRule.FIRST_DECISION
            )
        return Fold(box) if action == "fold" else Bet(box)
    try:
        parsed: tuple[Card, ...] = tuple(parse_card(text) for text in cards)
    except ValueError:
        raise RoundRefused(
            _("cards are written rank then suit, such as As or Td, and the joker JK."),
            field="cards",
            rule=JokerDrawRule.FIRST_DECISION,
        ) from None
    return Exchange(box, parsed)


def _decision_time(seconds: int | None) -> timedelta:
    return timedelta(seconds=seconds or 0)


def _fold_overdue(round_: Round, timeout: timedelta) -> joker_draw.RoundState:
    """Fold every box whose decision time has run out, each box having its full `timeout`
    (JD-4); the round's state after the folds."""
    now = timezone.now()
    state = joker_draw.from_json(round_.engine_state)
    while (
        round_.status == RoundStatus.DECIDING
        and round_.decision_deadline
        and round_.decision_deadline <= now
    ):
        box = state.to_act
        if box is None:
            break
        # The next box's time runs from this box's deadline, not from the fold.
        next_deadline = round_.decision_deadline + timeout
        state = _apply(
            round_, Fold(box.number, timed_out=True), actor=None, next_deadline=next_deadline
        )
        metrics.decision_timed_out(Game.JOKER_DRAW)
    return state


def _apply(
    round_: Round, action: joker_draw.Action, *, actor: User | None, next_deadline: datetime
) -> joker_draw.RoundState:
    """Apply `action`; the next box to act, if the round goes on, decides by `next_deadline`
    (JD-4). Returns the round's new engine state."""
    state = joker_draw.from_json(round_.engine_state)
    staked = _staked(state)
    try:
        extra = joker_draw.extra_stake(state, action)
        state, events = joker_draw.apply(state, action)
    except RuleViolation as refused:
        raise engine_refusal(refused) from None
    player = _player_of(round_)
    if extra:  # a bet or a paid exchange: folds and the timer's folds stake nothing
        gate.check_stake(
            player=player,
            currency=round_.table.currency,
            amount=extra,
            hand_total=staked + extra,
            starts_play=False,
            field="action",
        )
    accounts = game_accounts(player, round_.table.currency)
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
    recorded = round_.history_length
    round_.history_length += len(events)
    round_.engine_state = joker_draw.to_json(state)
    settlements: list[BoxSettlement] = []
    if state.phase == joker_draw.Phase.SETTLED:
        settlements, payout = _settle(round_, state, events, accounts)
        transfers.append(payout)
    else:
        round_.decision_deadline = next_deadline
    fault_point("round.before_update")
    sql.save_round(
        round_,
        events,
        start=recorded,
        actor_id=actor.pk if actor is not None else None,
        settlements=settlements,
    )
    live.table_changed(round_.table_id)
    # The ledger goes last: the shared house accounts stay locked only until the commit.
    post_transactions(transfers)
    if round_.status == RoundStatus.SETTLED:
        metrics.round_settled(Game.JOKER_DRAW)
        fault_point("round.settled")
    return state


def _staked(state: joker_draw.RoundState) -> Decimal:
    """Everything the player has staked in the round: every box's antes, bet and BONUS."""
    return sum(
        (box.ante + (box.bet or Decimal(0)) + (box.bonus or Decimal(0)) for box in state.boxes),
        Decimal(0),
    )


def _dealer_hand(events: Sequence[joker_draw.Event]) -> dict[str, Any]:
    """The dealer's final hand as the engine judged it when it settled the round (JD-10)."""
    return next(
        event.data for event in events if event.kind == joker_draw.JokerDrawEvent.DEALER_HAND
    )


def _settle(
    round_: Round,
    state: joker_draw.RoundState,
    events: Sequence[joker_draw.Event],
    accounts: GameAccounts,
) -> tuple[list[BoxSettlement], Transfer]:
    """The payout records of every box and the one transfer that pays them (JD-11..13)."""
    now = timezone.now()
    records = settlement_records(round_, state, events, at=now)
    held_antes = held_bonuses = paid = Decimal(0)
    for box, result in zip(state.boxes, state.results, strict=True):
        bet_staked = 2 * box.ante if box.status == joker_draw.BoxStatus.BET else Decimal(0)
        bonus_staked = box.bonus or Decimal(0)
        held_antes += box.ante + bet_staked
        held_bonuses += bonus_staked
        paid += box.ante + bet_staked + bonus_staked + result.total
    house_result = held_antes + held_bonuses - paid
    postings = [Posting(accounts.stakes_in_play, -held_antes)]
    if held_bonuses:
        postings.append(Posting(accounts.bonus, -held_bonuses))
    if paid:
        postings.append(Posting(accounts.wallet, paid))
    # The house pays what it lost out of the round's hold, which covers the top payout, and
    # the rest of the hold goes back to the bankroll with what it won (HB-1).
    if round_.house_hold:
        postings.append(Posting(accounts.house_reserved, -round_.house_hold))
    if house_result + round_.house_hold:
        postings.append(Posting(accounts.house_bankroll, house_result + round_.house_hold))
    round_.status = RoundStatus.SETTLED
    round_.settled_at = now
    round_.decision_deadline = None
    return records, Transfer(
        kind=TransactionKind.SETTLEMENT,
        postings=postings,
        reason=f"{round_}: settlement",
        reference=f"round:{round_.pk}:settle",
    )


def settlement_records(
    round_: Round,
    state: joker_draw.RoundState,
    events: Sequence[joker_draw.Event],
    *,
    at: datetime,
) -> list[BoxSettlement]:
    """The payout record of every box of a round the engine settled (JD-11..13), beside the
    dealer's hand as the engine's `dealer_hand` event among the settling `events` gives it."""
    dealer = _dealer_hand(events)
    player = _player_of(round_)
    bet_version = round_.bet_paytable_version
    if bet_version is None:
        raise ValueError(f"{round_} names no bet paytable version (JD-14)")
    return [
        BoxSettlement(
            round=round_,
            box=box.number,
            player=player,
            table=round_.table,
            currency=round_.table.currency,
            status=box.status.value,
            initial_cards=" ".join(map(str, box.initial_cards)),
            final_cards=" ".join(map(str, box.cards)),
            category=result.category,
            hand=result.hand,
            dealer_cards=" ".join(map(str, state.dealer_final)),
            dealer_category=dealer["category"],
            dealer_qualifies=dealer["qualifies"],
            ante_staked=box.ante,
            bet_staked=2 * box.ante if box.status == joker_draw.BoxStatus.BET else Decimal(0),
            bonus_staked=box.bonus or Decimal(0),
            bet_paytable_version=bet_version,
            bet_line=result.bet_line or "",
            bonus_paytable_version=round_.bonus_paytable_version if box.bonus else None,
            bonus_category=result.bonus_category or "",
            bonus_line=result.bonus_line or "",
            ante_result=result.ante,
            bet_result=result.bet,
            bonus_result=result.bonus,
            total_result=result.total,
            settled_at=at,
        )
        for box, result in zip(state.boxes, state.results, strict=True)
    ]


def _player_of(round_: Round) -> User:
    if round_.player is None:
        raise ValueError(f"{round_} is a banked round without a player")
    return round_.player


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
