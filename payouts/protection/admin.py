"""Players' limits in the admin, read only for everybody: only players set their own limits."""

from __future__ import annotations

from django.contrib import admin

from casino.readonly_admin import ReadOnlyAdmin, ReadOnlyInline
from payouts.protection.models import LimitChange, PlayerLimit


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
