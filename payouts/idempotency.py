"""Idempotency-Key handling for money-moving API requests (Stripe's semantics).

The first successful response to a key is stored in the same database transaction as the
money it moved. A retry with the same key and body gets that response again and moves
nothing; the same key with another body is refused with 409. Concurrent retries queue on the
key's unique index, so exactly one of them runs.
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
from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from casino.db import prepared_cursor, request_transaction
from casino.faults import fault_point
from casino.permissions import acting_user

from .models import IdempotentRequest

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255


class IdempotencyKeyReused(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "idempotency_key_reused"
    default_detail = (
        f"This {HEADER} was already used with a different request; use a new key for a new request."
    )


def _fingerprint(request: Request) -> str:
    body = json.dumps(request.data, sort_keys=True, default=str, separators=(",", ":"))
    material = f"{request.method} {request.path}\n{body}"
    return hashlib.sha256(material.encode()).hexdigest()


_CLAIM = (
    "INSERT INTO payouts_idempotentrequest "
    "(user_id, key, fingerprint, status_code, response_body, created_at) "
    "VALUES (%s, %s, %s, 0, '', now()) ON CONFLICT (user_id, key) DO NOTHING RETURNING id"
)


_STORE = "UPDATE payouts_idempotentrequest SET status_code = %s, response_body = %s WHERE id = %s"


def idempotent(view_method: Callable[..., Response]) -> Callable[..., HttpResponse]:
    @wraps(view_method)
    def wrapper(view: Any, request: Request, *args: Any, **kwargs: Any) -> HttpResponse:
        user = acting_user(request)
        key = request.headers.get(HEADER, "").strip()
        if not key or len(key) > MAX_KEY_LENGTH:
            message = (
                f"A request that moves money needs an {HEADER} header "
                f"of 1 to {MAX_KEY_LENGTH} characters."
            )
            raise ValidationError({HEADER: [message]})
        fingerprint = _fingerprint(request)
        with request_transaction():
            # Claim the key first. A concurrent request with the same key waits here on the
            # unique index until this one commits (then replays) or rolls back (then runs).
            with prepared_cursor() as cursor:
                cursor.execute(_CLAIM, [user.pk, key, fingerprint])
                claimed = cursor.fetchone()
            if claimed is None:
                earlier = IdempotentRequest.objects.get(user=user, key=key)
                if earlier.fingerprint != fingerprint:
                    raise IdempotencyKeyReused
                return HttpResponse(
                    earlier.response_body,
                    status=earlier.status_code,
                    content_type="application/json",
                    headers={"Idempotent-Replayed": "true"},
                )
            response = view_method(view, request, *args, **kwargs)
            if not status.is_success(response.status_code):
                transaction.set_rollback(True)  # a refusal stores nothing: the key stays free
                return response
            body = JSONRenderer().render(response.data).decode()
            with prepared_cursor() as cursor:
                cursor.execute(_STORE, [response.status_code, body, claimed[0]])
        fault_point("request.committed")  # committed, but the client never hears of it
        return HttpResponse(body, status=response.status_code, content_type="application/json")

    return wrapper
