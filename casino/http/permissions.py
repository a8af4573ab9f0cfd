"""DRF permission classes built on the role groups' Django permissions."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticated
from rest_framework.request import Request

from casino.roles import PLAYER


def HasModelPermission(perm: str) -> type[BasePermission]:
    """A permission class admitting users who hold `perm` (e.g. "payouts.view_account")."""

    class _HasPermission(BasePermission):
        message = format_lazy(_("This needs the {perm} permission."), perm=perm)

        def has_permission(self, request: Request, view: Any) -> bool:
            return bool(request.user and request.user.has_perm(perm))

    _HasPermission.__name__ = f"Has_{perm.replace('.', '_')}"
    return _HasPermission


def _plays_at_tables(request: Request) -> bool:
    plays = getattr(request.user, "plays_at_tables", None)  # read with a token sign-in
    if plays is None:
        plays = request.user.groups.filter(name=PLAYER).exists()
    return bool(plays)


class _PlaysAtTables(BasePermission):
    message = _("Only players play at the tables: staff and auditors stake no money.")

    def has_permission(self, request: Request, view: Any) -> bool:
        return request.method in SAFE_METHODS or _plays_at_tables(request)


class _HasSeedPair(BasePermission):
    message = _("Only players have seed pairs: staff and auditors play no rounds.")

    def has_permission(self, request: Request, view: Any) -> bool:
        return _plays_at_tables(request)


class _GuardsOwnPlay(BasePermission):
    message = _(
        "Only players set the limits and breaks of their own play: staff and auditors cannot, "
        "for themselves or for a player."
    )

    def has_permission(self, request: Request, view: Any) -> bool:
        return _plays_at_tables(request)


# The game endpoints: anyone signed in reads (as the selectors allow), only players act.
PLAYERS_ACT = (IsAuthenticated, _PlaysAtTables)
# A player's own seed pair: players only, reading included.
PLAYERS_ONLY = (IsAuthenticated, _HasSeedPair)
# A player's own protection (limits, breaks): players only, reading included.
OWN_PLAY_ONLY = (IsAuthenticated, _GuardsOwnPlay)


def acting_user(request: HttpRequest) -> User:
    """The signed-in user behind a request, typed for the services (which record who acted)."""
    if not isinstance(request.user, User):
        raise NotAuthenticated
    return request.user
