"""A player's own protection, under /api/v1/me/."""

from django.urls import path

from payouts.protection import api

urlpatterns = [
    path("me/limits/", api.MyLimits.as_view(), name="my-limits"),
]
