"""The endpoints every game shares, under /api/v1/: the lobby's tables and the player's seeds."""

from django.urls import path

from games.tables import api, seed_api

urlpatterns = [
    path("tables/", api.TableList.as_view(), name="tables"),
    path("me/seeds/", seed_api.MySeeds.as_view(), name="my-seeds"),
    path("me/seeds/rotate/", seed_api.RotateMySeeds.as_view(), name="my-seeds-rotate"),
]
