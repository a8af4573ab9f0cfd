"""Player protection's endpoints, under /api/v1/me/: the player's own, never anybody else's."""

from django.urls import path

from payouts.protection import statement_api

urlpatterns = [
    path("me/statement/", statement_api.OwnStatement.as_view(), name="own-statement"),
]
