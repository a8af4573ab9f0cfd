"""The admin site every admin is registered on: the project's and third-party ones alike.

Django's admin filters a list by any lookup on the model's own fields found in the URL
(`?server_seed__startswith=ab`), which turns every list into an oracle for fields it does not
show. On this site an admin filters only by what it declares (its list filters and its date
hierarchy), and nothing a list declares (columns, filters, search, ordering) may reach a field a
model names in its `SECRET_FIELDS`: values hidden until the round is over.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.contrib import admin
from django.contrib.admin import widgets
from django.contrib.admin.apps import AdminConfig
from django.core import checks
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Field, Model
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

# The query parameters Django's own list filters send for a field path (the field itself for
# "all values", exact for choices and booleans, gte/lt for dates, isnull/isempty for "empty").
FILTER_SUFFIXES = ("", "__exact", "__isnull", "__isempty", "__gte", "__lt")
DATE_HIERARCHY_SUFFIXES = ("__year", "__month", "__day")


def secret_fields(model: type[Model]) -> tuple[str, ...]:
    return tuple(getattr(model, "SECRET_FIELDS", ()))


def fields_on_path(model: type[Model], path: str) -> list[Any]:
    """The fields a lookup path goes through, up to its first lookup or transform."""
    fields = []
    for part in path.split(LOOKUP_SEP):
        try:
            field = model._meta.get_field(part)
        except FieldDoesNotExist:
            break
        fields.append(field)
        if not field.is_relation or not isinstance(field.related_model, type):
            break
        model = field.related_model
    return fields


def reaches_secret(model: type[Model], path: str) -> bool:
    return any(
        isinstance(field, Field) and field.name in secret_fields(field.model)
        for field in fields_on_path(model, path)
    )


def _filter_path(item: Any) -> str | None:
    """The field path of a list_filter entry; None for a SimpleListFilter class."""
    if isinstance(item, list | tuple):
        return str(item[0])
    return item if isinstance(item, str) else None


class DeclaredLookupsOnly(admin.ModelAdmin):
    """A list filtered only by the lookups its own list filters and date hierarchy send; any
    other lookup in the URL is refused with 400 (DisallowedModelAdminLookup)."""

    def declared_lookups(self, request: HttpRequest) -> set[str]:
        lookups: set[str] = set()
        for item in self.get_list_filter(request):
            path = _filter_path(item)
            if path is None:  # a filter class of its own: the one parameter it reads
                lookups.add(getattr(item, "parameter_name", ""))
                continue
            lookups.update(path + suffix for suffix in FILTER_SUFFIXES)
            fields = fields_on_path(self.model, path)
            if fields and fields[-1].is_relation:
                target = fields[-1].target_field.name
                lookups.add(f"{path}{LOOKUP_SEP}{target}__exact")
        if self.date_hierarchy:
            lookups.update(self.date_hierarchy + suffix for suffix in DATE_HIERARCHY_SUFFIXES)
        return lookups

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:  # type: ignore[override]
        return lookup in self.declared_lookups(request) or self._chooser_lookup(lookup, value)

    def _chooser_lookup(self, lookup: str, value: str) -> bool:
        """The exact lookup a related-object chooser sends for a `limit_choices_to`, as Django
        allows it."""
        for limit in self.model._meta.related_fkey_lookups:
            params = widgets.url_params_from_lookup_dict(limit() if callable(limit) else limit)
            if params.get(lookup) == value:
                return True
        return False


def guarded(admin_class: type[admin.ModelAdmin]) -> type[admin.ModelAdmin]:
    """The admin class itself if it already filters by declared lookups only, else the same
    admin with the guard mixed in (keeping its name)."""
    if issubclass(admin_class, DeclaredLookupsOnly):
        return admin_class
    return type(
        admin_class.__name__,
        (DeclaredLookupsOnly, admin_class),
        {"__module__": admin_class.__module__, "__qualname__": admin_class.__qualname__},
    )


def _list_paths(model_admin: admin.ModelAdmin) -> Iterator[tuple[str, str]]:
    """Every field path an admin's list may show, filter, search or order by."""
    for name in (*model_admin.list_display, *(model_admin.sortable_by or ())):
        if not isinstance(name, str):
            name = getattr(name, "admin_order_field", None)
        elif not fields_on_path(model_admin.model, name):
            method = getattr(model_admin, name, None) or getattr(model_admin.model, name, None)
            name = getattr(method, "admin_order_field", None)
        if isinstance(name, str):
            yield "list_display", name.lstrip("-")
    for item in model_admin.list_filter:
        path = _filter_path(item)
        if path is not None:
            yield "list_filter", path
    for name in model_admin.search_fields:
        yield "search_fields", name.lstrip("^=@")
    for name in model_admin.ordering or ():
        if isinstance(name, str):
            yield "ordering", name.lstrip("-")
    if model_admin.date_hierarchy:
        yield "date_hierarchy", model_admin.date_hierarchy


# The names the admin shows for third-party apps whose own names are no words a person reads
# ("Pghistory") or are not marked for translation by their package.
APP_NAMES = {
    "pghistory": _("History of changes"),
    "django_celery_results": _("Background task results"),
    "django_celery_beat": _("Periodic tasks"),
}
MODEL_NAMES = {
    ("pghistory", "Events"): _("Events"),
    ("django_celery_results", "TaskResult"): _("Task results"),
    ("django_celery_results", "GroupResult"): _("Group results"),
    ("django_celery_beat", "CrontabSchedule"): _("Crontab schedules"),
}


class CasinoAdminSite(admin.AdminSite):
    """Every admin registered here gets the guard; the site's check refuses any list that
    reaches a secret field (casino.E001); third-party apps are named in the user's language."""

    def get_app_list(
        self, request: HttpRequest, app_label: str | None = None
    ) -> list[dict[str, Any]]:
        apps = super().get_app_list(request, app_label)
        for app in apps:
            app["name"] = APP_NAMES.get(app["app_label"], app["name"])
            for model in app["models"]:
                key = (app["app_label"], model["object_name"])
                model["name"] = MODEL_NAMES.get(key, model["name"])
        return apps

    def register(
        self,
        model_or_iterable: type[Model] | Iterable[type[Model]],
        admin_class: type[admin.ModelAdmin] | None = None,
        **options: Any,
    ) -> None:
        super().register(model_or_iterable, guarded(admin_class or admin.ModelAdmin), **options)

    def check(self, app_configs: Any) -> list[checks.CheckMessage]:
        errors = list(super().check(app_configs))
        for model, model_admin in self._registry.items():
            if app_configs is not None and model._meta.app_config not in app_configs:
                continue
            for option, path in _list_paths(model_admin):
                if reaches_secret(model, path):
                    errors.append(
                        checks.Error(
                            f"{option} of {type(model_admin).__qualname__} reaches the secret "
                            f"field {path!r}: a list would show or filter by it.",
                            obj=type(model_admin),
                            id="casino.E001",
                        )
                    )
        return errors


class CasinoAdminConfig(AdminConfig):
    default_site = "casino.admin_site.CasinoAdminSite"
