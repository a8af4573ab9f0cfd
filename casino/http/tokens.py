"""API token login and logout.

A login hands out the user's token in force, or a new one once it has expired
(``API_TOKEN_TTL``). Logging out revokes it, through the API or at the site's or the admin's
logout (``user_logged_out``), so a token copied off a shared machine dies with the session.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver
from django.utils import timezone
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.http.authentication import token_expires
from casino.http.sign_ins import remember_sign_in
from casino.http.throttling import TokenLoginThrottle


class TokenLogin(ObtainAuthToken):
    """`{"username", "password"}` -> `{"token", "expires"}`: the user's token in force, or a new
    one if it has expired."""

    throttle_classes = [TokenLoginThrottle]

    @extend_schema(
        responses=inline_serializer(
            "IssuedToken",
            {"token": serializers.CharField(), "expires": serializers.DateTimeField()},
        )
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = serializer.validated_data["user"]
        Token.objects.filter(
            user=user, created__lte=timezone.now() - timedelta(seconds=settings.API_TOKEN_TTL)
        ).delete()
        token, _created = Token.objects.get_or_create(user=user)
        remember_sign_in(user, request)
        return Response({"token": token.key, "expires": token_expires(token.created)})


class TokenLogout(APIView):
    """Revokes the user's token; the next request with it is refused with 401."""

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        Token.objects.filter(user=cast(User, request.user)).delete()  # IsAuthenticated
        return Response(status=status.HTTP_204_NO_CONTENT)


@receiver(user_logged_out, dispatch_uid="revoke_api_token_at_logout")
def revoke_token_at_logout(
    sender: object, request: object, user: User | None, **kwargs: Any
) -> None:
    if user is not None:
        Token.objects.filter(user=user).delete()
