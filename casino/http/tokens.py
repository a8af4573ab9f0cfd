"""API token login and logout.

Every login issues a new token, for the device it names (``device``, else its User-Agent), so a
player's phone and laptop hold tokens of their own; the database keeps only each token's digest
(``casino.http.authentication``). A token expires ``API_TOKEN_TTL`` seconds after it was issued.
Logging out through the API revokes the token it was sent with; signing out of the site or the
admin (``user_logged_out``) revokes every token of the user, so a token copied off a shared
machine dies with the session. The player's devices page lists the tokens and revokes any one.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_out
from django.db.models import QuerySet
from django.dispatch import receiver
from django.utils import timezone
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import parsers, renderers, serializers, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.http.authentication import new_token, token_digest
from casino.http.sign_ins import remember_sign_in
from casino.http.throttling import TokenLoginThrottle
from casino.models import DEVICE_LENGTH, ApiToken


def tokens_in_force(user: User) -> QuerySet[ApiToken]:
    """The user's tokens that have not expired, newest first."""
    since = timezone.now() - timedelta(seconds=settings.API_TOKEN_TTL)
    return ApiToken.objects.filter(user=user, created__gt=since).order_by("-created", "-pk")


def issue_token(user: User, device: str) -> tuple[str, ApiToken]:
    """A new token for one of ``user``'s devices: the token itself, which is shown once and
    kept nowhere, and its stored record. The user's expired tokens go at the same time."""
    ApiToken.objects.filter(
        user=user, created__lte=timezone.now() - timedelta(seconds=settings.API_TOKEN_TTL)
    ).delete()
    key = new_token()
    record = ApiToken.objects.create(
        user=user,
        digest=token_digest(key),
        device=device.strip()[:DEVICE_LENGTH],
        created=timezone.now(),
    )
    return key, record


class LoginSerializer(AuthTokenSerializer):
    device = serializers.CharField(required=False, allow_blank=True, max_length=DEVICE_LENGTH)


class TokenLogin(GenericAPIView):
    """`{"username", "password", "device"?}` -> `{"token", "expires"}`: a new token for this
    device; the user's other tokens stay in force."""

    throttle_classes = [TokenLoginThrottle]
    permission_classes = [AllowAny]
    parser_classes = [parsers.FormParser, parsers.MultiPartParser, parsers.JSONParser]
    renderer_classes = [renderers.JSONRenderer]
    serializer_class = LoginSerializer

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
        device = serializer.validated_data.get("device") or request.headers.get("User-Agent", "")
        key, record = issue_token(user, device)
        remember_sign_in(user, request)
        return Response({"token": key, "expires": record.expires})


class TokenLogout(APIView):
    """Revokes the token the request came with (the user's other devices stay signed in); the
    next request with it is refused with 401. Signed in by the session instead: nothing."""

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        if isinstance(request.auth, ApiToken):
            ApiToken.objects.filter(pk=request.auth.pk).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


@receiver(user_logged_out, dispatch_uid="revoke_api_token_at_logout")
def revoke_token_at_logout(
    sender: object, request: object, user: User | None, **kwargs: Any
) -> None:
    if user is not None:
        ApiToken.objects.filter(user=cast(User, user)).delete()
