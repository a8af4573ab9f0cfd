"""What the auditors read: the rounds of every game with their money from the ledger (the
payouts review of joker draw boxes and peer pots alike), and the ledger drilled down from the
trial balance to an account, its entries, a transaction and the round it belongs to.

Amounts are in the currency's major unit (Decimal, two places) for every game: a peer hand's
engine counts cents, which are turned into money here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any, cast

from django.contrib.auth.models import User
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import F, Q, QuerySet, Sum, Window
from django.utils.translation import gettext_lazy as _

from casino.gaming_day import gaming_day_bounds
from games.engine.betting import PeerEvent
from games.models import BoxSettlement, Round, RoundEvent, RoundStatus, Table
from games.peer.game import PeerTableGame
from games.peer.hands import from_cents
from games.peer.selectors import awarded_hand, pot_part_name
from games.tables.hand_names import category_name, hand_name
from games.tables.table_game import game_of
from payouts.models import CENT, Account, AccountKind, LedgerEntry, LedgerTransaction

ZERO = Decimal("0.00")


@dataclass(frozen=True)
class Money:
    """A round's (or a set of rounds') money on the ledger: what players put in play, what came
    back to them, what the house kept and, of that, the rake."""

    staked: Decimal = ZERO
    paid: Decimal = ZERO
    house: Decimal = ZERO
    rake: Decimal = ZERO

    @property
    def hold_percent(self) -> Decimal | None:
        return (self.house * 100 / self.staked).quantize(CENT) if self.staked else None


@dataclass
class Winner:
    """Who a settled round paid: a joker draw box, or a peer pot's share."""

    player: str
    amount: Decimal
    hand: str
    what: str  # "box 2", "Main pot, Omaha half"


@dataclass
class ReviewedRound:
    round: Round
    money: Money
    players: list[str]
    winners: list[Winner] = field(default_factory=list)
    player_ids: list[int] = field(default_factory=list)

    @property
    def linked_players(self) -> list[tuple[int, str]]:
        """Each player's id with the name, for a link to the staff's player page."""
        return list(zip(self.player_ids, self.players, strict=True))

    @property
    def number(self) -> int:
        """The number players see: a joker draw round's id, a peer hand's number at its table."""
        return self.round.pk if self.round.player_id else self.round.nonce


def reviewed_rounds(
    *,
    date_from: date | None = None,
    date_to: date | None = None,
    game: str = "",
    table: Table | None = None,
    status: str = "",
    player: User | None = None,
    using: str = DEFAULT_DB_ALIAS,
) -> QuerySet[Round]:
    """Finished rounds of every game (settled or voided), newest first, on the database
    ``using``; the dates are gaming days, both ends included."""
    rounds = Round.objects.using(using).filter(status__in=(RoundStatus.SETTLED, RoundStatus.VOIDED))
    if date_from is not None:
        rounds = rounds.filter(settled_at__gte=gaming_day_bounds(date_from, date_from)[0])
    if date_to is not None:
        rounds = rounds.filter(settled_at__lt=gaming_day_bounds(date_to, date_to)[1])
    if game:
        rounds = rounds.filter(table__game=game)
    if table is not None:
        rounds = rounds.filter(table=table)
    if status:
        rounds = rounds.filter(status=status)
    if player is not None:
        rounds = rounds.filter(
            Q(player=player) | Q(engine_state__contains={"players": [player.pk]})
        )
    return rounds.select_related("table", "player").order_by("-settled_at", "-id")


# A round's postings name it ("round:ID:..."); the sums per round, or over a set of rounds.
_MONEY = """
    SELECT {group}
           COALESCE(SUM(e.amount) FILTER (
               WHERE a.kind = ANY(%(in_play)s) AND e.amount > 0), 0.00),
           COALESCE(SUM(e.amount) FILTER (
               WHERE a.kind = ANY(%(players)s) AND e.amount > 0), 0.00),
           COALESCE(SUM(e.amount) FILTER (WHERE a.kind = ANY(%(house)s)), 0.00),
           COALESCE(SUM(e.amount) FILTER (WHERE a.kind = %(rake)s), 0.00)
    FROM payouts_ledgertransaction t
    JOIN payouts_ledgerentry e ON e.transaction_id = t.id
    JOIN payouts_account a ON a.id = e.account_id
    WHERE t.reference LIKE 'round:%%'
      AND CASE WHEN t.reference LIKE 'round:%%'
               THEN split_part(t.reference, ':', 2)::bigint END IN ({rounds})
    {group_by}
"""
_KINDS: dict[str, Any] = {
    "in_play": [AccountKind.STAKES_IN_PLAY, AccountKind.BONUS],
    # Chips a peer hand pays back go to the seats' stacks, a joker draw round's pay to the wallet.
    "players": [AccountKind.PLAYER_WALLET, AccountKind.TABLE_CHIPS],
    "house": [AccountKind.HOUSE_BANKROLL, AccountKind.HOUSE_RESERVED, AccountKind.RAKE],
    "rake": AccountKind.RAKE,
}


def round_money(round_ids: list[int], *, using: str = DEFAULT_DB_ALIAS) -> dict[int, Money]:
    if not round_ids:
        return {}
    sql = _MONEY.format(
        group="CASE WHEN t.reference LIKE 'round:%%' "
        "THEN split_part(t.reference, ':', 2)::bigint END,",
        rounds="SELECT unnest(%(ids)s::bigint[])",
        group_by="GROUP BY 1",
    )
    with connections[using].cursor() as cursor:
        cursor.execute(sql, {**_KINDS, "ids": round_ids})
        return {row[0]: Money(*row[1:]) for row in cursor.fetchall()}


def total_money(rounds: QuerySet[Round]) -> Money:
    """The money of every round of the filtered set, summed in one query on its database."""
    inner, inner_params = rounds.order_by().values("id").query.sql_with_params()
    params = {**_KINDS, **{f"p{n}": value for n, value in enumerate(inner_params)}}
    # Django's %s placeholders become named ones, beside the kinds'.
    inner = inner.replace("%", "%%").replace("%%s", "%s")
    inner = inner % tuple(f"%(p{n})s" for n in range(len(inner_params)))
    sql = _MONEY.format(group="", rounds=inner, group_by="")
    with connections[rounds.db].cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return Money(*row) if row else Money()


def review(rounds: list[Round], *, using: str = DEFAULT_DB_ALIAS) -> list[ReviewedRound]:
    """The rounds of one page, each with its money, players and winners, read on the database
    ``using``."""
    money = round_money([r.pk for r in rounds], using=using)
    names = _names(rounds, using)
    boxes: dict[int, list[Winner]] = defaultdict(list)
    for box in (
        BoxSettlement.objects.using(using).filter(round__in=rounds).order_by("round_id", "box")
    ):
        boxes[box.round_id].append(
            Winner(
                player=names.get(box.player_id, ""),
                amount=box.ante_staked + box.bet_staked + box.bonus_staked + box.total_result,
                hand=category_name(box.category),
                what=str(_("box %(box)s") % {"box": box.box}),
            )
        )
    pots: dict[int, list[Winner]] = defaultdict(list)
    peer = {r.pk: r for r in rounds if r.player_id is None}
    for event in (
        RoundEvent.objects.using(using)
        .filter(round_id__in=peer, kind=PeerEvent.POT_AWARDED)
        .order_by("round_id", "sequence")
    ):
        round_ = peer[event.round_id]
        # The hands are named from the cards in the reader's language, not the engine's words.
        state = cast(PeerTableGame, game_of(round_.table.game)).load_hand(round_.engine_state).state
        players = round_.engine_state["players"]
        part = event.data.get("part")
        shown = event.data.get("hand") is not None  # None: the pot went uncontested
        for seat, share in event.data["shares"].items():
            pots[event.round_id].append(
                Winner(
                    player=names.get(players[int(seat)], ""),
                    amount=from_cents(share),
                    hand=hand_name(awarded_hand(state, part, int(seat))) if shown else "",
                    what=pot_part_name(event.data["pot"], part),
                )
            )
    return [
        ReviewedRound(
            round=r,
            money=money.get(r.pk, Money()),
            players=[names.get(p, "") for p in _players_of(r)],
            winners=boxes.get(r.pk) or pots.get(r.pk) or [],
            player_ids=_players_of(r),
        )
        for r in rounds
    ]


def _players_of(round_: Round) -> list[int]:
    return [round_.player_id] if round_.player_id else list(round_.engine_state.get("players", []))


def _names(rounds: list[Round], using: str) -> dict[int, str]:
    ids = {player for r in rounds for player in _players_of(r)}
    return dict(User.objects.using(using).filter(pk__in=ids).values_list("pk", "username"))


# The ledger, drilled down ---------------------------------------------------------------------


@dataclass(frozen=True)
class KindBalance:
    currency: str
    kind: str
    balance: Decimal

    @property
    def label(self) -> str:
        return str(AccountKind(self.kind).label)


def trial_balance_as_of(moment: datetime | None) -> list[KindBalance]:
    """Per currency and account kind, the sum of the entries up to ``moment`` (all of them
    when None): the balances the ledger held then, whose total per currency is zero."""
    entries = LedgerEntry.objects.all()
    if moment is not None:
        entries = entries.filter(created_at__lt=moment)
    rows = (
        entries.values("currency", "account__kind")
        .annotate(balance=Sum("amount"))
        .order_by("currency", "account__kind")
    )
    return [KindBalance(r["currency"], r["account__kind"], r["balance"]) for r in rows]


def accounts_as_of(
    moment: datetime | None, *, currency: str = "", kind: str = ""
) -> QuerySet[Account]:
    """Accounts of a currency and kind, each with ``balance_then``: its entries' sum up to
    ``moment`` (every entry when None)."""
    upto = Q(entries__created_at__lt=moment) if moment is not None else Q()
    accounts = Account.objects.select_related("owner").annotate(
        balance_then=Sum("entries__amount", filter=upto, default=ZERO)
    )
    if currency:
        accounts = accounts.filter(currency=currency)
    if kind:
        accounts = accounts.filter(kind=kind)
    return accounts.order_by("currency", "kind", "owner__username")


def account_entries(account: Account, moment: datetime | None = None) -> QuerySet[LedgerEntry]:
    """The account's entries up to ``moment``, newest first, each with the balance after it."""
    entries = LedgerEntry.objects.filter(account=account)
    if moment is not None:
        entries = entries.filter(created_at__lt=moment)
    return (
        entries.select_related("transaction")
        .annotate(balance_after=Window(Sum("amount"), order_by=F("id").asc()))
        .order_by("-id")
    )


def transaction_entries(ledger_transaction: LedgerTransaction) -> QuerySet[LedgerEntry]:
    return ledger_transaction.entries.select_related("account__owner").order_by("id")


def round_of(ledger_transaction: LedgerTransaction) -> Round | None:
    """The round a transaction was posted for (its reference "round:ID:..."), if any."""
    reference = ledger_transaction.reference or ""
    parts = reference.split(":")
    if len(parts) < 2 or parts[0] != "round" or not parts[1].isdigit():
        return None
    return Round.objects.select_related("table").filter(pk=int(parts[1])).first()
