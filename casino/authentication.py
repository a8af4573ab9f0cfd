"""Token sign-in for the API that also reads whether the user is a player."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import connection
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from casino.db import prepared_cursor
from casino.roles import PLAYER

_USER_FIELDS = [field.attname for field in User._meta.concrete_fields]

# The token's user, and whether that user is in the players' group: one statement, as every
# API request sends it.
_SIGN_IN = f"""
SELECT {", ".join(f"u.{name}" for name in _USER_FIELDS)},
       EXISTS (SELECT 1 FROM auth_user_groups m JOIN auth_group g ON g.id = m.group_id
               WHERE m.user_id = u.id AND g.name = %s)
FROM authtoken_token t JOIN auth_user u ON u.id = t.user_id
WHERE t.key = %s
"""  # noqa: S608 - the column names are the model's own


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token sign-in. The game endpoints ask on every request whether the user is a
    player (`casino.permissions.PLAYERS_ACT`); the answer comes with the user, in the same
    statement, and rides on it as `plays_at_tables`."""

    def authenticate_credentials(self, key: str) -> tuple[User, Token]:
        with prepared_cursor() as cursor:
            cursor.execute(_SIGN_IN, [PLAYER, key])
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        user = User.from_db(connection.alias, _USER_FIELDS, row[:-1])
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        user.plays_at_tables = row[-1]  # type: ignore[attr-defined]
        return user, Token(key=key, user=user)
