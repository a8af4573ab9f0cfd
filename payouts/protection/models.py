"""What players decide about their own play, kept as history that nobody edits."""

from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

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
