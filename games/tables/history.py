"""The history people read: who changed what, when, from what to what, and why.

The database triggers (django-pghistory) record every version of a table, its limits, a
paytable's versions and their lines, with the context of the change (who, and the reason the
service gave). This module turns those rows into labelled ``old -> new`` lines; voids come from
the rounds' own ``voided`` events. The staff pages and the admin's event list read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.apps import apps
from django.contrib.auth.models import User
from django.db import models
from django.utils import formats, timezone
from django.utils.dateparse import parse_datetime
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.models import Round, RoundEvent, Table, TableLimits
from games.tables.hand_names import category_name
from games.tables.voids import PitEvent
from payouts.models import Paytable, PaytableLine, PaytableVersion

EMPTY = "—"

# The words people read for each tracked column (its field's name); a column not named here is
# the row's identity or bookkeeping, not a change anyone reads.
LABELS: dict[str, Promise] = {
    "name": gettext_lazy("name"),
    "game": gettext_lazy("game"),
    "currency": gettext_lazy("currency"),
    "status": gettext_lazy("status"),
    "reason": gettext_lazy("reason"),
    "proposed_by": gettext_lazy("proposed by"),
    "approved_by": gettext_lazy("approved by"),
    "approved_at": gettext_lazy("approved at"),
    "min_ante": gettext_lazy("minimum ante"),
    "max_ante": gettext_lazy("maximum ante"),
    "ante_step": gettext_lazy("ante step"),
    "bonus_min": gettext_lazy("minimum BONUS bet"),
    "bonus_max": gettext_lazy("maximum BONUS bet"),
    "boxes_per_round": gettext_lazy("boxes per round"),
    "decision_timeout_seconds": gettext_lazy("decision time (seconds)"),
    "bet_paytable": gettext_lazy("bet paytable"),
    "bonus_paytable": gettext_lazy("BONUS paytable"),
    "bet_rtp_min_percent": gettext_lazy("bet RTP minimum (%)"),
    "bet_rtp_max_percent": gettext_lazy("bet RTP maximum (%)"),
    "bonus_rtp_min_percent": gettext_lazy("BONUS RTP minimum (%)"),
    "bonus_rtp_max_percent": gettext_lazy("BONUS RTP maximum (%)"),
    "player_bankroll_percent": gettext_lazy("most of the bankroll one player may hold (%)"),
    "table_bankroll_percent": gettext_lazy("most of the bankroll this table may hold (%)"),
    "ante": gettext_lazy("ante"),
    "bring_in": gettext_lazy("bring-in"),
    "small_bet": gettext_lazy("small bet"),
    "big_bet": gettext_lazy("big bet"),
    "open_pair_big_bet": gettext_lazy("big bet on fourth street with an open pair"),
    "small_blind": gettext_lazy("small blind"),
    "big_blind": gettext_lazy("big blind"),
    "draw_limit": gettext_lazy("limit on the draw"),
    "seats": gettext_lazy("seats"),
    "rake_percent": gettext_lazy("rake (%)"),
    "rake_cap": gettext_lazy("rake cap"),
    "buy_in_min": gettext_lazy("minimum buy-in"),
    "buy_in_max": gettext_lazy("maximum buy-in"),
    "action_timeout_seconds": gettext_lazy("action time (seconds)"),
    "timeouts_to_sit_out": gettext_lazy("hands timed out in a row to sit out"),
    "sit_out_minutes": gettext_lazy("minutes sat out before the cash-out"),
}

# The choices' words (statuses, games, currencies) as people read them.
CHOICE_WORDS: dict[str, Promise] = {
    "open": gettext_lazy("open"),
    "closed": gettext_lazy("closed"),
    "draft": gettext_lazy("draft"),
    "approved": gettext_lazy("approved"),
    "rejected": gettext_lazy("rejected"),
    "joker_draw": gettext_lazy("Joker draw poker"),
    "seven_card_stud": gettext_lazy("Seven-card stud"),
    "drawmaha": gettext_lazy("Drawmaha"),
}


@dataclass(frozen=True)
class Change:
    """One field's change: its label, and its value before and after."""

    label: str
    old: str
    new: str


@dataclass
class HistoryEntry:
    """One change of one thing, as people read it."""

    at: datetime
    who: str
    subject: str
    action: str
    reason: str
    changes: list[Change] = field(default_factory=list)
    context: Any = None  # the change's pghistory context: what one request or service did


def label_of(column: str) -> str:
    name = column.removesuffix("_id")
    return str(LABELS.get(name, name.replace("_", " ")))


class _Values:
    """Turns stored column values into words: names for the users and paytables they point to,
    words for choices, local times for timestamps."""

    def __init__(self, rows: Iterable[Mapping[str, Any]]) -> None:
        users: set[int] = set()
        paytables: set[int] = set()
        for row in rows:
            for column, value in row.items():
                if value is None:
                    continue
                if column in ("proposed_by_id", "approved_by_id", "user"):
                    users.add(int(value))
                elif column in ("bet_paytable_id", "bonus_paytable_id"):
                    paytables.add(int(value))
        self.users = dict(User.objects.filter(pk__in=users).values_list("pk", "username"))
        self.paytables = dict(Paytable.objects.filter(pk__in=paytables).values_list("pk", "name"))

    def user(self, pk: Any) -> str:
        return self.users.get(int(pk), EMPTY) if pk is not None else EMPTY

    def word(self, column: str, value: Any) -> str:
        if value is None or value == "":
            return EMPTY
        if column in ("proposed_by_id", "approved_by_id"):
            return self.user(value)
        if column in ("bet_paytable_id", "bonus_paytable_id"):
            return self.paytables.get(int(value), str(value))
        if isinstance(value, bool):
            return _("yes") if value else _("no")
        if column.endswith("_at"):
            moment = parse_datetime(str(value))
            if moment is not None:
                return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")
        return str(CHOICE_WORDS.get(str(value), value))


# Columns that are the row's identity or bookkeeping: never shown as a change. A table's status
# reason is the entry's "why", and the moment of the change its "when".
_QUIET = {
    "id",
    "created_at",
    "proposed_at",
    "number",
    "table_id",
    "paytable_id",
    "version_id",
    "status_reason",
    "status_changed_at",
}


# Who proposed a row, its status and reason: the entry's own columns when the row is new.
_BOOKKEEPING = {"status", "reason", "proposed_by_id", "approved_by_id", "approved_at"}


def _changes(
    old: Mapping[str, Any] | None, new: Mapping[str, Any], words: _Values, *, created: bool = False
) -> list[Change]:
    """The columns whose values differ, labelled; a new row (``created``) against ``old`` (None:
    nothing) without the columns the entry shows anyway."""
    changes = []
    for column, value in new.items():
        if column.startswith("pgh_") or column in _QUIET or (created and column in _BOOKKEEPING):
            continue
        before = None if old is None else old.get(column)
        if before == value or (old is None and value in (None, "")):
            continue
        changes.append(
            Change(label_of(column), words.word(column, before), words.word(column, value))
        )
    return changes


def _event_model(model: type[models.Model]) -> type[models.Model]:
    return apps.get_model(model._meta.app_label, f"{model._meta.object_name}Event")


def _rows(model: type[models.Model], **filters: Any) -> list[dict[str, Any]]:
    """The tracked model's events as dicts of its columns and the change's context."""
    events = _event_model(model)._default_manager.filter(**filters).order_by("pgh_id")
    return [
        {**row, "context": row.pop("pgh_context__metadata") or {}}
        for row in events.values(*_columns(model), "pgh_id", "pgh_obj_id", "pgh_label",
                                 "pgh_created_at", "pgh_context_id", "pgh_context__metadata")
    ]  # fmt: skip


def _columns(model: type[models.Model]) -> list[str]:
    return [f.attname for f in model._meta.concrete_fields]


def _action(label: str, old: Mapping[str, Any] | None, new: Mapping[str, Any], created: str) -> str:
    if label == "insert":
        return created
    if label == "delete":
        return _("deleted")
    if old is not None and old.get("status") != new.get("status") and "status" in new:
        return str(CHOICE_WORDS.get(new["status"], new["status"]))
    return _("changed")


def _entries(
    rows: list[dict[str, Any]],
    words: _Values,
    subject: Any,
    created: str,
    baseline: Any = None,
) -> list[HistoryEntry]:
    """Each event against the object's previous one (an inserted row against ``baseline(row,
    seen)``, which may name an earlier row to compare it with)."""
    seen: dict[Any, dict[str, Any]] = {}
    entries = []
    for row in rows:
        new = {k: v for k, v in row.items() if not k.startswith("pgh_") and k != "context"}
        old = seen.get(row["pgh_obj_id"])
        if old is None and baseline is not None:
            old = baseline(new, seen)
        entries.append(
            HistoryEntry(
                at=row["pgh_created_at"],
                who=words.user(row["context"].get("user")),
                subject=subject(new),
                action=_action(row["pgh_label"], seen.get(row["pgh_obj_id"]), new, created),
                reason=str(row["context"].get("reason") or _status_reason(old, new)),
                changes=_changes(old, new, words, created=row["pgh_label"] == "insert"),
                context=row["pgh_context_id"],
            )
        )
        seen[row["pgh_obj_id"]] = new
    return entries


def _status_reason(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> str:
    """A table's reason for its status, where this change gave it (opened or closed)."""
    reason = new.get("status_reason") or ""
    return reason if old is None or old.get("status_reason") != reason else ""


def _previous_limits(new: Mapping[str, Any], seen: Mapping[Any, dict[str, Any]]) -> Any:
    """A proposal is read against the table's version before it: what it would change."""
    earlier = [row for row in seen.values() if row["number"] < new["number"]]
    return max(earlier, key=lambda row: row["number"]) if earlier else None


def _newest_first(entries: list[HistoryEntry]) -> list[HistoryEntry]:
    return sorted(entries, key=lambda entry: entry.at, reverse=True)


def table_history(table: Table) -> list[HistoryEntry]:
    """The table's own changes (created, opened, closed, renamed), its limits' versions
    (proposed against the version before, approved) and its voided rounds, newest first."""
    table_rows = _rows(Table, pgh_obj_id=table.pk)
    limits_rows = _rows(TableLimits, table_id=table.pk)
    words = _Values(
        [
            *table_rows,
            *limits_rows,
            *({"user": r["context"].get("user")} for r in table_rows + limits_rows),
        ]
    )
    entries = _entries(table_rows, words, lambda row: _("table %(name)s") % {"name": row["name"]},
                       _("created"))  # fmt: skip
    entries += _entries(
        limits_rows,
        words,
        lambda row: _("limits v%(number)s") % {"number": row["number"]},
        _("proposed"),
        baseline=_previous_limits,
    )
    entries += void_history(Round.objects.filter(table=table))
    return _newest_first(entries)


def void_history(rounds: models.QuerySet[Round]) -> list[HistoryEntry]:
    """Each voided round: who voided it, when and why (from its ``voided`` event)."""
    voids = RoundEvent.objects.filter(round__in=rounds, kind=PitEvent.VOIDED).select_related(
        "actor"
    )
    return [
        HistoryEntry(
            at=event.created_at,
            who=event.actor.username if event.actor else EMPTY,
            subject=_("round %(number)s") % {"number": event.round_id},
            action=_("voided"),
            reason=str(event.data.get("reason", "")),
        )
        for event in voids
    ]


def paytable_history(paytable: Paytable) -> list[HistoryEntry]:
    """Each version of the paytable (proposed, approved) with its lines' changes, newest first.
    A version's lines written in the same change as the version are one entry with it."""
    version_rows = _rows(PaytableVersion, paytable_id=paytable.pk)
    numbers = {row["id"]: row["number"] for row in version_rows}
    line_rows = _rows(PaytableLine, version_id__in=list(numbers))
    words = _Values(
        [*version_rows, *({"user": r["context"].get("user")} for r in version_rows + line_rows)]
    )

    def subject(row: Mapping[str, Any]) -> str:
        return _("%(paytable)s v%(number)s") % {"paytable": paytable.name, "number": row["number"]}

    entries = _entries(version_rows, words, subject, _("proposed"))
    by_change = {(entry.context, entry.subject): entry for entry in entries}
    seen: dict[Any, dict[str, Any]] = {}
    for row in line_rows:
        old = seen.get(row["pgh_obj_id"])
        seen[row["pgh_obj_id"]] = row
        change = Change(
            category_name(row["category"]),
            _odds(old) if old is not None and row["pgh_label"] != "insert" else EMPTY,
            EMPTY if row["pgh_label"] == "delete" else _odds(row),
        )
        title = subject({"number": numbers[row["version_id"]]})
        entry = by_change.get((row["pgh_context_id"], title))
        if entry is None:
            entry = HistoryEntry(
                at=row["pgh_created_at"],
                who=words.user(row["context"].get("user")),
                subject=title,
                action=_("lines changed"),
                reason=str(row["context"].get("reason") or ""),
                context=row["pgh_context_id"],
            )
            by_change[(row["pgh_context_id"], title)] = entry
            entries.append(entry)
        entry.changes.append(change)
    return _newest_first(entries)


def _odds(row: Mapping[str, Any]) -> str:
    return f"{row['odds_numerator']}:{row['odds_denominator']}"


def event_changes(
    label: str, data: Mapping[str, Any], diff: Mapping[str, Any] | None, user: Any
) -> tuple[str, list[Change]]:
    """Who made one recorded event and what it changed, labelled: a new row's values, else the
    diff against the row's previous event (the admin's list of every event)."""
    words = _Values([data, {"user": user}])
    if label == "insert" or diff is None:
        return words.user(user), _changes(None, data, words, created=True)
    changes = [
        Change(label_of(column), words.word(column, old), words.word(column, new))
        for column, (old, new) in diff.items()
        if column not in _QUIET and not column.startswith("pgh_")
    ]
    return words.user(user), changes
