"""Every URL pattern the site serves, read from the URL resolver, with sample ids filled in.

A page or endpoint added later is enumerated (and so tested) without touching the tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.core.signals import request_finished
from django.db import close_old_connections
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

_PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")
_GROUP = re.compile(r"\(\?P<(?P<name>\w+)>(?P<body>[^)]*)\)")


@dataclass(frozen=True)
class Route:
    pattern: str  # the route as written, e.g. "api/v1/stud/tables/<int:pk>/"
    name: str  # "namespace:name", or "" for an unnamed pattern
    callback: Any

    @property
    def path(self) -> str:
        return "/" + self.pattern

    def url(self, ids: Mapping[str, int]) -> str | None:
        """The pattern with sample values, or None for a catch-all that takes any path."""
        if "(?P<url>" in self.pattern:
            return None
        text = _GROUP.sub(lambda m: self._regex_value(m["name"], m["body"], ids), self.pattern)
        text = _PARAMETER.sub(lambda m: self._value(m["name"], ids), text)
        return "/" + text.replace("^", "").replace("$", "")

    def _value(self, name: str, ids: Mapping[str, int]) -> str:
        if name == "currency":
            return "USD"
        if name == "game":
            return next((g for g in ("stud", "drawmaha") if g in self.pattern), "stud")
        model = self.admin_model() if self.name.startswith("admin:") else None
        if model is not None and name in ("object_id", "pk", "id"):
            first = model._default_manager.order_by("pk").values_list("pk", flat=True).first()
            return str(first or 1)
        return str(ids[sample_kind(self.pattern)])

    def admin_model(self) -> Any:
        """The model of an admin page: its ModelAdmin's, or the one its name starts with."""
        if hasattr(self.callback, "model_admin"):
            return self.callback.model_admin.model
        parts = self.pattern.split("/")  # admin/<app_label>/<model_name>/...
        try:
            return apps.get_model(parts[1], parts[2]) if len(parts) > 3 else None
        except (LookupError, ValueError):
            return None

    def _regex_value(self, name: str, body: str, ids: Mapping[str, int]) -> str:
        if "|" in body:  # the admin's app index: one of the app labels
            return "games" if "games" in body.split("|") else body.split("|")[0]
        return self._value(name, ids)


def sample_kind(text: str) -> str:
    """Which sample object an id in this route stands for, from the words in it."""
    game = next((g for g in ("joker-draw", "stud", "drawmaha") if g in text), None)
    if any(word in text for word in ("hand", "recall", "round")):
        return "joker-draw-round" if game in (None, "joker-draw") else f"{game}-hand"
    if "versions" in text:
        return "paytable-version"
    if "paytables" in text:
        return "paytable"
    if "limits/<" in text:
        return "limits"
    return f"{game or 'stud'}-table"


def allowed_methods(callback: Any) -> set[str] | None:
    """The methods a view takes, where it says: DRF and class-based views, and functions
    behind Django's ``require_http_methods`` (whose list sits in the decorator's closure)."""
    cls = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
    if cls is not None:
        return {m.upper() for m in cls.http_method_names if hasattr(cls, m) and m != "options"}
    func = callback
    while func is not None:
        for cell in getattr(func, "__closure__", None) or ():
            value = cell.cell_contents
            if isinstance(value, list) and value and all(m in _METHODS for m in value):
                return set(value)
        func = getattr(func, "__wrapped__", None)
    return None


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def routes() -> Iterator[Route]:
    yield from _walk(get_resolver().url_patterns, "", "")


def _walk(patterns: list[Any], prefix: str, namespace: str) -> Iterator[Route]:
    for entry in patterns:
        if isinstance(entry, URLResolver):
            inner = ":".join(filter(None, [namespace, entry.namespace]))
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern):
            name = f"{namespace}:{entry.name}".lstrip(":") if entry.name else ""
            yield Route(prefix + str(entry.pattern), name, entry.callback)


def fetch(client: Client, url: str) -> Any:
    """GET a URL. A live event stream never ends: its status is what is read of it."""
    response = client.get(url)
    if response.streaming:
        # Closing ends the request, which must not close the test's database connection
        # (Django's test client does the same around its own requests).
        request_finished.disconnect(close_old_connections)
        try:
            response.close()
        finally:
            request_finished.connect(close_old_connections)
    return response
