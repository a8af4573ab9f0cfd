"""Token sign-in for the API that also reads whether the user is a player, and refuses a token
``API_TOKEN_TTL`` seconds after it was issued (login and logout: ``casino.http.tokens``). The
database holds only each token's SHA-256 (``casino.models.ApiToken``); the token a client sends
is hashed and looked up by its digest."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from casino.db import prepared_cursor
from casino.models import ApiToken, token_expires
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
       t.id, t.created
FROM casino_apitoken t JOIN auth_user u ON u.id = t.user_id
WHERE t.digest = %s
"""  # noqa: S608 - the column names are the model's own


def new_token() -> str:
    """160 random bits in hex, as DRF's tokens were."""
    return secrets.token_hex(20)


def token_digest(key: str) -> str:
    """What the database keeps of a token: its SHA-256 in lowercase hex."""
    return hashlib.sha256(key.encode()).hexdigest()


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token sign-in, refusing an expired token. The game endpoints ask on every request
    whether the user is a player (`casino.http.permissions.PLAYERS_ACT`); the answer comes with the
    user, in the same statement, and rides on it as `plays_at_tables`. The user's chosen
    language, read with it, answers the request (over the Accept-Language header)."""

    def authenticate_credentials(self, key: str) -> tuple[User, ApiToken]:
        with prepared_cursor() as cursor:
            cursor.execute(_SIGN_IN, [PLAYER, token_digest(key)])
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        *user_row, plays_at_tables, language, token_id, issued = row
        if token_expires(issued) <= timezone.now():
            ApiToken.objects.filter(pk=token_id).delete()
            raise exceptions.AuthenticationFailed(_("Token expired: log in again."))
        user = User.from_db(connection.alias, _USER_FIELDS, user_row)
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        user.plays_at_tables = plays_at_tables  # type: ignore[attr-defined]
        if language in LANGUAGE_CODES:
            translation.activate(language)
        return user, ApiToken(pk=token_id, user=user, created=issued)
