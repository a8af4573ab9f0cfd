"""Player protection in the admin, read only for everybody, superusers included: players set
their own limits and take their own breaks, and nobody lifts an exclusion early."""

from __future__ import annotations

from django.contrib import admin

from casino.readonly_admin import ReadOnlyAdmin, ReadOnlyInline
from payouts.protection.models import (
    Exclusion,
    LimitChange,
    PlayerLimit,
    PlaySession,
    RealityCheck,
)


class LimitChangeInline(ReadOnlyInline):
    model = LimitChange
    fields = ("requested_at", "requested_by", "old_value", "new_value", "applies_at")
    show_change_link = False


@admin.register(PlayerLimit)
class PlayerLimitAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "currency", "value", "pending_value", "applies_at")
    list_filter = ("kind", "currency")
    search_fields = ("player__username",)
    inlines = (LimitChangeInline,)


@admin.register(LimitChange)
class LimitChangeAdmin(ReadOnlyAdmin):
    list_display = ("limit", "requested_at", "requested_by", "old_value", "new_value", "applies_at")
    list_filter = ("requested_at",)
    search_fields = ("limit__player__username",)


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
