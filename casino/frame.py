"""The site's frame around every page: what its menu may show the user, and where a sign-in
lands. Each link is shown only to those its page lets in (the permissions of casino.roles)."""

from __future__ import annotations

from typing import Any, cast

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest
from django.shortcuts import resolve_url
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext_lazy as _

from casino.roles import PLAYER
from payouts.protection.limits import near_limits

# The staff screens' first pages, by the permission each needs (games.staff.views): the pit's
# live tables, else the auditors' payouts review.
STAFF_LANDINGS = (
    ("games.open_close_table", "staff:live"),
    ("games.view_boxsettlement", "staff:payouts"),
)


def staff_home(user: User | AnonymousUser) -> str | None:
    """The first staff screen `user` may open, or None for players and visitors."""
    for permission, page in STAFF_LANDINGS:
        if user.has_perm(permission):
            return reverse(page)
    return None


def plays_at_tables(user: User | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.groups.filter(name=PLAYER).exists())


# The players' menu: each page's URL name and its link's words.
PLAYER_MENU = (
    ("play:lobby", _("Lobby")),
    ("play:wallet", _("Wallet")),
    ("play:statement", _("Statement")),
    ("play:recall", _("Game recall")),
    ("play:limits", _("My limits")),
    ("play:breaks", _("Breaks")),
    ("play:devices", _("My devices")),
)


def frame(request: HttpRequest) -> dict[str, Any]:
    """Context for base.html's menu, read only when a page draws it; the limits a player is
    near only on the pages that show the notice (the lobby, the tables, the limits)."""
    user = cast(User | AnonymousUser, getattr(request, "user", AnonymousUser()))
    plays = SimpleLazyObject(lambda: plays_at_tables(user))
    return {
        "frame_staff_home": SimpleLazyObject(lambda: staff_home(user) or ""),
        "frame_plays": plays,
        "frame_player_menu": PLAYER_MENU,
        "frame_near_limits": SimpleLazyObject(
            lambda: near_limits(cast(User, user)) if plays else []
        ),
    }


class SignIn(auth_views.LoginView):
    """Staff land on their staff screens, players on the lobby; a safe `next` wins."""

    template_name = "play/login.html"
    redirect_authenticated_user = True

    def get_default_redirect_url(self) -> str:
        return staff_home(cast(User, self.request.user)) or resolve_url(settings.LOGIN_REDIRECT_URL)
