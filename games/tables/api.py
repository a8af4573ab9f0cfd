"""Table endpoints, and what every game's endpoints share: JSON only, idempotency keys on
whatever moves money, recall newest first, and overdue decisions settled before a decision."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request

from casino.http.idempotency import HEADER
from casino.http.permissions import acting_user
from games.models import Game
from games.tables import selectors
from games.tables.serializers import TableSerializer

if TYPE_CHECKING:
    from django.contrib.auth.models import User

IDEMPOTENCY = OpenApiParameter(HEADER, str, OpenApiParameter.HEADER, required=True)

# The game API speaks JSON only: no content negotiation on every round's requests.
JSON_ONLY = (JSONRenderer,)


def overdue_first(catch_up: Callable[[int, User], object]) -> Callable[[Any], Any]:
    """Settle what is overdue at the round or table a decision is for (``catch_up`` with its
    id and the player deciding, who may touch no one else's round), committed on its own,
    before the decision's request starts: a decision that comes too late is then refused
    without undoing the fold or the deal that its lateness caused."""

    def decorate(view_method: Any) -> Any:
        @wraps(view_method)
        def wrapper(view: Any, request: Request, pk: int, *args: Any, **kwargs: Any) -> Any:
            catch_up(pk, acting_user(request))
            return view_method(view, request, pk, *args, **kwargs)

        return wrapper

    return decorate


@extend_schema(parameters=[OpenApiParameter("game", str, enum=Game.values)])
class TableList(generics.ListAPIView):
    """The lobby: tables by game, with their limits as strings."""

    serializer_class = TableSerializer
    pagination_class = None

    def get_queryset(self):
        game = self.request.query_params.get("game")
        if game is not None and game not in Game.values:
            raise ValidationError(
                {
                    "game": [
                        _("Unknown game %(game)r; use one of %(games)s.")
                        % {"game": game, "games": ", ".join(Game.values)}
                    ]
                }
            )
        return selectors.tables_for(self.request.user, game=game)
