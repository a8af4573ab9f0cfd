"""Pit staff's admin for tables and their limits: create, propose, approve, open and close.

Nothing here writes to the models directly: every change goes through games.tables.services, which
enforces the rules and separation of duties exactly as the API does.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from casino.http.permissions import acting_user
from casino.readonly_admin import ReadOnlyAdmin, ReadOnlyInline
from games import registry  # noqa: F401  (the games' limit fields, for the forms below)
from games.joker_draw import admin as joker_draw_admin  # noqa: F401 - registers its admins
from games.joker_draw import corrections
from games.models import (
    BoxSettlement,
    CollusionAlert,
    Round,
    RoundEvent,
    RoundStatus,
    Seat,
    SettlementCorrection,
    Table,
    TableLimits,
    TableStatus,
)
from games.peer.selectors import shown_server_seed
from games.tables import services
from games.tables.history import table_history
from games.tables.limits import all_limit_fields, validate_limits
from games.tables.table_game import game_of
from payouts.approvals import ChangeRefused


class TableLimitsInline(ReadOnlyInline):
    model = TableLimits
    fields = ("number", "status", "reason", "proposed_by", "approved_by", "approved_at")


class TableForm(forms.ModelForm):
    reason = forms.CharField(
        max_length=500,
        label=_("Reason"),
        help_text=_("Why the table is created (kept in its history)."),
    )

    class Meta:
        model = Table
        fields = ("name", "game", "currency")


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    form = TableForm
    list_display = ("name", "game", "currency", "status", "limits_in_force")
    list_filter = ("game", "currency", "status")
    search_fields = ("name",)
    inlines = (TableLimitsInline,)
    actions = ("open_tables", "close_tables")
    # Its history is the database triggers' record, in words (games.tables.history).
    object_history_template = "admin/games/table/object_history.html"

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        table = self.get_object(request, object_id)
        history = table_history(table) if table is not None else []
        return super().history_view(
            request, object_id, {**(extra_context or {}), "history": history}
        )

    def get_readonly_fields(
        self, request: HttpRequest, obj: Table | None = None
    ) -> tuple[str, ...]:
        return ("name", "game", "currency", "status") if obj else ()

    def get_fields(self, request: HttpRequest, obj: Table | None = None) -> tuple[str, ...]:
        return (
            ("name", "game", "currency", "status")
            if obj
            else ("name", "game", "currency", "reason")
        )

    @admin.display(description=_("limits in force"))
    def limits_in_force(self, table: Table) -> str:
        limits = table.active_limits()
        return f"v{limits.number}" if limits else gettext("none approved yet")

    def save_model(self, request: HttpRequest, obj: Table, form: Any, change: bool) -> None:
        created = services.create_table(
            name=obj.name,
            game=obj.game,
            currency=obj.currency,
            by=acting_user(request),
            reason=form.cleaned_data["reason"],
        )
        obj.pk = created.pk

    def _set_status(self, request: HttpRequest, tables: QuerySet[Table], status: str) -> None:
        for table in tables:
            try:
                services.set_table_status(
                    table,
                    status=status,
                    by=acting_user(request),
                    reason=f"{status} from the admin",
                )
            except ChangeRefused as refused:
                self.message_user(request, f"{table}: {refused}", messages.ERROR)
            else:
                self.message_user(
                    request,
                    gettext("%(table)s is now %(status)s.")
                    % {"table": table, "status": TableStatus(status).label},
                    messages.SUCCESS,
                )

    @admin.action(description=_("Open the selected tables"), permissions=["open_close"])
    def open_tables(self, request: HttpRequest, tables: QuerySet[Table]) -> None:
        self._set_status(request, tables, TableStatus.OPEN)

    @admin.action(description=_("Close the selected tables"), permissions=["open_close"])
    def close_tables(self, request: HttpRequest, tables: QuerySet[Table]) -> None:
        self._set_status(request, tables, TableStatus.CLOSED)

    def has_open_close_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.open_close_table")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class TableLimitsForm(forms.ModelForm):
    """A proposal of new limits; the fields of the table's game are required and checked."""

    class Meta:
        model = TableLimits
        fields = ("table", "reason", *all_limit_fields())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "reason" in self.fields:  # a version's page is read-only: no fields then
            self.fields["reason"].help_text = _("Why the limits change (kept in the history).")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        table = data.get("table")
        if table is not None:
            values = {name: data.get(name) for name in all_limit_fields()}
            for field, message in validate_limits(table.game, values).items():
                self.add_error(field if field in self.fields else None, message)
        return data


@admin.register(TableLimits)
class TableLimitsAdmin(admin.ModelAdmin):
    form = TableLimitsForm
    list_display = ("table", "number", "status", "proposed_by", "approved_by", "proposed_at")
    list_filter = ("status", "table__game", "table")
    actions = ("approve",)

    def get_fields(self, request: HttpRequest, obj: TableLimits | None = None) -> tuple[str, ...]:
        if obj is None:
            return ("table", "reason", *all_limit_fields())
        meta = (
            "table",
            "number",
            "status",
            "reason",
            "proposed_by",
            "proposed_at",
            "approved_by",
            "approved_at",
        )
        return (*meta, *game_of(obj.table.game).limit_fields)

    def get_readonly_fields(
        self, request: HttpRequest, obj: TableLimits | None = None
    ) -> tuple[str, ...]:
        return self.get_fields(request, obj) if obj else ()

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        initial = super().get_changeform_initial_data(request)
        table_id = initial.get("table")
        table = Table.objects.filter(pk=table_id).first() if isinstance(table_id, str) else None
        if table is not None:
            current = table.active_limits()
            source = (
                {name: getattr(current, name) for name in game_of(table.game).limit_fields}
                if current
                else game_of(table.game).default_limits
            )
            initial.update(source)
        return initial

    def save_model(self, request: HttpRequest, obj: TableLimits, form: Any, change: bool) -> None:
        created = services.propose_limits(
            table=obj.table,
            values={name: form.cleaned_data.get(name) for name in all_limit_fields()},
            reason=obj.reason,
            by=acting_user(request),
        )
        obj.pk = created.pk

    @admin.action(description=_("Approve the selected drafts"), permissions=["approve"])
    def approve(self, request: HttpRequest, drafts: QuerySet[TableLimits]) -> None:
        for limits in drafts:
            try:
                services.approve_limits(limits, by=acting_user(request))
            except ChangeRefused as refused:
                self.message_user(request, f"{limits}: {refused}", messages.ERROR)
            else:
                self.message_user(
                    request, gettext("%(limits)s approved.") % {"limits": limits}, messages.SUCCESS
                )

    def has_approve_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.approve_tablelimits")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class RoundEventInline(ReadOnlyInline):
    model = RoundEvent
    fields = ("sequence", "kind", "data", "actor", "created_at")
    show_change_link = False


class BoxSettlementInline(ReadOnlyInline):
    model = BoxSettlement
    fields = (
        "box", "status", "initial_cards", "final_cards", "hand", "bet_line", "bonus_line",
        "ante_staked", "bet_staked", "bonus_staked", "total_result",
    )  # fmt: skip
    show_change_link = False


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    """Rounds with their hand history; seeds and cards of unfinished rounds stay hidden."""

    list_display = ("__str__", "player", "status", "created_at", "settled_at")
    list_filter = ("status", "table__game", "table")
    search_fields = ("player__username", "commitment")
    list_select_related = ("table", "player")
    inlines = (BoxSettlementInline, RoundEventInline)

    def get_fields(self, request: HttpRequest, obj: Round | None = None) -> tuple[str, ...]:
        public = ("table", "nonce", "player", "status", "commitment", "client_seed", "created_at")
        if obj is not None and obj.status != RoundStatus.DECIDING:
            # A peer hand's seed goes to the admin's auditors only (FS-7b).
            hidden = obj.player_id is None and not shown_server_seed(obj, request.user)
            seed = "seed_for_auditors" if hidden else "revealed_seed"
            return (*public, seed, "settled_at", "void_reason")
        return public

    @admin.display(description=_("server seed"))
    def revealed_seed(self, obj: Round) -> str:
        # A banked round's seed is its player's seed pair's: secret until the pair is rotated.
        return obj.revealed_server_seed() or str(_("secret until the seed pair is rotated (FS-7)"))

    @admin.display(description=_("server seed"))
    def seed_for_auditors(self, obj: Round) -> str:
        return str(_("shown to auditors only (FS-7b)"))

    def get_readonly_fields(
        self, request: HttpRequest, obj: Round | None = None
    ) -> tuple[str, ...]:
        return self.get_fields(request, obj)

    def get_inlines(self, request: HttpRequest, obj: Round | None) -> tuple[type, ...]:
        # The history of an unfinished round shows its cards: only once it is over.
        return self.inlines if obj is not None and obj.status != RoundStatus.DECIDING else ()


@admin.register(BoxSettlement)
class BoxSettlementAdmin(ReadOnlyAdmin):
    """Every settled joker draw box: the payouts auditors review."""

    list_display = (
        "round", "box", "player", "table", "category", "bet_line", "ante_staked", "bet_staked",
        "bonus_staked", "total_result", "settled_at",
    )  # fmt: skip
    list_filter = ("table", "category", "bet_line", "bonus_line", "currency")
    search_fields = ("player__username",)
    date_hierarchy = "settled_at"
    list_select_related = ("round__table", "player", "table")


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    """Who sits where at the peer tables, with the chips in front of them."""

    list_display = ("table", "number", "player", "chips", "status", "joined_at", "left_at")
    list_filter = ("status", "table")
    search_fields = ("player__username",)
    list_select_related = ("table", "player")


@admin.register(CollusionAlert)
class CollusionAlertAdmin(ReadOnlyAdmin):
    """The fair-play check's alerts, as raised; auditors review them on the fair-play report."""

    list_display = (
        "raised_at", "kind", "table", "first_player", "second_player", "currency", "hands",
        "chip_flow_score", "soft_play_score", "strong_folds_score", "reviewed_at", "reviewed_by",
    )  # fmt: skip
    list_filter = ("kind", "currency")
    date_hierarchy = "raised_at"
    list_select_related = ("table", "first_player", "second_player", "reviewed_by")


@admin.register(SettlementCorrection)
class SettlementCorrectionAdmin(ReadOnlyAdmin):
    """Settlement corrections, proposed on a round's staff page and approved by a second staff
    member (here or there)."""

    list_display = ("__str__", "status", "amounts", "reason", "proposed_by", "approved_by")
    list_filter = ("status",)
    fields = (
        "round", "amounts", "status", "reason", "proposed_by", "proposed_at", "approved_by",
        "approved_at", "transaction",
    )  # fmt: skip
    actions = ("approve",)

    @admin.action(description=_("Approve the selected corrections"), permissions=["approve"])
    def approve(self, request: HttpRequest, drafts: QuerySet[SettlementCorrection]) -> None:
        for correction in drafts:
            try:
                corrections.approve_correction(correction, by=acting_user(request))
            except ChangeRefused as refused:
                self.message_user(request, f"{correction}: {refused}", messages.ERROR)
            else:
                self.message_user(
                    request,
                    gettext("%(correction)s: posted.") % {"correction": correction},
                    messages.SUCCESS,
                )

    def has_approve_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.approve_settlementcorrection")
