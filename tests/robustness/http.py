"""A small HTTP client for the live server: every answer, refusals included, as (status, JSON)."""

from __future__ import annotations

import itertools
import json
import urllib.error
import urllib.request
from typing import Any

_keys = itertools.count()


class ApiUser:
    def __init__(self, base_url: str, username: str) -> None:
        self.base_url = base_url
        self.username = username
        self.token: str | None = None
        status, body = self.call(
            "POST", "/api/v1/auth/token/", {"username": username, "password": f"{username}-pw"}
        )
        assert status == 200, body
        self.token = body["token"]

    def call(
        self, method: str, path: str, body: dict[str, Any] | None = None, *, key: str | None = None
    ) -> tuple[int, Any]:
        status, content = self.raw(method, path, body, key=key)
        return status, json.loads(content)

    def raw(
        self, method: str, path: str, body: dict[str, Any] | None = None, *, key: str | None = None
    ) -> tuple[int, bytes]:
        """Send a request; a POST by a signed-in user carries ``key`` or a fresh Idempotency-Key."""
        request = urllib.request.Request(self.base_url + path, method=method)  # noqa: S310 - local test server
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
            if method == "POST":
                request.add_header("Idempotency-Key", key or f"{self.username}-{next(_keys)}")
        data = json.dumps(body).encode() if body is not None else None
        try:
            with urllib.request.urlopen(request, data, timeout=60) as response:  # noqa: S310
                return response.status, response.read()
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read()
