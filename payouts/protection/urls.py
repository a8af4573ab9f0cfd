"""A player's own protection, under /api/v1/me/: the player's own, never anybody else's."""

from django.urls import path

from payouts.protection import api, conduct_api, statement_api

urlpatterns = [
    path("me/limits/", api.MyLimits.as_view(), name="my-limits"),
    path("me/statement/", statement_api.OwnStatement.as_view(), name="own-statement"),
    path("me/reality-check/", conduct_api.RealityCheckView.as_view(), name="reality-check"),
    path("me/exclusions/", conduct_api.Exclusions.as_view(), name="exclusions"),
]
