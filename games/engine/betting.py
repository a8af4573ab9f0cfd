"""Betting shared by the peer games: one betting round at a time, fixed limit (seven-card stud:
ST-1, ST-3, ST-5, ST-8) or pot limit (Drawmaha: DM-9); side pots (ST-13, DM-12), odd-unit splits
(ST-11, DM-11) and the rake (ST-13).

Chips are ints in the currency's minor units. A wager's ``amount`` is what the player has in
front of him in this round after it ("raise to 600"), as hand histories write it (PHH ``cbr``).

Reopening: a bet, completion or raise of at least a full size is "full"; in pot limit an all-in
for less is not, and does not reopen the betting to a player who has already acted (DM-9). Each
seat keeps, from its last action, the bet level from which it may raise again (``reopen_at``):
in pot limit the level a full raise would have made then; in fixed limit (ST-6b) half a full bet
above the level then, so an all-in of half a bet or more reopens the betting and a smaller one
does not (before the first full bet, the completion to a full bet always does). Several short
all-ins that together reach that level reopen it, as in a live card room. Only full bets and
raises count towards the ST-8 cap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from math import floor
from typing import Any, TypeVar

from games.engine.common import Amount, Event, OutOfTurn, RuleViolation, rule_text
from games.engine.rules import DrawmahaRule, StudRule

FIXED_LIMIT_CAP = 4  # ST-8: a bet and three raises
HEADS_UP = 2  # ST-8: no cap once only two players are in the hand


class ActionKind(StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BRING_IN = "bring_in"
    COMPLETE = "complete"
    BET = "bet"
    RAISE = "raise"
    SHOW = "show"  # showdown choices (ST-10); the games handle them, not a betting round
    MUCK = "muck"


class PeerEvent(StrEnum):
    """What a hand's history records at every peer table, whichever the game: the players'
    betting (as their ``ActionKind``), the cards dealt, shown and reshuffled, and the pots."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BRING_IN = "bring_in"
    COMPLETE = "complete"
    BET = "bet"
    RAISE = "raise"
    UNCALLED_BET_RETURNED = "uncalled_bet_returned"
    DEAL = "deal"
    BURN = "burn"
    RESHUFFLE = "reshuffle"  # FS-6: the burns (ST-9) or the muck (DM-7) shuffled into a deck
    SHOW = "show"
    RAKE = "rake"
    POT_AWARDED = "pot_awarded"
    HAND_OVER = "hand_over"


AGGRESSIVE = frozenset({ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE})
WAGERS = AGGRESSIVE | {ActionKind.CALL, ActionKind.BRING_IN}


@dataclass(frozen=True)
class Action:
    """A player's decision. ``amount`` (wagers only) is the seat's total bet this round after
    it; None means the least amount the action allows."""

    seat: int
    kind: ActionKind
    amount: int | None = None


@dataclass(frozen=True)
class LegalAction:
    """An action the player to act may take: any ``amount`` from ``min_amount`` to
    ``max_amount`` (both 0 for fold and check). ``all_in`` when ``max_amount`` is every chip the
    player has. Fixed limit lists each allowed size as its own entry (min = max)."""

    kind: ActionKind
    min_amount: int = 0
    max_amount: int = 0
    all_in: bool = False


@dataclass(frozen=True)
class FixedLimit:
    """A fixed-limit round: bets and raises are exactly one of ``bet_sizes`` (smallest first;
    both the small and the big bet on fourth street with an open pair, ST-5), a bring-in opens
    the round when ``bring_in`` is set (ST-3), and ``cap`` bets and raises at most while three or
    more players are in the hand (ST-8). ``rule`` is the rule that sets this round's sizes."""

    bet_sizes: tuple[int, ...]
    rule: str
    bring_in: int = 0
    cap: int = FIXED_LIMIT_CAP


@dataclass(frozen=True)
class PotLimit:
    """A pot-limit round (DM-9): bets from ``min_bet`` (the big blind) up to the pot."""

    min_bet: int
    rule: str = DrawmahaRule.POT_LIMIT


Limit = FixedLimit | PotLimit


@dataclass(frozen=True)
class Chips:
    """A player's money in the hand: ``stack`` behind, ``committed`` to the pot so far (antes,
    blinds and every round's bets), and whether the player has folded."""

    stack: int
    committed: int = 0
    folded: bool = False

    @property
    def in_hand(self) -> bool:
        return not self.folded

    @property
    def all_in(self) -> bool:
        return not self.folded and self.stack == 0


@dataclass(frozen=True)
class BettingRound:
    limit: Limit
    chips: tuple[Chips, ...]
    """By seat: every seat dealt into the hand, folded ones included."""
    order: tuple[int, ...]
    """Seats in the hand when the round opened, clockwise from the first to act."""
    turn_rule: str
    """The rule that sets who acts when (ST-3, ST-4, DM-3, ...), cited when it is broken."""
    bets: tuple[int, ...]
    reopen_at: tuple[int | None, ...]
    """By seat: the bet level from which a seat that has acted may raise again; None until it
    acts."""
    current_bet: int = 0
    full_raise: int = 0
    """The least a full bet or raise adds now: the last full bet or raise (DM-9), the fixed size."""
    raises: int = 0
    """Full bets, completions and raises so far (ST-8); the bring-in is none."""
    aggressor: int | None = None
    """The last to bet, complete or raise in this round (ST-10)."""
    to_act: int | None = None

    @property
    def is_over(self) -> bool:
        return self.to_act is None

    @property
    def in_hand(self) -> tuple[int, ...]:
        return tuple(seat for seat, chips in enumerate(self.chips) if chips.in_hand)


# Forced bets and opening a round -----------------------------------------------------------


def post(chips: Sequence[Chips], seat: int, amount: int) -> tuple[tuple[Chips, ...], int]:
    """A forced bet into the pot (an ante): as much of ``amount`` as the player has."""
    paid = min(amount, chips[seat].stack)
    player = chips[seat]
    updated = replace(player, stack=player.stack - paid, committed=player.committed + paid)
    return _with(tuple(chips), seat, updated), paid


def open_round(
    limit: Limit,
    chips: Sequence[Chips],
    order: Sequence[int],
    *,
    turn_rule: str,
    blinds: Mapping[int, int] | None = None,
) -> BettingRound:
    """A new round among the seats in ``order`` (clockwise from the first to act). ``blinds``
    (pot limit) are posted as this round's bets; the big blind counts as the opening bet."""
    seats = len(chips)
    bets = [0] * seats
    all_chips = tuple(chips)
    for seat, amount in (blinds or {}).items():
        all_chips, bets[seat] = post(all_chips, seat, amount)
    full = limit.bet_sizes[0] if isinstance(limit, FixedLimit) else limit.min_bet
    round_ = BettingRound(
        limit=limit,
        chips=all_chips,
        order=tuple(seat for seat in order if all_chips[seat].in_hand),
        turn_rule=turn_rule,
        bets=tuple(bets),
        reopen_at=(None,) * seats,
        current_bet=max(bets),
        full_raise=full,
        raises=1 if blinds else 0,
    )
    return replace(round_, to_act=_next_to_act(round_, after=None))


# What the player to act may do -------------------------------------------------------------


def legal_actions(round_: BettingRound) -> tuple[LegalAction, ...]:
    """The actions open to the player to act, with their amounts; empty when the round is over."""
    seat = round_.to_act
    if seat is None:
        return ()
    everything = _all_in_amount(round_, seat)
    bring_in_limit = _bring_in_due(round_)
    if bring_in_limit is not None:
        bring_in = min(bring_in_limit.bring_in, everything)
        options = [LegalAction(ActionKind.BRING_IN, bring_in, bring_in, bring_in == everything)]
        if everything > bring_in and _raise_refusal(round_, seat) is None:
            complete = min(bring_in_limit.bet_sizes[0], everything)
            options.append(
                LegalAction(ActionKind.COMPLETE, complete, complete, complete == everything)
            )
        return tuple(options)
    options = []
    if round_.bets[seat] < round_.current_bet:
        call = min(round_.current_bet, everything)
        options += [
            LegalAction(ActionKind.FOLD),
            LegalAction(ActionKind.CALL, call, call, call == everything),
        ]
    else:
        options.append(LegalAction(ActionKind.CHECK))
    if _raise_refusal(round_, seat) is None:
        kind, amounts = _raise_amounts(round_, seat)
        options += [LegalAction(kind, low, high, high == everything) for low, high in amounts]
    return tuple(options)


def _bring_in_due(round_: BettingRound) -> FixedLimit | None:
    """ST-3: the round's limit while it opens with the bring-in player's choice (nobody has
    acted yet), else None."""
    limit = round_.limit
    if not isinstance(limit, FixedLimit) or not limit.bring_in or round_.current_bet:
        return None
    return limit if all(level is None for level in round_.reopen_at) else None


def _all_in_amount(round_: BettingRound, seat: int) -> int:
    return round_.bets[seat] + round_.chips[seat].stack


def _raise_refusal(round_: BettingRound, seat: int) -> RuleViolation | None:
    """Why the seat may not bet, complete or raise now, or None if it may."""
    limit = round_.limit
    if _all_in_amount(round_, seat) <= round_.current_bet:
        return RuleViolation("not enough chips to raise", field="kind", rule=limit.rule)
    others = [s for s in round_.in_hand if s != seat and round_.chips[s].stack > 0]
    if not others:
        return RuleViolation(
            "every other player is all in: there is no one to raise", field="kind", rule=limit.rule
        )
    # All-in players are still in the hand: with three in, the cap holds (ST-8).
    heads_up = len(round_.in_hand) <= HEADS_UP
    if isinstance(limit, FixedLimit) and round_.raises >= limit.cap and not heads_up:
        return RuleViolation(
            "the cap is reached: a bet and %(raises)s raises while three or more players are "
            "in the hand",
            field="kind",
            rule=StudRule.RAISE_CAP,
            raises=limit.cap - 1,
        )
    reopen = round_.reopen_at[seat]
    if reopen is not None and round_.current_bet < reopen and isinstance(limit, FixedLimit):
        return RuleViolation(
            "an all-in of less than half a full bet does not reopen the betting to a player who "
            "has acted",
            field="kind",
            rule=StudRule.SHORT_ALL_IN,
        )
    if reopen is not None and round_.current_bet < reopen:
        return RuleViolation(
            "an all-in for less than a full raise does not reopen the betting to a player who "
            "has acted",
            field="kind",
            rule=limit.rule,
        )
    return None


def _raise_amounts(round_: BettingRound, seat: int) -> tuple[ActionKind, list[tuple[int, int]]]:
    """The kind of aggressive action open to the seat and its amount ranges (all-in capped)."""
    limit, current = round_.limit, round_.current_bet
    everything = _all_in_amount(round_, seat)
    if isinstance(limit, FixedLimit):
        if current == 0:
            kind, targets = ActionKind.BET, list(limit.bet_sizes)
        elif round_.raises == 0:
            # Only a bring-in or a short all-in is in: make it a full bet (ST-3).
            kind, targets = ActionKind.COMPLETE, list(limit.bet_sizes)
        else:
            kind, targets = ActionKind.RAISE, [current + size for size in limit.bet_sizes]
        amounts = sorted({min(target, everything) for target in targets})
        return kind, [(amount, amount) for amount in amounts]
    pot = sum(chips.committed for chips in round_.chips)
    if current == 0:
        low = min(limit.min_bet, everything)
        return ActionKind.BET, [(low, min(max(low, pot), everything))]
    # DM-9: the largest raise makes the total wager the pot after the call.
    to_call = current - round_.bets[seat]
    low = min(current + round_.full_raise, everything)
    high = min(current + pot + to_call, everything)
    return ActionKind.RAISE, [(low, max(low, high))]


# Acting ------------------------------------------------------------------------------------


def act(round_: BettingRound, action: Action) -> tuple[BettingRound, Event]:
    """The round after the player's action, and its event; RuleViolation if not allowed."""
    seat = round_.to_act
    if seat is None:
        raise RuleViolation("the betting round is over", field="action", rule=round_.turn_rule)
    if action.seat != seat:
        raise OutOfTurn(to_act=seat, acting=action.seat, rule=round_.turn_rule)
    legal = [option for option in legal_actions(round_) if option.kind == action.kind]
    if not legal and action.kind == ActionKind.FOLD and _bring_in_due(round_) is None:
        # Folding when a check is free is pointless, so it is not offered, but it is no
        # breach of the rules: it is how the hand of a player who leaves the table dies.
        legal = [LegalAction(ActionKind.FOLD)]
    if not legal:
        raise _refusal(round_, action)
    rule = StudRule.BRING_IN if action.kind == ActionKind.BRING_IN else round_.limit.rule
    if action.kind not in WAGERS and action.amount is not None:
        raise RuleViolation(
            "%(action)s takes no amount", field="amount", rule=rule, action=action.kind
        )
    if action.kind in WAGERS:
        amount = legal[0].min_amount if action.amount is None else action.amount
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise RuleViolation(
                "amounts are whole minor units, not %(amount)r",
                field="amount",
                rule=rule,
                amount=amount,
            )
        if not any(option.min_amount <= amount <= option.max_amount for option in legal):
            raise _amount_refusal(action.kind, amount, legal, rule)
        return _wager(round_, seat, action.kind, amount)
    if action.kind == ActionKind.FOLD:
        folded = replace(round_.chips[seat], folded=True)
        round_ = replace(round_, chips=_with(round_.chips, seat, folded))
    else:
        round_ = replace(round_, reopen_at=_with(round_.reopen_at, seat, _reopen_level(round_)))
    return _pass_turn(round_, seat), Event(PeerEvent(action.kind), {"seat": seat})


def _amount_refusal(
    kind: ActionKind, amount: int, legal: Sequence[LegalAction], rule: str
) -> RuleViolation:
    """The amounts open to ``kind``: the small or the big bet (ST-5, two sizes at most), one
    fixed size, or a pot-limit range (DM-9)."""
    low, high = legal[0].min_amount, legal[-1].max_amount
    return RuleViolation(
        rule_text("%(action)s to %(amount)s is not allowed: to %(low)s or to %(high)s")
        if len(legal) > 1
        else rule_text("%(action)s to %(amount)s is not allowed: only to %(low)s")
        if low == high
        else rule_text("%(action)s to %(amount)s is not allowed: from %(low)s to %(high)s"),
        field="amount",
        rule=rule,
        action=kind,
        amount=Amount(amount),
        low=Amount(low),
        high=Amount(high),
    )


def _refusal(round_: BettingRound, action: Action) -> RuleViolation:
    seat, kind = action.seat, action.kind
    if _bring_in_due(round_) is not None:
        return RuleViolation(
            "the lowest door card brings in or completes first",
            field="kind",
            rule=StudRule.BRING_IN,
        )
    if kind in AGGRESSIVE or kind == ActionKind.BRING_IN:
        refusal = _raise_refusal(round_, seat)
        if refusal is not None:
            return refusal
        expected, _ = _raise_amounts(round_, seat)
        return RuleViolation(
            "the wager open now is %(expected)s, not %(action)s",
            field="kind",
            rule=round_.limit.rule,
            expected=expected,
            action=kind,
        )
    rule = round_.limit.rule
    if kind == ActionKind.CHECK:
        return RuleViolation(
            "there is a bet to call: check is not possible", field="kind", rule=rule
        )
    if kind in (ActionKind.CALL, ActionKind.FOLD):
        return RuleViolation(
            "there is no bet to %(action)s: check instead", field="kind", rule=rule, action=kind
        )
    return RuleViolation("%(action)s is not a betting action", field="kind", rule=rule, action=kind)


def _wager(
    round_: BettingRound, seat: int, kind: ActionKind, amount: int
) -> tuple[BettingRound, Event]:
    player = round_.chips[seat]
    added = amount - round_.bets[seat]
    player = replace(player, stack=player.stack - added, committed=player.committed + added)
    round_ = replace(
        round_,
        chips=_with(round_.chips, seat, player),
        bets=_with(round_.bets, seat, amount),
    )
    if amount > round_.current_bet:
        round_ = _raised(round_, seat, kind, amount)
    round_ = replace(round_, reopen_at=_with(round_.reopen_at, seat, _reopen_level(round_)))
    event = Event(
        PeerEvent(kind), {"seat": seat, "amount": amount, "added": added, "all_in": player.all_in}
    )
    return _pass_turn(round_, seat), event


def _raised(round_: BettingRound, seat: int, kind: ActionKind, amount: int) -> BettingRound:
    """The bet level rises to ``amount``; a full bet or raise counts and sets the next size."""
    limit, current = round_.limit, round_.current_bet
    if kind == ActionKind.BRING_IN:
        return replace(round_, current_bet=amount)
    if isinstance(limit, FixedLimit):
        # Before the first full bet, a completion is measured from nothing (ST-3).
        added = amount - (current if round_.raises else 0)
        full = added >= limit.bet_sizes[0]
        if full and added >= limit.bet_sizes[-1]:
            limit = replace(limit, bet_sizes=limit.bet_sizes[-1:])  # ST-5: big from now on
        full_raise = limit.bet_sizes[0]
    else:
        added = amount - current
        full = added >= round_.full_raise
        full_raise = added if full else round_.full_raise  # DM-9: the last bet or raise
    return replace(
        round_,
        limit=limit,
        current_bet=amount,
        full_raise=full_raise,
        raises=round_.raises + (1 if full else 0),
        aggressor=seat,
    )


def _reopen_level(round_: BettingRound) -> int:
    """The bet level from which the acting seat may raise again: in pot limit the level a full
    bet or raise would make now (DM-9); in fixed limit half a full bet above the bet now, or the
    first full bet if that is lower (ST-6b)."""
    if isinstance(round_.limit, FixedLimit):
        half = round_.current_bet + (round_.full_raise + 1) // 2  # half a bet or more reopens
        return min(half, round_.full_raise) if round_.raises == 0 else half
    if round_.raises == 0:
        return round_.full_raise
    return round_.current_bet + round_.full_raise


def _pass_turn(round_: BettingRound, seat: int) -> BettingRound:
    return replace(round_, to_act=_next_to_act(round_, after=seat))


def _next_to_act(round_: BettingRound, after: int | None) -> int | None:
    """The next seat clockwise that still has to act, or None when the round is over."""
    if len(round_.in_hand) < HEADS_UP:
        return None
    order = round_.order
    start = 0 if after is None else order.index(after) + 1
    for step in range(len(order)):
        seat = order[(start + step) % len(order)]
        if _must_act(round_, seat):
            return seat
    return None


def _must_act(round_: BettingRound, seat: int) -> bool:
    chips = round_.chips[seat]
    if chips.folded or chips.stack == 0:
        return False
    if round_.bets[seat] < round_.current_bet:
        return True
    # Not yet acted: only worth asking if someone else could still call a bet.
    others = any(round_.chips[s].stack > 0 for s in round_.in_hand if s != seat)
    return round_.reopen_at[seat] is None and others


def next_round(
    round_: BettingRound, limit: Limit, order: Sequence[int], *, turn_rule: str
) -> BettingRound:
    """The next street's round: the chips carry over, the bets start again."""
    return open_round(limit, round_.chips, order, turn_rule=turn_rule)


# Uncalled bets, side pots, rake and splits -------------------------------------------------


@dataclass(frozen=True)
class Pot:
    """A pot and the seats that can win it (ST-13, DM-12): seats in the hand that put in at
    least its level."""

    amount: int
    eligible: tuple[int, ...]


def return_uncalled(chips: Sequence[Chips]) -> tuple[tuple[Chips, ...], Event | None]:
    """Give the part of the biggest commitment that no one matched back to its player, before
    the pots are formed (so it is never raked, ST-13)."""
    players = tuple(chips)
    ranked = sorted(range(len(players)), key=lambda seat: players[seat].committed, reverse=True)
    top, second = ranked[0], ranked[1]
    excess = players[top].committed - players[second].committed
    if excess <= 0:
        return players, None
    player = players[top]
    returned = replace(player, stack=player.stack + excess, committed=player.committed - excess)
    event = Event(PeerEvent.UNCALLED_BET_RETURNED, {"seat": top, "amount": excess})
    return _with(players, top, returned), event


def side_pots(chips: Sequence[Chips]) -> tuple[Pot, ...]:
    """The main pot and the side pots from everyone's commitments, main pot first. Each level of
    a player still in the hand closes a pot; folded players' chips stay in the pots they reached
    (ST-13, DM-12)."""
    levels = sorted({c.committed for c in chips if c.in_hand and c.committed > 0})
    pots: list[Pot] = []
    below = 0
    for level in levels:
        amount = sum(min(c.committed, level) - min(c.committed, below) for c in chips)
        eligible = tuple(s for s, c in enumerate(chips) if c.in_hand and c.committed >= level)
        pots.append(Pot(amount, eligible))
        below = level
    # Folded chips above every live level (not reachable once uncalled bets are returned).
    rest = sum(max(c.committed - below, 0) for c in chips)
    if rest and pots:
        pots[-1] = replace(pots[-1], amount=pots[-1].amount + rest)
    return tuple(pots)


@dataclass(frozen=True)
class Rake:
    """The table's rake rule (ST-13): ``percent`` of each pot, rounded down to the minor unit,
    at most ``cap`` minor units for the whole hand (None: no cap). The default takes nothing."""

    percent: Decimal = Decimal(0)
    cap: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.percent, Decimal) or not 0 <= self.percent <= 100:
            raise ValueError(f"rake percent must be a Decimal from 0 to 100, got {self.percent!r}")
        if self.cap is not None and self.cap < 0:
            raise ValueError(f"rake cap must be 0 or more minor units, got {self.cap!r}")

    def of(self, pots: Sequence[int]) -> tuple[int, ...]:
        """The rake taken from each of a hand's pots (minor units, main pot first): the percent
        of each in turn until the cap, which is per hand over all its pots (ST-13 Decision),
        is reached; the side pots after that give nothing."""
        left = self.cap
        taken = []
        for pot in pots:
            rake = floor(Fraction(pot) * Fraction(self.percent) / 100)
            if left is not None:
                rake = min(rake, left)
                left -= rake
            taken.append(rake)
        return tuple(taken)


class HandChips:
    """What a peer game's hand state (stud, Drawmaha) reads from its ``betting`` round, which
    holds everyone's chips, and from its pot ``results`` (each with its ``rake``)."""

    betting: BettingRound
    results: Sequence[Any]

    @property
    def chips(self) -> tuple[Chips, ...]:
        return self.betting.chips

    @property
    def in_hand(self) -> tuple[int, ...]:
        return self.betting.in_hand

    @property
    def rake(self) -> int:
        return sum(result.rake for result in self.results)


def split_pot(
    amount: int, winners: Iterable[int], *, first_seat: int, seat_count: int
) -> dict[int, int]:
    """Equal shares of ``amount`` for ``winners``; the odd units go one each to the winners
    nearest ``first_seat`` clockwise (ST-11 Decision: the dealer's left; DM-11: the button's
    left)."""
    ordered = sorted(set(winners), key=lambda seat: (seat - first_seat) % seat_count)
    if not ordered:
        raise ValueError("a pot needs at least one winner")
    share, odd = divmod(amount, len(ordered))
    return {seat: share + (place < odd) for place, seat in enumerate(ordered)}


def halve(amount: int) -> tuple[int, int]:
    """DM-11: the draw half and the Omaha half of a pot; the draw half gets the odd unit."""
    return amount - amount // 2, amount // 2


# JSON --------------------------------------------------------------------------------------


def round_to_json(round_: BettingRound) -> dict[str, Any]:
    limit = round_.limit
    limit_json: dict[str, Any] = (
        {
            "type": "fixed",
            "bet_sizes": list(limit.bet_sizes),
            "rule": limit.rule,
            "bring_in": limit.bring_in,
            "cap": limit.cap,
        }
        if isinstance(limit, FixedLimit)
        else {"type": "pot", "min_bet": limit.min_bet, "rule": limit.rule}
    )
    return {
        "limit": limit_json,
        "chips": [
            {"stack": c.stack, "committed": c.committed, "folded": c.folded} for c in round_.chips
        ],
        "order": list(round_.order),
        "turn_rule": round_.turn_rule,
        "bets": list(round_.bets),
        "reopen_at": list(round_.reopen_at),
        "current_bet": round_.current_bet,
        "full_raise": round_.full_raise,
        "raises": round_.raises,
        "aggressor": round_.aggressor,
        "to_act": round_.to_act,
    }


def rake_to_json(rake: Rake) -> dict[str, Any]:
    return {"percent": str(rake.percent), "cap": rake.cap}


def rake_from_json(data: Mapping[str, Any]) -> Rake:
    return Rake(Decimal(data["percent"]), data["cap"])


def shares_to_json(shares: Iterable[tuple[int, int]]) -> list[list[int]]:
    """A pot's shares, (seat, amount) pairs, as JSON lists."""
    return [list(share) for share in shares]


def shares_from_json(data: Iterable[Sequence[int]]) -> tuple[tuple[int, int], ...]:
    return tuple((seat, share) for seat, share in data)


def round_from_json(data: Mapping[str, Any]) -> BettingRound:
    limit_data = dict(data["limit"])
    limit: Limit
    if limit_data.pop("type") == "fixed":
        limit = FixedLimit(**{**limit_data, "bet_sizes": tuple(limit_data["bet_sizes"])})
    else:
        limit = PotLimit(**limit_data)
    return BettingRound(
        limit=limit,
        chips=tuple(Chips(**chips) for chips in data["chips"]),
        order=tuple(data["order"]),
        turn_rule=data["turn_rule"],
        bets=tuple(data["bets"]),
        reopen_at=tuple(data["reopen_at"]),
        current_bet=data["current_bet"],
        full_raise=data["full_raise"],
        raises=data["raises"],
        aggressor=data["aggressor"],
        to_act=data["to_act"],
    )


_T = TypeVar("_T")


def _with(values: tuple[_T, ...], index: int, value: _T) -> tuple[_T, ...]:
    return (*values[:index], value, *values[index + 1 :])
