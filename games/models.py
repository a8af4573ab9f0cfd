"""Tables and their limits.

A table's limits are versioned like paytables: a change is proposed by one staff member and
takes effect only when another approves it, and every version stays on record.
"""

from __future__ import annotations

import pghistory
import pgtrigger
from django.db import models
from django.db.models import Q

from payouts.models import Currency, MakerCheckerChange, Paytable, money_field


class Game(models.TextChoices):
    JOKER_DRAW = "joker_draw", "Joker draw poker"
    SEVEN_CARD_STUD = "seven_card_stud", "Seven-card stud"
    DRAWMAHA = "drawmaha", "Drawmaha (Sviten Special)"


class TableStatus(models.TextChoices):
    OPEN = "open", "Open"
    CLOSED = "closed", "Closed"


@pghistory.track(pghistory.InsertEvent(), pghistory.UpdateEvent(), pghistory.DeleteEvent())
class Table(models.Model):
    name = models.CharField(max_length=80, unique=True)
    game = models.CharField(max_length=20, choices=Game.choices)
    currency = models.CharField(max_length=3, choices=Currency.choices)
    status = models.CharField(max_length=6, choices=TableStatus.choices, default=TableStatus.CLOSED)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("game", "currency", "name")
        permissions = [("open_close_table", "Can open and close a table")]

    def __str__(self) -> str:
        return self.name

    def active_limits(self) -> TableLimits | None:
        return self.limits_versions.filter(status="approved").order_by("-number").first()


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

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="limits_versions")
    number = models.PositiveIntegerField()

    # Joker draw poker (JD-2, JD-13, JD-14, JD-15, JD-16).
    min_ante = money_field(null=True, blank=True)
    max_ante = money_field(null=True, blank=True)
    ante_step = money_field(null=True, blank=True)
    bonus_min = money_field(null=True, blank=True)
    bonus_max = money_field(null=True, blank=True)
    boxes_per_round = models.PositiveSmallIntegerField(null=True, blank=True)
    decision_timeout_seconds = models.PositiveIntegerField(null=True, blank=True)
    bet_paytable = models.ForeignKey(
        Paytable, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    bonus_paytable = models.ForeignKey(
        Paytable, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    # Seven-card stud (ST-1, ST-13).
    ante = money_field(null=True, blank=True)
    bring_in = money_field(null=True, blank=True)
    small_bet = money_field(null=True, blank=True)
    big_bet = money_field(null=True, blank=True)

    # Drawmaha (DM-1, DM-5).
    small_blind = money_field(null=True, blank=True)
    big_blind = money_field(null=True, blank=True)
    draw_limit = models.BooleanField(null=True, blank=True)

    # Peer games: seats, buy-in, rake (ST-13, DM-12) and the action timer.
    seats = models.PositiveSmallIntegerField(null=True, blank=True)
    rake_percent = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True)
    rake_cap = money_field(null=True, blank=True)
    buy_in_min = money_field(null=True, blank=True)
    buy_in_max = money_field(null=True, blank=True)
    action_timeout_seconds = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ("table", "-number")
        verbose_name = "table limits"
        verbose_name_plural = "table limits"
        permissions = [("approve_tablelimits", "Can approve table limits")]
        constraints = [
            models.UniqueConstraint(fields=("table", "number"), name="one_limits_version_number"),
            models.CheckConstraint(
                condition=Q(approved_by__isnull=True) | ~Q(approved_by=models.F("proposed_by")),
                name="limits_approver_is_not_proposer",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} limits v{self.number}"
