"""What players decide about their own play, kept as history that nobody edits."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pgtrigger
from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

# Limits --------------------------------------------------------------------------------------


class LimitKind(models.TextChoices):
    """A limit a player sets on their own play: its kind and, for money, its period."""

    DEPOSIT_DAY = "deposit_day", _("deposit limit per day")
    DEPOSIT_WEEK = "deposit_week", _("deposit limit per week")
    DEPOSIT_MONTH = "deposit_month", _("deposit limit per month")
    LOSS_DAY = "loss_day", _("loss limit per day")
    LOSS_WEEK = "loss_week", _("loss limit per week")
    LOSS_MONTH = "loss_month", _("loss limit per month")
    MAX_STAKE = "max_stake", _("maximum stake per round or hand")
    SESSION_TIME = "session_time", _("session time limit")


class PlayerLimit(models.Model):
    """One limit of one player, per currency (the session time limit has none: ``""``): the
    value in force and a raise or removal waiting out its cooling-off. ``None`` is no limit.
    A pending value applies by itself at ``applies_at``: readers take it from then on
    (``in_force``), whether or not anything has written the row since."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=20, choices=LimitKind.choices)
    currency = models.CharField(max_length=3, blank=True)
    value = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    pending_value = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    applies_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("player limit")
        verbose_name_plural = _("player limits")
        constraints = [
            models.UniqueConstraint(
                fields=("player", "kind", "currency"), name="protection_one_limit_per_kind"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.kind} {self.currency}".strip()

    def in_force(self, at: datetime) -> Decimal | None:
        """The value that binds the player at ``at``."""
        if self.applies_at is not None and self.applies_at <= at:
            return self.pending_value
        return self.value

    def pending_at(self, at: datetime) -> bool:
        """Whether a change still waits out its cooling-off at ``at``."""
        return self.applies_at is not None and self.applies_at > at


@pgtrigger.register(
    pgtrigger.Protect(
        name="limit_changes_are_immutable", operation=pgtrigger.Update | pgtrigger.Delete
    ),
)
class LimitChange(models.Model):
    """A player's request to change a limit, as asked: who, when, the value in force before,
    the value asked for and when it applies (at once when lowered, after the cooling-off when
    raised or removed)."""

    limit = models.ForeignKey(PlayerLimit, on_delete=models.PROTECT, related_name="changes")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    requested_at = models.DateTimeField()
    old_value = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    new_value = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    applies_at = models.DateTimeField()

    class Meta:
        verbose_name = _("limit change")
        verbose_name_plural = _("limit changes")
        ordering = ("-requested_at", "-id")

    def __str__(self) -> str:
        return f"{self.limit}: {self.old_value} -> {self.new_value}"
