"""The admin's list of every recorded change, in words: when, what, who, what changed (old ->
new) and why, instead of pghistory's raw columns (settings: ``PGHISTORY_ADMIN_CLASS``)."""

from __future__ import annotations

from typing import Any

import pghistory.admin
from django.apps import apps
from django.contrib import admin
from django.utils.html import format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _

from games.tables.history import event_changes


class EventsAdmin(pghistory.admin.EventsAdmin):
    def get_list_display(self, request: Any) -> tuple[str, ...]:
        return ("when", "what", "who", "change", "why")

    @admin.display(description=_("when"), ordering="pgh_created_at")
    def when(self, event: Any) -> Any:
        return event.pgh_created_at

    @admin.display(description=_("what"))
    def what(self, event: Any) -> str:
        try:
            name = apps.get_model(event.pgh_obj_model)._meta.verbose_name
        except LookupError:
            name = event.pgh_obj_model
        return f"{name} {event.pgh_obj_id}"

    @admin.display(description=_("who"))
    def who(self, event: Any) -> str:
        return self._described(event)[0]

    @admin.display(description=_("change (old -> new)"))
    def change(self, event: Any) -> SafeString:
        changes = self._described(event)[1]
        return format_html_join(
            mark_safe("<br>"), "{}: {} → {}", ((c.label, c.old, c.new) for c in changes)
        )

    @admin.display(description=_("why"))
    def why(self, event: Any) -> str:
        return str((event.pgh_context or {}).get("reason") or "")

    def _described(self, event: Any) -> tuple[str, list[Any]]:
        if not hasattr(event, "_described"):
            context = event.pgh_context or {}
            event._described = event_changes(
                event.pgh_label, event.pgh_data or {}, event.pgh_diff, context.get("user")
            )
        return event._described
