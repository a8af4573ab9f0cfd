"""Drawmaha's endpoints, under /api/v1/."""

from django.urls import path

from games.drawmaha import api

urlpatterns = [
    path("drawmaha/tables/<int:pk>/", api.DrawmahaTable.as_view(), name="drawmaha-table"),
    path("drawmaha/tables/<int:pk>/seats/", api.DrawmahaSeats.as_view(), name="drawmaha-seats"),
    path("drawmaha/tables/<int:pk>/leave/", api.DrawmahaLeave.as_view(), name="drawmaha-leave"),
    path("drawmaha/tables/<int:pk>/back/", api.DrawmahaBack.as_view(), name="drawmaha-back"),
    path(
        "drawmaha/tables/<int:pk>/actions/",
        api.DrawmahaActions.as_view(),
        name="drawmaha-actions",
    ),
    path("drawmaha/hands/", api.DrawmahaHands.as_view(), name="drawmaha-hands"),
    path("drawmaha/hands/<int:pk>/", api.DrawmahaHand.as_view(), name="drawmaha-hand"),
    path(
        "drawmaha/hands/<int:pk>/phh/",
        api.DrawmahaHandHistory.as_view(),
        name="drawmaha-hand-phh",
    ),
]
