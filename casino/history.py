"""Who changed a tracked row, and through which page: pghistory's context on each request."""

from __future__ import annotations

from collections.abc import Callable

import pghistory.middleware
from django.http import HttpRequest, HttpResponse

# The players' game endpoints change no tracked row (tables, limits, paytables); their rounds,
# hands and ledger postings record their own actor.
PLAY_PATHS = ("/api/v1/joker-draw/", "/api/v1/stud/", "/api/v1/drawmaha/")


class HistoryMiddleware(pghistory.middleware.HistoryMiddleware):
    """pghistory's middleware, but not on the game endpoints: its context is sent before every
    statement of a request, which would cost every round and keep the round's statements from
    being prepared (casino.db)."""

    get_response: Callable[[HttpRequest], HttpResponse]

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(PLAY_PATHS):
            return self.get_response(request)
        return super().__call__(request)
