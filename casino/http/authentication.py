"""Token sign-in for the API that also reads whether the user is a player, and refuses a token
``API_TOKEN_TTL`` seconds after it was issued (login and logout: ``casino.http.tokens``)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from casino.db import prepared_cursor
from casino.roles import PLAYER

LANGUAGE_CODES = frozenset(code for code, _name in settings.LANGUAGES)

_USER_FIELDS = [field.attname for field in User._meta.concrete_fields]

# The token's user, whether that user is in the players' group, the language the user chose
# (casino.i18n) and when the token was issued: one statement, as every API request sends it.
_SIGN_IN = f"""
SELECT {", ".join(f"u.{name}" for name in _USER_FIELDS)},
       EXISTS (SELECT 1 FROM auth_user_groups m JOIN auth_group g ON g.id = m.group_id
               WHERE m.user_id = u.id AND g.name = %s),
       (SELECT p.language FROM casino_languagepreference p WHERE p.user_id = u.id),
       t.created
FROM authtoken_token t JOIN auth_user u ON u.id = t.user_id
WHERE t.key = %s
"""  # noqa: S608 - the column names are the model's own


def token_expires(issued: datetime) -> datetime:
    return issued + timedelta(seconds=settings.API_TOKEN_TTL)


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token sign-in, refusing an expired token. The game endpoints ask on every request
    whether the user is a player (`casino.http.permissions.PLAYERS_ACT`); the answer comes with the
    user, in the same statement, and rides on it as `plays_at_tables`. The user's chosen
    language, read with it, answers the request (over the Accept-Language header)."""

    def authenticate_credentials(self, key: str) -> tuple[User, Token]:
        with prepared_cursor() as cursor:
            cursor.execute(_SIGN_IN, [PLAYER, key])
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        *user_row, plays_at_tables, language, issued = row
        if token_expires(issued) <= timezone.now():
            Token.objects.filter(key=key).delete()
            raise exceptions.AuthenticationFailed(_("Token expired: log in again."))
        user = User.from_db(connection.alias, _USER_FIELDS, user_row)
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        user.plays_at_tables = plays_at_tables  # type: ignore[attr-defined]
        if language in LANGUAGE_CODES:
            translation.activate(language)
        return user, Token(key=key, user=user, created=issued)
