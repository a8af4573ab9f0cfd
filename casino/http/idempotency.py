"""Idempotency-Key handling for money-moving API requests (Stripe's semantics).

The first successful response to a key is stored in the same database transaction as the
money it moved, as that transaction's last statement. A retry with the same key and body gets
that response again and moves nothing; the same key with another body is refused with 409.
Concurrent requests with one key meet on the key's unique index: the first to commit stands,
and each other one rolls its work back and answers with the first one's response. A retry
refused because its first attempt already did the work (the round has moved on, the money
is gone) answers with that attempt's response too.
A request that fails changes nothing and stores nothing, so it may be retried with its key.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.db import transaction
from django.http import HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from casino.db import prepared_cursor
from casino.faults import fault_point
from casino.http.permissions import acting_user
from casino.models import IdempotentRequest

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255


class IdempotencyKeyReused(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "idempotency_key_reused"
    default_detail = gettext_lazy(
        "This Idempotency-Key was already used with a different request; use a new key for a "
        "new request."
    )


def _fingerprint(request: Request) -> str:
    body = json.dumps(request.data, sort_keys=True, default=str, separators=(",", ":"))
    material = f"{request.method} {request.path}\n{body}"
    return hashlib.sha256(material.encode()).hexdigest()


# The response, stored unless a request with the same key stored one first (that one waits on
# the unique index until the other commits or rolls back).
_RECORD = (
    "INSERT INTO payouts_idempotentrequest "
    "(user_id, key, fingerprint, status_code, response_body, created_at) "
    "VALUES (%s, %s, %s, %s, %s, now()) ON CONFLICT (user_id, key) DO NOTHING RETURNING id"
)


def idempotent(view_method: Callable[..., Response]) -> Callable[..., HttpResponse]:
    @wraps(view_method)
    def wrapper(view: Any, request: Request, *args: Any, **kwargs: Any) -> HttpResponse:
        user = acting_user(request)
        key = request.headers.get(HEADER, "").strip()
        if not key or len(key) > MAX_KEY_LENGTH:
            message = _(
                "A request that moves money needs an Idempotency-Key header of 1 to %(most)s "
                "characters."
            ) % {"most": MAX_KEY_LENGTH}
            raise ValidationError({HEADER: [message]})
        fingerprint = _fingerprint(request)
        try:
            # One transaction for the whole request: any refusal rolls all of it back.
            with transaction.atomic():
                response = view_method(view, request, *args, **kwargs)
                recorded = False
                if status.is_success(response.status_code):
                    body = JSONRenderer().render(response.data).decode()
                    record = [user.pk, key, fingerprint, response.status_code, body]
                    with prepared_cursor() as cursor:
                        cursor.execute(_RECORD, record)
                        recorded = cursor.fetchone() is not None
                if not recorded:
                    # A refusal stores nothing, so the key stays free; work done under a key
                    # another request recorded first is undone.
                    transaction.set_rollback(True)
        except Exception:
            replayed = _replay(user.pk, key, fingerprint)
            if replayed is None:
                raise
            return replayed
        if not recorded:
            return _replay(user.pk, key, fingerprint) or response
        fault_point("request.committed")  # committed, but the client never hears of it
        return HttpResponse(body, status=response.status_code, content_type="application/json")

    return wrapper


def _replay(user_id: int, key: str, fingerprint: str) -> HttpResponse | None:
    """The response stored under the key, if a request stored one; 409 for another body."""
    earlier = IdempotentRequest.objects.filter(user_id=user_id, key=key).first()
    if earlier is None:
        return None
    if earlier.fingerprint != fingerprint:
        raise IdempotencyKeyReused
    return HttpResponse(
        earlier.response_body,
        status=earlier.status_code,
        content_type="application/json",
        headers={"Idempotent-Replayed": "true"},
    )
