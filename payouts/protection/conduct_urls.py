"""The player's reality checks and exclusions, under /api/v1/."""

from django.urls import path

from payouts.protection import conduct_api

urlpatterns = [
    path("me/reality-check/", conduct_api.RealityCheckView.as_view(), name="reality-check"),
    path("me/exclusions/", conduct_api.Exclusions.as_view(), name="exclusions"),
]
