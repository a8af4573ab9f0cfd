"""A player's seed pair over the API: read its commitment before staking, change the client
seed, rotate the pair (FS-2, FS-7)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.http.idempotency import idempotent
from casino.http.permissions import PLAYERS_ONLY, acting_user
from games.models import SeedPair
from games.tables import seeds
from games.tables.api import IDEMPOTENCY, JSON_ONLY


def pair_json(pair: SeedPair) -> dict[str, Any]:
    """A current pair as its player sees it: never its server seed."""
    return {
        "commitment": pair.commitment,
        "client_seed": pair.client_seed,
        "next_nonce": pair.next_nonce,
    }


class ClientSeedSerializer(serializers.Serializer[None]):
    # The service checks the seed and names the rule (FS-2).
    client_seed = serializers.CharField(
        allow_blank=True,
        trim_whitespace=False,
        help_text="1 to 64 letters, digits, dots, underscores or hyphens",
    )


PAIR = inline_serializer(
    "SeedPair",
    {
        "commitment": serializers.CharField(help_text="SHA-256 of the current server seed"),
        "client_seed": serializers.CharField(),
        "next_nonce": serializers.IntegerField(help_text="the nonce of your next round"),
    },
)
ROTATION = inline_serializer(
    "SeedPairRotation",
    {
        "revealed": inline_serializer(
            "RevealedSeedPair",
            {
                "server_seed": serializers.CharField(),
                "commitment": serializers.CharField(),
                "client_seed": serializers.CharField(),
                "rounds": serializers.IntegerField(help_text="nonces 1 to this were played"),
            },
        ),
        "current": PAIR,
    },
)


class MySeeds(APIView):
    """The signed-in player's current seed pair."""

    permission_classes = PLAYERS_ONLY
    renderer_classes = JSON_ONLY

    @extend_schema(
        responses={200: PAIR},
        summary="Your seed pair: the server seed's commitment, your client seed, the next nonce",
    )
    def get(self, request: Request) -> Response:
        return Response(pair_json(seeds.current_pair(acting_user(request))))

    @extend_schema(
        request=ClientSeedSerializer,
        responses={200: PAIR},
        summary="Change your client seed: rounds opened from now on use it",
    )
    def put(self, request: Request) -> Response:
        incoming = ClientSeedSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        pair = seeds.set_client_seed(acting_user(request), incoming.validated_data["client_seed"])
        return Response(pair_json(pair))


class RotateMySeeds(APIView):
    """Rotate the pair: reveal its server seed and commit the next one."""

    permission_classes = PLAYERS_ONLY
    renderer_classes = JSON_ONLY

    @extend_schema(
        request=None,
        responses={200: ROTATION},
        parameters=[IDEMPOTENCY],
        summary="Reveal your server seed and commit a new one (refused while a round is open)",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        rotation = seeds.rotate(acting_user(request))
        old = rotation.revealed
        return Response(
            {
                "revealed": {
                    "server_seed": old.server_seed,
                    "commitment": old.commitment,
                    "client_seed": old.client_seed,
                    "rounds": old.next_nonce - 1,
                },
                "current": pair_json(rotation.current),
            }
        )
