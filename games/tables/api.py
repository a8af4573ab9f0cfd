"""Table endpoints, and what every game's endpoints share: JSON only, idempotency keys on
whatever moves money, recall newest first."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import JSONRenderer

from casino.http.idempotency import HEADER
from games.models import Game
from games.tables import selectors
from games.tables.serializers import TableSerializer

IDEMPOTENCY = OpenApiParameter(HEADER, str, OpenApiParameter.HEADER, required=True)

# The game API speaks JSON only: no content negotiation on every round's requests.
JSON_ONLY = (JSONRenderer,)


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
