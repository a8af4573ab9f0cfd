"""Tables and their limits.

A table's limits are versioned like paytables: a change is proposed by one staff member and
takes effect only when another approves it, and every version stays on record.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import ClassVar

import pghistory
import pgtrigger
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from casino.models import ADDRESS_LENGTH
from payouts.approvals import MakerCheckerChange, approver_is_not_proposer
from payouts.models import (
    Currency,
    LedgerTransaction,
    Paytable,
    PaytableVersion,
    money_field,
)


class Game(models.TextChoices):
    JOKER_DRAW = "joker_draw", _("Joker draw poker")
    SEVEN_CARD_STUD = "seven_card_stud", _("Seven-card stud")
    DRAWMAHA = "drawmaha", _("Drawmaha (Sviten Special)")


class TableStatus(models.TextChoices):
    OPEN = "open", pgettext_lazy("table status", "Open")
    CLOSED = "closed", pgettext_lazy("table status", "Closed")


@pghistory.track(pghistory.InsertEvent(), pghistory.UpdateEvent(), pghistory.DeleteEvent())
class Table(models.Model):
    name = models.CharField(verbose_name=_("name"), max_length=80, unique=True)
    game = models.CharField(verbose_name=_("game"), max_length=20, choices=Game.choices)
    currency = models.CharField(verbose_name=_("currency"), max_length=3, choices=Currency.choices)
    status = models.CharField(
        verbose_name=_("status"),
        max_length=6,
        choices=TableStatus.choices,
        default=TableStatus.CLOSED,
    )
    # Why pit staff last opened or closed the table: shown to its players and kept, with who
    # and when, in the table's change history.
    status_reason = models.CharField(
        verbose_name=_("reason for the status"), max_length=500, blank=True
    )
    status_changed_at = models.DateTimeField(
        verbose_name=_("status changed at"), null=True, blank=True
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ("game", "currency", "name")
        permissions = [("open_close_table", "Can open and close a table")]

    def __str__(self) -> str:
        return self.name

    def active_limits(self) -> TableLimits | None:
        return (
            self.limits_versions.filter(status="approved")
            .select_related("bet_paytable", "bonus_paytable")
            .order_by("-number")
            .first()
        )


@pghistory.track(pghistory.InsertEvent(), pghistory.UpdateEvent(), pghistory.DeleteEvent())
@pgtrigger.register(
    pgtrigger.Protect(
        name="approved_limits_are_frozen",
        operation=pgtrigger.Update | pgtrigger.Delete,
        condition=pgtrigger.Q(old__status="approved"),
    ),
)
class TableLimits(MakerCheckerChange):
    """One version of a table's limits; only the fields of the table's game are set."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.PROTECT, related_name="limits_versions"
    )
    number = models.PositiveIntegerField(verbose_name=_("version"))

    # Joker draw poker (JD-2, JD-13, JD-14, JD-15, JD-16).
    min_ante = money_field(verbose_name=_("minimum ante"), null=True, blank=True)
    max_ante = money_field(verbose_name=_("maximum ante"), null=True, blank=True)
    ante_step = money_field(verbose_name=_("ante step"), null=True, blank=True)
    bonus_min = money_field(verbose_name=_("minimum BONUS bet"), null=True, blank=True)
    bonus_max = money_field(verbose_name=_("maximum BONUS bet"), null=True, blank=True)
    boxes_per_round = models.PositiveSmallIntegerField(
        verbose_name=_("boxes per round"), null=True, blank=True
    )
    decision_timeout_seconds = models.PositiveIntegerField(
        verbose_name=_("decision time (seconds)"), null=True, blank=True
    )
    bet_paytable = models.ForeignKey(
        Paytable,
        verbose_name=_("bet paytable"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    bonus_paytable = models.ForeignKey(
        Paytable,
        verbose_name=_("BONUS paytable"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    # The RTP band (percent) each paytable of this table must return within, by its computed
    # RTP (JD-14): the bet game and the BONUS return very different amounts, so each has its own.
    bet_rtp_min_percent = models.DecimalField(
        verbose_name=_("bet RTP minimum (%)"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
    )
    bet_rtp_max_percent = models.DecimalField(
        verbose_name=_("bet RTP maximum (%)"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
    )
    bonus_rtp_min_percent = models.DecimalField(
        verbose_name=_("BONUS RTP minimum (%)"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
    )
    bonus_rtp_max_percent = models.DecimalField(
        verbose_name=_("BONUS RTP maximum (%)"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
    )

    # How much of the currency's house bankroll (available and reserved together, percent) the
    # top payouts of one player's rounds in play, and of this table's, may hold at once
    # (HB-2, HB-3): so that a few players cannot reserve the bankroll and lock the others out.
    # Empty in versions from before the setting: the environment's defaults apply.
    player_bankroll_percent = models.DecimalField(
        verbose_name=_("most of the bankroll one player may hold (%)"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
    )
    table_bankroll_percent = models.DecimalField(
        verbose_name=_("most of the bankroll this table may hold (%)"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
    )

    # Seven-card stud (ST-1, ST-5, ST-13).
    ante = money_field(verbose_name=_("ante"), null=True, blank=True)
    bring_in = money_field(verbose_name=_("bring-in"), null=True, blank=True)
    small_bet = money_field(verbose_name=_("small bet"), null=True, blank=True)
    big_bet = money_field(verbose_name=_("big bet"), null=True, blank=True)
    open_pair_big_bet = models.BooleanField(  # ST-5
        verbose_name=_("big bet on fourth street with an open pair"), null=True, blank=True
    )

    # Drawmaha (DM-1, DM-5).
    small_blind = money_field(verbose_name=_("small blind"), null=True, blank=True)
    big_blind = money_field(verbose_name=_("big blind"), null=True, blank=True)
    draw_limit = models.BooleanField(verbose_name=_("limit on the draw"), null=True, blank=True)

    # Peer games: seats, buy-in, rake (ST-13, DM-12) and the action timer.
    seats = models.PositiveSmallIntegerField(verbose_name=_("seats"), null=True, blank=True)
    rake_percent = models.DecimalField(
        verbose_name=_("rake (%)"), max_digits=5, decimal_places=2, null=True, blank=True
    )
    rake_cap = money_field(verbose_name=_("rake cap"), null=True, blank=True)
    buy_in_min = money_field(verbose_name=_("minimum buy-in"), null=True, blank=True)
    buy_in_max = money_field(verbose_name=_("maximum buy-in"), null=True, blank=True)
    action_timeout_seconds = models.PositiveIntegerField(
        verbose_name=_("action time (seconds)"), null=True, blank=True
    )
    # Sitting out: a player out of time on this many hands in a row is sat out (dealt no hand,
    # charged no ante or blind) until back, and cashed out after this many minutes sat out.
    # Empty in versions from before the setting: the peer games' defaults apply.
    timeouts_to_sit_out = models.PositiveSmallIntegerField(
        _("hands timed out in a row to sit out"), null=True, blank=True
    )
    sit_out_minutes = models.PositiveIntegerField(
        _("minutes sat out before the cash-out"), null=True, blank=True
    )

    class Meta:
        ordering = ("table", "-number")
        verbose_name = _("table limits")
        verbose_name_plural = _("table limits")
        permissions = [("approve_tablelimits", "Can approve table limits")]
        constraints = [
            models.UniqueConstraint(fields=("table", "number"), name="one_limits_version_number"),
            approver_is_not_proposer("limits"),
        ]

    def __str__(self) -> str:
        return gettext("%(table)s limits v%(number)s") % {
            "table": self.table,
            "number": self.number,
        }


class SeedPairStatus(models.TextChoices):
    CURRENT = "current", pgettext_lazy("seed pair status", "Current")
    IN_PLAY = "in_play", _("Dealing a hand")
    REVEALED = "revealed", pgettext_lazy("seed pair status", "Revealed")


# A player has one current seed pair; a peer table one committed seed for its next hand.
CURRENT_PLAYER_PAIR_CONSTRAINT = "one_current_seed_pair_per_player"
CURRENT_TABLE_PAIR_CONSTRAINT = "one_current_seed_per_table"


@pgtrigger.register(
    pgtrigger.Protect(
        name="revealed_seed_pairs_are_frozen",
        operation=pgtrigger.Update | pgtrigger.Delete,
        condition=pgtrigger.Q(old__status="revealed"),
    ),
)
class SeedPair(models.Model):
    """A server seed committed before any stake it shuffles for, with its client seed (FS-2).

    A player's pair shuffles every joker draw round they open, each with the pair's next nonce,
    until the player rotates it; a peer table's pair shuffles its next hand, with the seated
    players' client seeds. The server seed is secret while the pair is current or its hand is
    being dealt: it is shown only once ``status`` is revealed, and it is not tracked by the
    change history (which anyone reading the history would see).
    """

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seed_pairs",
        db_index=False,  # covered by the (player, status) constraint's index
    )
    table = models.ForeignKey(
        Table,
        verbose_name=_("table"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seed_pairs",
    )
    status = models.CharField(
        verbose_name=_("status"),
        max_length=8,
        choices=SeedPairStatus.choices,
        default=SeedPairStatus.CURRENT,
    )
    server_seed = models.CharField(verbose_name=_("server seed"), max_length=64)
    commitment = models.CharField(verbose_name=_("commitment"), max_length=64)
    client_seed = models.CharField(verbose_name=_("client seed"), max_length=64, blank=True)
    next_nonce = models.PositiveIntegerField(verbose_name=_("next round number"), default=1)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)
    revealed_at = models.DateTimeField(verbose_name=_("revealed at"), null=True, blank=True)

    # Never a column, filter, search or ordering of any admin list (casino.admin_site).
    SECRET_FIELDS: ClassVar[tuple[str, ...]] = ("server_seed",)

    class Meta:
        verbose_name = _("seed pair")
        verbose_name_plural = _("seed pairs")
        ordering = ("-id",)
        constraints = [
            models.UniqueConstraint(
                fields=("player",),
                condition=Q(status="current", player__isnull=False),
                name=CURRENT_PLAYER_PAIR_CONSTRAINT,
            ),
            models.UniqueConstraint(
                fields=("table",),
                condition=Q(status="current", table__isnull=False),
                name=CURRENT_TABLE_PAIR_CONSTRAINT,
            ),
            models.CheckConstraint(
                condition=Q(player__isnull=True) ^ Q(table__isnull=True),
                name="seed_pair_of_a_player_or_a_table",
            ),
        ]
        indexes = [models.Index(fields=("player", "-id"))]

    def __str__(self) -> str:
        return gettext("seed pair %(commitment)s") % {"commitment": self.commitment[:12]}


# A player finishes a banked round at a table before starting another (JD-4).
UNFINISHED_ROUND_CONSTRAINT = "one_unfinished_round_per_player_and_table"


class RoundStatus(models.TextChoices):
    DECIDING = "deciding", _("Deciding")
    SETTLED = "settled", _("Settled")
    VOIDED = "voided", _("Voided")


@pgtrigger.register(
    pgtrigger.Protect(
        name="finished_rounds_are_frozen",
        operation=pgtrigger.Update | pgtrigger.Delete,
        condition=pgtrigger.Q(old__status="settled") | pgtrigger.Q(old__status="voided"),
    ),
)
class Round(models.Model):
    """One round (or hand) at a table, with its shuffle commitment and engine state (FS-2).

    The engine state (which holds the deck) is secret until the round is over, the server seed
    until its seed pair is revealed: selectors and serializers never show them before.
    """

    # Never listed, searched, filtered or ordered by in the admin (casino.admin_site).
    SECRET_FIELDS: ClassVar[tuple[str, ...]] = ("server_seed", "engine_state")

    # The table and the player are found through the (table, nonce) and (player, id) indexes
    # below, the seed pair through (seed_pair, nonce); an index of their own would be one more
    # to write with every round.
    table = models.ForeignKey(
        Table,
        verbose_name=_("table"),
        on_delete=models.PROTECT,
        related_name="rounds",
        db_index=False,
    )
    # A joker draw round's number under its player's seed pair; a peer hand's number at its
    # table (FS-2).
    nonce = models.PositiveIntegerField(verbose_name=_("round number"))
    seed_pair = models.ForeignKey(
        SeedPair,
        verbose_name=_("seed pair"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="rounds",
        help_text=_("The seed pair that shuffled the round; empty for rounds from before them."),
        db_index=False,
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="rounds",
        help_text=_("The player of a banked round; empty for peer games."),
        db_index=False,
    )
    status = models.CharField(
        verbose_name=_("status"),
        max_length=10,
        choices=RoundStatus.choices,
        default=RoundStatus.DECIDING,
    )
    commitment = models.CharField(verbose_name=_("commitment"), max_length=64)
    # Only rounds from before seed pairs keep their server seed here; the others' is their
    # pair's, shown once the pair is revealed (`revealed_server_seed`).
    server_seed = models.CharField(verbose_name=_("server seed"), max_length=64, blank=True)
    # A peer hand's client seed joins every dealt player's ("seat=seed,..."): up to eight of
    # 64 characters each, so no length a player can choose may stop the table dealing.
    client_seed = models.TextField(verbose_name=_("client seed"))
    engine_state = models.JSONField(verbose_name=_("game state"))
    # Rounds are never looked up by paytable version (the box settlements are, and keep theirs).
    bet_paytable_version = models.ForeignKey(
        PaytableVersion,
        verbose_name=_("bet paytable version"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
    )
    bonus_paytable_version = models.ForeignKey(
        PaytableVersion,
        verbose_name=_("BONUS paytable version"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
    )
    decision_deadline = models.DateTimeField(verbose_name=_("decide by"), null=True, blank=True)
    history_length = models.PositiveIntegerField(
        verbose_name=_("events in the hand history"), default=0, editable=False
    )
    # What a banked round holds of the house bankroll for its top payout, from its opening
    # until it is settled or voided (`ledger_check` proves the holds of the open rounds are
    # what the house's reserved account holds).
    house_hold = money_field(
        verbose_name=_("house bankroll held"), default=Decimal("0.00"), editable=False
    )
    void_reason = models.CharField(
        verbose_name=_("reason for the void"), max_length=500, blank=True
    )
    created_at = models.DateTimeField(
        verbose_name=_("created at"), auto_now_add=True, db_index=True
    )
    settled_at = models.DateTimeField(
        verbose_name=_("settled at"), null=True, blank=True, db_index=True
    )

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ("-id",)
        constraints = [
            models.UniqueConstraint(fields=("seed_pair", "nonce"), name="one_nonce_per_seed_pair"),
            models.UniqueConstraint(
                fields=("table", "nonce"),
                condition=Q(player__isnull=True),
                name="one_nonce_per_peer_table",
            ),
            models.UniqueConstraint(
                fields=("table", "player"),
                condition=Q(status="deciding", player__isnull=False),
                name=UNFINISHED_ROUND_CONSTRAINT,
            ),
        ]
        indexes = [
            models.Index(fields=("table", "nonce")),
            models.Index(fields=("player", "-id")),
            models.Index(
                fields=("decision_deadline",),
                condition=Q(status="deciding"),
                name="deciding_rounds_by_deadline",
            ),
        ]

    def __str__(self) -> str:
        # Banked rounds are numbered per seed pair, so several share a nonce at one table.
        return gettext("%(table)s round %(number)s") % {
            "table": self.table,
            "number": self.pk if self.player_id else self.nonce,
        }

    @property
    def is_over(self) -> bool:
        return self.status in (RoundStatus.SETTLED, RoundStatus.VOIDED)

    def out_of_time(self, now: datetime) -> bool:
        """Whether the decision the round waits for is overdue at ``now``: its deadline has
        passed and the timer has not acted yet."""
        return (
            self.status == RoundStatus.DECIDING
            and self.decision_deadline is not None
            and self.decision_deadline <= now
        )

    def revealed_server_seed(self) -> str | None:
        """The server seed, once it may be shown (FS-7): a joker draw round's when its player
        rotated the pair, a peer hand's when the hand is over; None before."""
        if self.seed_pair_id is None:  # rounds from before seed pairs
            return self.server_seed if self.is_over else None
        pair = self.seed_pair
        return pair.server_seed if pair and pair.status == SeedPairStatus.REVEALED else None

    def secret_server_seed(self) -> str:
        """The server seed whether or not it is revealed: for the replay only, never shown."""
        return self.seed_pair.server_seed if self.seed_pair else self.server_seed


@pgtrigger.register(
    pgtrigger.Protect(
        name="hand_history_is_append_only", operation=pgtrigger.Update | pgtrigger.Delete
    ),
)
class RoundEvent(models.Model):
    """The hand history: every deal, decision, draw and settlement of a round, in order."""

    # Deals name the cards, down cards included (casino.admin_site).
    SECRET_FIELDS: ClassVar[tuple[str, ...]] = ("data",)

    # Indexed by (round, sequence).
    round = models.ForeignKey(
        Round,
        verbose_name=_("round"),
        on_delete=models.PROTECT,
        related_name="events",
        db_index=False,
    )
    sequence = models.PositiveIntegerField(verbose_name=_("number in the hand"))
    kind = models.CharField(verbose_name=_("event"), max_length=30)
    data = models.JSONField(verbose_name=_("facts"))
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("acted by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("round event")
        verbose_name_plural = _("round events")
        ordering = ("round", "sequence")
        constraints = [
            models.UniqueConstraint(fields=("round", "sequence"), name="one_event_per_sequence")
        ]

    def __str__(self) -> str:
        return f"{self.round} #{self.sequence} {self.kind}"


class SeatStatus(models.TextChoices):
    SEATED = "seated", pgettext_lazy("seat status", "Seated")
    LEAVING = "leaving", _("Leaving after the hand")
    LEFT = "left", pgettext_lazy("seat status", "Left")


class Seat(models.Model):
    """A player's seat at a peer table. ``chips`` is the stack in front of the player, not counting
    chips already in the pot: the player's share of the house's table chips account."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.PROTECT, related_name="seatings"
    )
    number = models.PositiveSmallIntegerField(verbose_name=_("seat"))
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    chips = money_field(verbose_name=_("chips"))
    status = models.CharField(
        verbose_name=_("status"),
        max_length=8,
        choices=SeatStatus.choices,
        default=SeatStatus.SEATED,
    )
    # Stud's ante is posted automatically; a player who switches that off sits out, is dealt
    # no hand and pays no ante until switching it on again (ST-1, source 002).
    auto_ante = models.BooleanField(verbose_name=_("automatic ante"), default=True)
    # Hands in a row on which the player ran out of time (the last one's number beside it, so a
    # hand counts once); acting in time starts the count again. At the table's limit the player
    # is sat out from ``sat_out_at`` until back, or cashed out at ``cash_out_at`` (the table's
    # time sat out when it began).
    timeouts_in_a_row = models.PositiveSmallIntegerField(
        verbose_name=_("hands timed out in a row"), default=0
    )
    last_timeout_hand = models.PositiveIntegerField(
        verbose_name=_("last hand timed out"), null=True, blank=True
    )
    sat_out_at = models.DateTimeField(verbose_name=_("sat out at"), null=True, blank=True)
    cash_out_at = models.DateTimeField(verbose_name=_("cashed out at"), null=True, blank=True)
    joined_at = models.DateTimeField(verbose_name=_("sat down at"), auto_now_add=True)
    left_at = models.DateTimeField(verbose_name=_("left at"), null=True, blank=True)
    # The address the player sat down from (empty when unknown): nobody else from it may sit
    # at the table while the seat is held (games.peer.fair_play).
    client_address = models.CharField(
        verbose_name=_("sat down from address"), max_length=ADDRESS_LENGTH, blank=True, default=""
    )

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ("table", "number", "-joined_at")
        constraints = [
            models.UniqueConstraint(
                fields=("table", "number"),
                condition=~Q(status="left"),
                name="one_player_per_seat",
            ),
            models.UniqueConstraint(
                fields=("table", "player"),
                condition=~Q(status="left"),
                name="one_seat_per_player_and_table",
            ),
            models.CheckConstraint(condition=Q(chips__gte=0), name="seat_chips_not_negative"),
        ]

    def __str__(self) -> str:
        return gettext("%(table)s seat %(number)s") % {"table": self.table, "number": self.number}


@pgtrigger.register(
    pgtrigger.Protect(name="shown_hands_are_final", operation=pgtrigger.Update | pgtrigger.Delete),
)
class ShownHand(models.Model):
    """A stud hand its winner chose to show after the hand, the bets not having been called
    (ST-10): from then on the hand's players see its cards in the hand history."""

    round = models.ForeignKey(
        Round, verbose_name=_("round"), on_delete=models.PROTECT, related_name="shown_hands"
    )
    seat = models.PositiveSmallIntegerField(
        verbose_name=_("seat"), help_text=_("The table seat, as in the hand's seats.")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    shown_at = models.DateTimeField(verbose_name=_("shown at"), auto_now_add=True)

    class Meta:
        verbose_name = _("hand shown")
        verbose_name_plural = _("hands shown")
        constraints = [
            models.UniqueConstraint(fields=("round", "seat"), name="one_show_per_hand_and_seat")
        ]

    def __str__(self) -> str:
        return gettext("%(round)s seat %(seat)s shown") % {"round": self.round, "seat": self.seat}


@pgtrigger.register(
    pgtrigger.Protect(
        name="box_settlements_are_immutable", operation=pgtrigger.Update | pgtrigger.Delete
    ),
)
class BoxSettlement(models.Model):
    """How one joker draw box was settled: the payout record auditors review (JD-11..JD-14).

    Amounts are the player's signed net results; staked amounts are what the box put up.
    """

    # Indexed by (round, box).
    round = models.ForeignKey(
        Round,
        verbose_name=_("round"),
        on_delete=models.PROTECT,
        related_name="box_settlements",
        db_index=False,
    )
    box = models.PositiveSmallIntegerField(verbose_name=_("box"))
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.PROTECT, related_name="+"
    )
    currency = models.CharField(verbose_name=_("currency"), max_length=3, choices=Currency.choices)
    status = models.CharField(verbose_name=_("status"), max_length=10)
    initial_cards = models.CharField(verbose_name=_("cards dealt"), max_length=20)
    final_cards = models.CharField(verbose_name=_("cards after the draw"), max_length=20)
    category = models.CharField(verbose_name=_("hand rank"), max_length=20, db_index=True)
    hand = models.CharField(verbose_name=_("hand"), max_length=60)
    dealer_cards = models.CharField(verbose_name=_("dealer's cards"), max_length=20)
    dealer_category = models.CharField(verbose_name=_("dealer's hand rank"), max_length=20)
    dealer_qualifies = models.BooleanField(verbose_name=_("dealer qualifies"))
    ante_staked = money_field(verbose_name=_("ante staked"))
    bet_staked = money_field(verbose_name=_("bet staked"))
    bonus_staked = money_field(verbose_name=_("BONUS staked"))
    bet_paytable_version = models.ForeignKey(
        PaytableVersion,
        verbose_name=_("bet paytable version"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    bet_line = models.CharField(verbose_name=_("bet paytable line"), max_length=20, blank=True)
    bonus_paytable_version = models.ForeignKey(
        PaytableVersion,
        verbose_name=_("BONUS paytable version"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    bonus_category = models.CharField(verbose_name=_("BONUS hand rank"), max_length=20, blank=True)
    bonus_line = models.CharField(verbose_name=_("BONUS paytable line"), max_length=20, blank=True)
    ante_result = money_field(verbose_name=_("ante result"))
    bet_result = money_field(verbose_name=_("bet result"))
    bonus_result = money_field(verbose_name=_("BONUS result"))
    total_result = money_field(verbose_name=_("total result"))
    settled_at = models.DateTimeField(verbose_name=_("settled at"), db_index=True)

    class Meta:
        verbose_name = _("box settlement")
        verbose_name_plural = _("box settlements")
        ordering = ("-settled_at", "round", "box")
        constraints = [
            models.UniqueConstraint(fields=("round", "box"), name="one_settlement_per_box")
        ]

    def __str__(self) -> str:
        return gettext("%(round)s box %(box)s: %(result)s") % {
            "round": self.round,
            "box": self.box,
            "result": self.total_result,
        }


EXPECTATION_PLACES = 6  # an expectation is not money: it keeps fractions of a cent


def expectation_field(**kwargs: object) -> models.DecimalField:
    return models.DecimalField(max_digits=24, decimal_places=EXPECTATION_PLACES, **kwargs)  # type: ignore[arg-type]


@pgtrigger.register(
    pgtrigger.Protect(
        name="box_plays_are_immutable", operation=pgtrigger.Update | pgtrigger.Delete
    ),
)
class BoxPlay(models.Model):
    """How a settled joker draw box was played against best play, by the best-play solution of
    its bet paytable version (games.joker_draw.box_play): written once, after the settlement.

    ``expected_result`` is what the decisions taken should return, net of ante and bet (the
    value of the option the box closed with, given every card it had seen); ``loss`` what the
    decisions gave away against best play. Both in the currency, with fractions of a cent.
    """

    settlement = models.OneToOneField(
        BoxSettlement,
        verbose_name=_("box settlement"),
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="play",
    )
    base_ante = money_field(verbose_name=_("original ante"))
    expected_result = expectation_field(verbose_name=_("expected result of the decisions"))
    loss = expectation_field(verbose_name=_("given away against best play"))
    # [{"decision": 1, "taken": {"action", "keep", "ev"}, "best": {...}}], values in antes.
    decisions = models.JSONField(verbose_name=_("decisions"))
    solution = models.CharField(verbose_name=_("best-play solution"), max_length=64)
    assessed_at = models.DateTimeField(verbose_name=_("assessed at"), auto_now_add=True)

    class Meta:
        verbose_name = _("box play")
        verbose_name_plural = _("box plays")
        ordering = ("-settlement",)

    def __str__(self) -> str:
        return gettext("%(settlement)s: gave away %(loss)s") % {
            "settlement": self.settlement,
            "loss": self.loss,
        }


@pghistory.track(pghistory.InsertEvent(), pghistory.UpdateEvent(), pghistory.DeleteEvent())
class SettlementCorrection(MakerCheckerChange):
    """A settled joker draw round's payout put right: what each box's player gets on top of the
    settlement (negative: gives back), proposed by one staff member and approved by another.

    The round and its payout records stay as played; the correction is posted as a ledger
    transaction of the round, shown beside the payout record and by the replay.
    """

    round = models.ForeignKey(
        Round, verbose_name=_("round"), on_delete=models.PROTECT, related_name="corrections"
    )
    # {"box": "signed amount"}, e.g. {"1": "2.40", "2": "-0.60"}.
    amounts = models.JSONField(verbose_name=_("amounts per box"))
    transaction = models.OneToOneField(
        LedgerTransaction,
        verbose_name=_("transaction"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )

    class Meta:
        verbose_name = _("settlement correction")
        verbose_name_plural = _("settlement corrections")
        ordering = ("-proposed_at",)
        permissions = [("approve_settlementcorrection", "Can approve a settlement correction")]
        constraints = [approver_is_not_proposer("correction")]

    def __str__(self) -> str:
        return gettext("correction of %(round)s (%(status)s)") % {
            "round": self.round,
            "status": self.get_status_display(),
        }

    def box_amounts(self) -> dict[int, Decimal]:
        return {int(box): Decimal(amount) for box, amount in self.amounts.items()}


class AlertKind(models.TextChoices):
    # The collusion signals of the pair's play together (games.peer.collusion).
    SIGNALS = "signals", _("collusion signals")
    # Two seated players on one address, the one who came last sat out (games.peer.fair_play).
    SHARED_ADDRESS = "shared_address", _("one address at one table")


# The reviewed part of an alert is written once; what was raised is never changed.
REVIEWED_ALERTS_ARE_FROZEN = "reviewed_collusion_alerts_are_frozen"
ALERT_AS_RAISED = (
    "raised_at", "kind", "table", "period_start", "period_end", "currency", "first_player",
    "second_player", "hands", "chip_flow_score", "soft_play_score", "strong_folds_score",
    "net_chips",
)  # fmt: skip


@pgtrigger.register(
    pgtrigger.Protect(
        name=REVIEWED_ALERTS_ARE_FROZEN,
        operation=pgtrigger.Update,
        condition=pgtrigger.Q(old__reviewed_at__isnull=False),
    ),
    pgtrigger.Protect(name="collusion_alerts_are_kept", operation=pgtrigger.Delete),
    pgtrigger.Protect(
        name="raised_collusion_alerts_are_final",
        operation=pgtrigger.Update,
        condition=pgtrigger.AnyChange(*ALERT_AS_RAISED),
    ),
)
class CollusionAlert(models.Model):
    """A pair of players whose play together at the peer tables over a period scored at or
    above ``COLLUSION_ALERT_SCORE`` on a collusion signal (games.peer.collusion): raised by the
    nightly check or an auditor's "Run now"; or two players seated at one table on one address
    (games.peer.fair_play), raised when the one who came last is sat out. Marked reviewed,
    once, with a note."""

    raised_at = models.DateTimeField(_("raised at"), auto_now_add=True, db_index=True)
    kind = models.CharField(
        _("why"), max_length=20, choices=AlertKind.choices, default=AlertKind.SIGNALS
    )
    # The table two players shared an address at (a shared address's alert only).
    table = models.ForeignKey(
        Table,
        verbose_name=_("table"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    period_start = models.DateTimeField(_("from"))
    period_end = models.DateTimeField(_("to"))
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    first_player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("first player"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    second_player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("second player"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    hands = models.PositiveIntegerField(_("hands together"))
    chip_flow_score = models.DecimalField(_("chip flow"), max_digits=8, decimal_places=2)
    soft_play_score = models.DecimalField(_("soft play"), max_digits=8, decimal_places=2)
    strong_folds_score = models.DecimalField(
        _("strong hands folded"), max_digits=8, decimal_places=2
    )
    # Net chips from the first player to the second through the pots both were in.
    net_chips = money_field(verbose_name=_("net chips to the second player"))
    reviewed_at = models.DateTimeField(_("reviewed at"), null=True, blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("reviewed by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    review_note = models.TextField(_("review note"), blank=True)

    class Meta:
        verbose_name = _("collusion alert")
        verbose_name_plural = _("collusion alerts")
        ordering = ("-raised_at", "-id")
        permissions = [("review_collusionalert", "Can mark a collusion alert reviewed")]
        indexes = [
            models.Index(
                fields=("raised_at",), condition=Q(reviewed_at__isnull=True), name="open_alerts"
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(first_player__lt=models.F("second_player")),
                name="alert_pair_in_order",
            ),
            models.CheckConstraint(
                condition=Q(reviewed_at__isnull=True, reviewed_by__isnull=True)
                | Q(reviewed_at__isnull=False, reviewed_by__isnull=False),
                name="alert_reviewed_by_someone",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.first_player} / {self.second_player} ({self.currency})"
