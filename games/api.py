"""Table endpoints."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import ValidationError

from . import selectors
from .models import Game
from .serializers import TableSerializer


@extend_schema(parameters=[OpenApiParameter("game", str, enum=Game.values)])
class TableList(generics.ListAPIView):
    """The lobby: tables by game, with their limits as strings."""

    serializer_class = TableSerializer
    pagination_class = None

    def get_queryset(self):
        game = self.request.query_params.get("game")
        if game is not None and game not in Game.values:
            raise ValidationError(
                {"game": [f"Unknown game {game!r}; use one of {', '.join(Game.values)}."]}
            )
        return selectors.tables_for(self.request.user, game=game)
