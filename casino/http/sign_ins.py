"""Where each user last signed in from: the site's and the admin's login forms (Django's
``user_logged_in``) and the API's token login (``casino.http.tokens``) record the client's
address as the throttles read it (``client_address``, honouring ``NUM_PROXIES``). The peer
tables refuse a seat to a second account from one address (games.peer.fair_play)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils import timezone
from rest_framework.request import Request

from casino.http.throttling import client_address
from casino.models import ADDRESS_LENGTH, SignInAddress


def remember_sign_in(user: User, request: HttpRequest | Request) -> None:
    """Keep the address ``user`` signed in from with ``request`` (none known: nothing)."""
    address = (client_address(request) or "")[:ADDRESS_LENGTH]
    if address:
        SignInAddress.objects.update_or_create(
            user=user, defaults={"address": address, "signed_in_at": timezone.now()}
        )


@receiver(user_logged_in, dispatch_uid="remember_sign_in_address")
def remember_form_sign_in(
    sender: object, request: HttpRequest | None, user: User, **kwargs: Any
) -> None:
    if request is not None:
        remember_sign_in(user, request)
