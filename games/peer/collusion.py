"""Collusion signals at the peer tables over a period (UKGC RTS 11): selectors that read the
finished stud and Drawmaha hands' stored state and events, and score every pair of players
who were dealt into the same hands, per currency.

Each signal is a z-score, how far the pair's play lies from what chance gives; 0 when the pair
has too few chances to tell:

- **Chip flow** (chip dumping): in each hand both were dealt into, each winner's gain came
  from the losers in proportion to their losses, which gives the pair's net flow in the hand
  (what went from one to the other, less the reverse). The hands with a flow are ranked by its
  size, smallest 1 (equal sizes share their mean rank), and each rank takes the sign of its
  flow's direction: the signed ranks' sum against its spread under chance (the square root of
  the summed squared ranks: each hand's flow is as likely one way as the other), the Wilcoxon
  signed-rank test. Ranks, not amounts, so that a few big pots won honestly do not swamp many
  hands dumped one way. The score is its size, either way.
- **Soft play**: how often each bets or raises when the other is still in the hand, against
  how often they do so into the other players (a decision counts once for each opponent still
  in the hand); a two-proportion z, positive when they spare each other.
- **Strong folds**: of each one's folds facing a bet or raise of the other, how many gave up
  cards the evaluator ranks strong at that street (``strong_holding``), against their folds
  facing the others' bets; positive when they give strong hands up to each other.

A pair is flagged when any score reaches ``COLLUSION_ALERT_SCORE``; the hands behind each
signal come with it. Decisions the house took for a player (out of time, left the table) are
not the player's and are not counted.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING, Any, TypeVar, cast

from django.conf import settings
from django.contrib.auth.models import User
from django.db import DEFAULT_DB_ALIAS

from games.engine.betting import PeerEvent
from games.engine.drawmaha import DrawmahaEvent
from games.engine.hands import strong_holding
from games.models import Round, RoundEvent, RoundStatus
from games.peer.hands import HouseEvent, PeerHand, PeerState
from games.peer.services import PeerGame
from games.tables.table_game import all_games
from payouts.models import CENT

if TYPE_CHECKING:
    from games.engine.cards import Card

State = TypeVar("State", bound=PeerState)

DECISIONS = frozenset(
    {
        PeerEvent.FOLD,
        PeerEvent.CHECK,
        PeerEvent.CALL,
        PeerEvent.BRING_IN,
        PeerEvent.COMPLETE,
        PeerEvent.BET,
        PeerEvent.RAISE,
    }
)
AGGRESSIVE = frozenset({PeerEvent.COMPLETE, PeerEvent.BET, PeerEvent.RAISE})
# What sets the bet a later player of the street faces.
OPENERS = AGGRESSIVE | {PeerEvent.BRING_IN, DrawmahaEvent.BIG_BLIND}
AUTOMATIC = frozenset(
    {HouseEvent.TIMED_OUT, HouseEvent.LEFT_TABLE}
)  # the next decision is the house's
READ_KINDS = DECISIONS | OPENERS | AUTOMATIC

# Fewer chances than these on either side of a comparison give no score: too few to tell.
MIN_CHANCES = 20
MIN_FOLDS = 5
MIN_FLOW_HANDS = 10
HANDS_SHOWN = 20  # the hands listed behind a signal, most telling first
CHUNK = 500  # hands read at a time


@dataclass(frozen=True)
class Decision:
    """A player's decision in a hand, by engine seat: the other seats still in the hand, the
    seat whose bet or raise it answers (None when there is none), and for a fold whether the
    cards given up rank strong."""

    seat: int
    kind: str
    live: frozenset[int]
    facing: int | None
    strong: bool = False


@dataclass(frozen=True)
class HandRead:
    """A finished hand as the report reads it: by engine seat, the players and their results
    (finishing less starting stack, in minor units), and the players' own decisions."""

    round_id: int
    game: str
    table: str
    number: int
    currency: str
    players: tuple[int, ...]
    results: tuple[int, ...]
    decisions: tuple[Decision, ...]


def read_hand(
    hand: PeerHand[State],
    events: Iterable[tuple[str, Mapping[str, Any]]],
    folded_cards: Callable[[PeerHand[State], int], Sequence[Card]],
) -> tuple[tuple[int, ...], tuple[Decision, ...]]:
    """The results and decisions of a finished ``hand`` from its events (in order; others than
    ``READ_KINDS`` are passed over)."""
    state = hand.state
    finishing = cast(tuple[int, ...], state.finishing_stacks)
    results = tuple(f - s for f, s in zip(finishing, state.starting_stacks, strict=True))
    in_hand = set(range(len(hand.players)))
    decisions: list[Decision] = []
    street: str | None = None
    opener: int | None = None
    automatic = False
    for kind, data in events:
        if kind in AUTOMATIC:
            automatic = True
            continue
        if kind not in DECISIONS and kind not in OPENERS:
            continue
        seat = data["seat"]
        if data.get("street") is not None:
            if street is not None and data["street"] != street:
                opener = None  # a new street: nobody has bet yet
            street = data["street"]
        if kind in DECISIONS:
            facing: int | None = opener if opener != seat else None
            if not automatic:
                strong = kind == PeerEvent.FOLD and strong_holding(folded_cards(hand, seat))
                decisions.append(
                    Decision(seat, kind, frozenset(in_hand - {seat}), facing, strong=strong)
                )
            automatic = False
            if kind == PeerEvent.FOLD:
                in_hand.discard(seat)
        if kind in OPENERS:
            opener = seat
    return results, tuple(decisions)


# Scores ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandRef:
    """A hand behind a signal: the staff screens link its replay and its PHH file."""

    round_id: int
    game: str
    table: str
    number: int


@dataclass(frozen=True)
class Signal:
    """One signal of a pair: its z-score (signed), the score that counts (``score``, never
    negative), the rates compared (the ``player``'s with the other of the pair, and with
    everybody else; None for the chip flow) and the hands behind it."""

    z: float
    between: float | None = None
    others: float | None = None
    hands: tuple[HandRef, ...] = ()
    # Who it is about: the winner of the chip flow, the player who spares the other, the
    # player who folds to the other.
    player: int | None = None

    @property
    def score(self) -> float:
        return max(self.z, 0.0)


@dataclass(frozen=True)
class PairSignals:
    """Two players (``first`` has the lower id) who shared hands in ``currency``: their
    signals, the net chips from ``first`` to ``second`` and whether the pair is flagged."""

    currency: str
    first: User
    second: User
    hands: int
    net_chips: Decimal
    chip_flow: Signal
    soft_play: Signal
    strong_folds: Signal
    threshold: float

    @property
    def score(self) -> float:
        return max(self.chip_flow.score, self.soft_play.score, self.strong_folds.score)

    @property
    def flagged(self) -> bool:
        return self.score >= self.threshold


@dataclass
class _Pair:
    """What the hands give one pair, while they are read."""

    hands: int = 0
    flow: Fraction = Fraction(0)  # towards the second player
    flows: list[tuple[Fraction, HandRef]] = field(default_factory=list)
    passive: dict[HandRef, int] = field(default_factory=dict)
    strong_folds: dict[int, list[HandRef]] = field(default_factory=dict)  # by who folded


@dataclass(frozen=True)
class PairScores:
    """A pair's signals by player id, before the players are read."""

    currency: str
    first: int
    second: int
    hands: int
    net_chips: Decimal
    chip_flow: Signal
    soft_play: Signal
    strong_folds: Signal


def _rate(hits_and_chances: tuple[int, int]) -> float | None:
    hits, chances = hits_and_chances
    return hits / chances if chances else None


def _rate_gap(low: tuple[int, int], high: tuple[int, int], least: int) -> float:
    """The pooled two-proportion z of the rate ``low`` (hits, chances) lying below ``high``;
    0 when either has fewer than ``least`` chances or the rate never varies."""
    (k1, n1), (k2, n2) = low, high
    if n1 < least or n2 < least:
        return 0.0
    pooled = (k1 + k2) / (n1 + n2)
    if pooled in (0, 1):
        return 0.0
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return (k2 / n2 - k1 / n1) / spread


def score_pairs(hands: Iterable[HandRead]) -> list[PairScores]:
    """Every pair's signals over ``hands``, per currency (the pure part of ``pairs_for``)."""
    pairs: dict[tuple[str, int, int], _Pair] = defaultdict(_Pair)
    # Aggressive decisions and chances, by (currency, player, opponent) and in all by
    # (currency, player); folds facing a bet and the strong ones among them likewise.
    aggression: dict[tuple[Any, ...], list[int]] = defaultdict(lambda: [0, 0])
    folds: dict[tuple[Any, ...], list[int]] = defaultdict(lambda: [0, 0])
    for hand in hands:
        ref = HandRef(hand.round_id, hand.game, hand.table, hand.number)
        _add_flows(pairs, hand, ref)
        for decision in hand.decisions:
            player = hand.players[decision.seat]
            hit = decision.kind in AGGRESSIVE
            for seat in decision.live:
                for key in ((hand.currency, player, hand.players[seat]), (hand.currency, player)):
                    aggression[key][0] += hit
                    aggression[key][1] += 1
                first, second = sorted((player, hand.players[seat]))
                if not hit:
                    passive = pairs[(hand.currency, first, second)].passive
                    passive[ref] = passive.get(ref, 0) + 1
            if decision.kind == PeerEvent.FOLD and decision.facing is not None:
                bettor = hand.players[decision.facing]
                for key in ((hand.currency, player, bettor), (hand.currency, player)):
                    folds[key][0] += decision.strong
                    folds[key][1] += 1
                if decision.strong:
                    first, second = sorted((player, bettor))
                    given_up = pairs[(hand.currency, first, second)].strong_folds
                    given_up.setdefault(player, []).append(ref)
    return [
        _scores(currency, first, second, pair, aggression, folds)
        for (currency, first, second), pair in pairs.items()
        if pair.hands
    ]


def _add_flows(pairs: dict[tuple[str, int, int], _Pair], hand: HandRead, ref: HandRef) -> None:
    """Each winner's gain came from the losers in proportion to their losses (the rake, taken
    from the pot, went to nobody)."""
    losses = -sum(result for result in hand.results if result < 0)
    for a, b in combinations(range(len(hand.players)), 2):
        (first, r_first), (second, r_second) = sorted(
            ((hand.players[a], hand.results[a]), (hand.players[b], hand.results[b]))
        )
        pair = pairs[(hand.currency, first, second)]
        pair.hands += 1
        if not losses:
            continue
        towards_second = Fraction(
            max(-r_first, 0) * max(r_second, 0) - max(-r_second, 0) * max(r_first, 0), losses
        )
        if towards_second:
            pair.flow += towards_second
            pair.flows.append((towards_second, ref))


def _signed_rank_z(flows: Sequence[Fraction]) -> float:
    """The Wilcoxon signed-rank z of ``flows`` (positive towards the second player): the sum of
    the ranks of their sizes, each signed as its flow, over the square root of the summed
    squared ranks; 0 with fewer than ``MIN_FLOW_HANDS``."""
    if len(flows) < MIN_FLOW_HANDS:
        return 0.0
    # Equal sizes share the mean of the ranks they span.
    places: dict[Fraction, list[int]] = defaultdict(list)
    for place, size in enumerate(sorted(abs(flow) for flow in flows), start=1):
        places[size].append(place)
    ranks = [Fraction(sum(places[abs(flow)]), len(places[abs(flow)])) for flow in flows]
    signed = sum(
        (rank if flow > 0 else -rank for rank, flow in zip(ranks, flows, strict=True)), Fraction(0)
    )
    return float(signed) / math.sqrt(sum(rank * rank for rank in ranks))


def _scores(
    currency: str,
    first: int,
    second: int,
    pair: _Pair,
    aggression: Mapping[tuple[Any, ...], list[int]],
    folds: Mapping[tuple[Any, ...], list[int]],
) -> PairScores:
    flow_z = _signed_rank_z([amount for amount, _ref in pair.flows])
    direction = 1 if flow_z >= 0 else -1
    flow_hands = [
        ref
        for amount, ref in sorted(pair.flows, key=lambda flow: -direction * flow[0])
        if amount * direction > 0
    ]

    def one_way(
        tally: Mapping[tuple[Any, ...], list[int]], least: int, *, fewer: bool
    ) -> tuple[float, int, tuple[int, int], tuple[int, int]]:
        """The direction that scores higher: its z, its player, and that player's hits and
        chances with the other and with everybody else (``fewer``: the signal is a lower rate
        with the other)."""
        sides = []
        for player, other in ((first, second), (second, first)):
            hits, chances = tally.get((currency, player, other), [0, 0])
            all_hits, all_chances = tally.get((currency, player), [0, 0])
            between, others = (hits, chances), (all_hits - hits, all_chances - chances)
            z = _rate_gap(between, others, least) if fewer else _rate_gap(others, between, least)
            sides.append((z, player, between, others))
        return max(sides, key=lambda side: side[0])

    soft_z, sparing, aggressive_between, aggressive_others = one_way(
        aggression, MIN_CHANCES, fewer=True
    )
    folds_z, folding, strong_between, strong_others = one_way(folds, MIN_FOLDS, fewer=False)
    passive = sorted(pair.passive, key=lambda ref: -pair.passive[ref])
    return PairScores(
        currency=currency,
        first=first,
        second=second,
        hands=pair.hands,
        net_chips=(Decimal(pair.flow.numerator) / pair.flow.denominator * CENT).quantize(CENT),
        chip_flow=Signal(
            abs(flow_z),
            hands=tuple(flow_hands[:HANDS_SHOWN]),
            player=first if flow_z < 0 else second,
        ),
        soft_play=Signal(
            soft_z,
            _rate(aggressive_between),
            _rate(aggressive_others),
            tuple(passive[:HANDS_SHOWN]),
            player=sparing,
        ),
        strong_folds=Signal(
            folds_z,
            _rate(strong_between),
            _rate(strong_others),
            tuple(pair.strong_folds.get(folding, [])[:HANDS_SHOWN]),
            player=folding,
        ),
    )


# Selectors ---------------------------------------------------------------------------------------


def peer_games() -> dict[str, PeerGame[Any, Any]]:
    """The peer games' services (each game's ``peer``), by game code."""
    return {
        game.code: peer
        for game in all_games()
        if isinstance(peer := getattr(game, "peer", None), PeerGame)
    }


def finished_hands(
    *, start: datetime, end: datetime, using: str = DEFAULT_DB_ALIAS
) -> Iterator[HandRead]:
    """The peer hands settled from ``start`` until ``end``, as the report reads them on the
    database ``using``, a chunk of hands and their events at a time."""
    rounds = (
        Round.objects.using(using)
        .filter(
            status=RoundStatus.SETTLED,
            settled_at__gte=start,
            settled_at__lt=end,
            table__game__in=list(peer_games()),
        )
        .order_by("id")
        .values_list("pk", "table__game", "table__name", "table__currency", "nonce", "engine_state")
    )
    chunk: list[tuple[Any, ...]] = []
    for row in rounds.iterator(chunk_size=CHUNK):
        chunk.append(row)
        if len(chunk) == CHUNK:
            yield from _read_chunk(chunk, using)
            chunk = []
    yield from _read_chunk(chunk, using)


def _read_chunk(rows: Sequence[tuple[Any, ...]], using: str) -> Iterator[HandRead]:
    events: dict[int, list[tuple[str, Any]]] = defaultdict(list)
    for round_id, kind, data in (
        RoundEvent.objects.using(using)
        .filter(round_id__in=[row[0] for row in rows], kind__in=READ_KINDS)
        .order_by("round_id", "sequence")
        .values_list("round_id", "kind", "data")
    ):
        events[round_id].append((kind, data))
    games = peer_games()
    for pk, code, table, currency, number, engine_state in rows:
        game = games[code]
        hand = game.load_hand(engine_state)
        results, decisions = read_hand(hand, events[pk], game.folded_cards)
        yield HandRead(pk, code, table, number, currency, hand.players, results, decisions)


def pairs_for(
    *,
    start: datetime,
    end: datetime,
    threshold: float | None = None,
    using: str = DEFAULT_DB_ALIAS,
) -> list[PairSignals]:
    """Every pair of players who shared peer hands settled from ``start`` until ``end``, per
    currency, the most suspicious first, read on the database ``using``; flagged at
    ``threshold`` (``COLLUSION_ALERT_SCORE`` unless given)."""
    scores = score_pairs(finished_hands(start=start, end=end, using=using))
    limit = settings.COLLUSION_ALERT_SCORE if threshold is None else threshold
    users = User.objects.using(using).in_bulk(
        {pair.first for pair in scores} | {pair.second for pair in scores}
    )
    pairs = [
        PairSignals(
            currency=pair.currency,
            first=users[pair.first],
            second=users[pair.second],
            hands=pair.hands,
            net_chips=pair.net_chips,
            chip_flow=pair.chip_flow,
            soft_play=pair.soft_play,
            strong_folds=pair.strong_folds,
            threshold=limit,
        )
        for pair in scores
    ]
    return sorted(pairs, key=lambda pair: (-pair.score, pair.first.username, pair.second.username))
