"""The admin's read-only lists of player protection: nobody, not even a superuser, adds,
changes or deletes an exclusion, a reality check or a play session here (an exclusion is never
lifted early)."""

from __future__ import annotations

from django.contrib import admin

from casino.readonly_admin import ReadOnlyAdmin
from payouts.protection.models import Exclusion, PlaySession, RealityCheck


@admin.register(Exclusion)
class ExclusionAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "starts_at", "until")
    list_filter = ("kind",)
    search_fields = ("player__username",)
    date_hierarchy = "starts_at"


@admin.register(RealityCheck)
class RealityCheckAdmin(ReadOnlyAdmin):
    list_display = ("player", "session_started_at", "due_at", "acknowledged_at", "minutes")
    search_fields = ("player__username",)


@admin.register(PlaySession)
class PlaySessionAdmin(ReadOnlyAdmin):
    list_display = ("player", "started_at", "last_stake_at", "reality_check_minutes")
    search_fields = ("player__username",)
