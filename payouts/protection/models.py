"""What players decide about their own play, kept as history that nobody edits."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pgtrigger
from django.conf import settings
from django.db import models
from django.db.models import F, Q
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

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    kind = models.CharField(verbose_name=_("kind"), max_length=20, choices=LimitKind.choices)
    currency = models.CharField(verbose_name=_("currency"), max_length=3, blank=True)
    value = models.DecimalField(
        verbose_name=_("value"), max_digits=14, decimal_places=2, null=True, blank=True
    )
    pending_value = models.DecimalField(
        verbose_name=_("pending value"), max_digits=14, decimal_places=2, null=True, blank=True
    )
    applies_at = models.DateTimeField(verbose_name=_("applies from"), null=True, blank=True)

    class Meta:
        verbose_name = _("player limit")
        verbose_name_plural = _("player limits")
        constraints = [
            models.UniqueConstraint(
                fields=("player", "kind", "currency"), name="protection_one_limit_per_kind"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.get_kind_display()} {self.currency}".strip()

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

    limit = models.ForeignKey(
        PlayerLimit, verbose_name=_("limit"), on_delete=models.PROTECT, related_name="changes"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    requested_at = models.DateTimeField(verbose_name=_("requested at"))
    old_value = models.DecimalField(
        verbose_name=_("old value"), max_digits=14, decimal_places=2, null=True, blank=True
    )
    new_value = models.DecimalField(
        verbose_name=_("new value"), max_digits=14, decimal_places=2, null=True, blank=True
    )
    applies_at = models.DateTimeField(verbose_name=_("applies from"))

    class Meta:
        verbose_name = _("limit change")
        verbose_name_plural = _("limit changes")
        ordering = ("-requested_at", "-id")

    def __str__(self) -> str:
        return f"{self.limit}: {self.old_value} -> {self.new_value}"


# Play sessions, reality checks, time-outs and self-exclusion ----------------------------------

# The reality check intervals a player may choose, in minutes of play (RTS 13).
REALITY_CHECK_CHOICES = (15, 30, 45, 60, 90, 120)
REALITY_CHECK_DEFAULT_MINUTES = 60


class PlaySession(models.Model):
    """One row per player: their latest play session (from its first stake to its last) and
    when its next reality check falls, with the interval the player chose. Written by one
    statement at each stake (``conduct.record_stake``), so the hot paths stay fast."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.PROTECT,
        related_name="play_session",
        verbose_name=_("player"),
    )
    # Null until the player's first stake (the row may come first, with a chosen interval).
    started_at = models.DateTimeField(_("session started"), null=True, blank=True)
    last_stake_at = models.DateTimeField(_("last stake"), null=True, blank=True)
    reality_check_due_at = models.DateTimeField(_("reality check due"), null=True, blank=True)
    reality_check_minutes = models.PositiveSmallIntegerField(
        _("reality check every (minutes)"),
        default=REALITY_CHECK_DEFAULT_MINUTES,
        choices=[(m, m) for m in REALITY_CHECK_CHOICES],
    )

    class Meta:
        verbose_name = _("play session")
        verbose_name_plural = _("play sessions")

    def __str__(self) -> str:
        return f"{self.player} {self.started_at or '-'}"


@pgtrigger.register(
    pgtrigger.Protect(
        name="reality_checks_are_immutable", operation=pgtrigger.Update | pgtrigger.Delete
    ),
)
class RealityCheck(models.Model):
    """A reality check the player acknowledged, with what the notice showed them."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="reality_checks",
        verbose_name=_("player"),
    )
    session_started_at = models.DateTimeField(_("session started"))
    due_at = models.DateTimeField(_("due"))
    acknowledged_at = models.DateTimeField(_("acknowledged"))
    minutes = models.PositiveIntegerField(_("session minutes"))
    # {"USD": "-12.50", ...}: the session's net result per currency when acknowledged.
    net_result = models.JSONField(_("net result"), default=dict)

    class Meta:
        verbose_name = _("reality check")
        verbose_name_plural = _("reality checks")
        ordering = ("-acknowledged_at",)
        constraints = [
            # One acknowledgement per notice: a second press is the same acknowledgement.
            models.UniqueConstraint(
                fields=("player", "session_started_at", "due_at"),
                name="one_acknowledgement_per_reality_check",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.acknowledged_at:%Y-%m-%d %H:%M}"


class ExclusionKind(models.TextChoices):
    TIME_OUT = "time_out", _("Time-out")
    SELF_EXCLUSION = "self_exclusion", _("Self-exclusion")


@pgtrigger.register(
    pgtrigger.Protect(
        name="exclusions_are_immutable", operation=pgtrigger.Update | pgtrigger.Delete
    ),
)
class Exclusion(models.Model):
    """A time-out or self-exclusion the player took. Nobody ends one early: rows are never
    changed or deleted (the database refuses it), and a new one may only end later."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="exclusions",
        verbose_name=_("player"),
    )
    kind = models.CharField(_("kind"), max_length=20, choices=ExclusionKind.choices)
    starts_at = models.DateTimeField(_("from"))
    until = models.DateTimeField(_("until"))

    class Meta:
        verbose_name = _("exclusion")
        verbose_name_plural = _("exclusions")
        ordering = ("-starts_at", "-id")
        indexes = [models.Index(fields=("player", "until"))]
        constraints = [
            models.CheckConstraint(condition=Q(until__gt=F("starts_at")), name="exclusion_ends")
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.get_kind_display()} {self.until:%Y-%m-%d %H:%M}"
