"""The languages of the product: which one a request is answered in, and the user's choice.

Django's LocaleMiddleware picks the language from the switcher's cookie, else from the
browser's Accept-Language. A signed-in user's own choice, kept in `LanguagePreference`, wins
over both: the switcher stores it, each sign-in puts it into the session (read here on every
page) and the API's token sign-in reads it with the user (`casino.http.authentication`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.utils import translation
from django.utils.deprecation import MiddlewareMixin
from django.views import i18n
from django.views.decorators.cache import cache_page
from django.views.decorators.http import require_POST

from casino.models import LanguagePreference

SESSION_KEY = "casino_language"
LANGUAGE_CODES = frozenset(code for code, _name in settings.LANGUAGES)
# The JavaScript catalogue changes only with a deployment: an hour in every cache is safe.
CATALOGUE_SECONDS = 3600


def use_language(request: HttpRequest, language: str | None) -> None:
    """Answer the rest of the request in `language`, if it is one of ours."""
    if language in LANGUAGE_CODES:
        translation.activate(language)
        request.LANGUAGE_CODE = language


class UserLanguageMiddleware(MiddlewareMixin):
    """After LocaleMiddleware: a signed-in user's chosen language wins over cookie and header."""

    def process_request(self, request: HttpRequest) -> None:
        session = getattr(request, "session", None)
        if session is not None:
            use_language(request, session.get(SESSION_KEY))


def remember(user: AbstractBaseUser | AnonymousUser, language: str) -> None:
    if user.is_authenticated:
        LanguagePreference.objects.update_or_create(user=user, defaults={"language": language})


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Django's switcher (the cookie, back to `next`), kept for the signed-in user too."""
    response = i18n.set_language(request)
    language = request.POST.get("language", "")
    if language in LANGUAGE_CODES:
        remember(request.user, language)
        if request.user.is_authenticated:
            request.session[SESSION_KEY] = language
    return response


@receiver(user_logged_in, dispatch_uid="apply_language_at_sign_in")
def apply_language_at_sign_in(
    sender: object, request: HttpRequest | None, user: AbstractBaseUser, **kwargs: Any
) -> None:
    chosen = LanguagePreference.objects.filter(user_id=user.pk)
    language = chosen.values_list("language", flat=True).first()
    if request is not None and language:
        request.session[SESSION_KEY] = language
        use_language(request, language)


_catalogue = cache_page(CATALOGUE_SECONDS)(i18n.JavaScriptCatalog.as_view(domain="djangojs"))


def javascript_catalogue(request: HttpRequest, language: str) -> HttpResponseBase:
    """The pages' scripts' translations (`gettext()` in JavaScript), one address per language
    so that every cache keeps each language apart."""
    if language not in LANGUAGE_CODES:
        raise Http404
    with translation.override(language):
        return _catalogue(request)
