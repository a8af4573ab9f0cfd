"""Seven-card stud's endpoints, under /api/v1/."""

from django.urls import path

from games.stud import api

urlpatterns = [
    path("stud/tables/<int:pk>/", api.StudTable.as_view(), name="stud-table"),
    path("stud/tables/<int:pk>/seats/", api.StudSeats.as_view(), name="stud-seats"),
    path("stud/tables/<int:pk>/leave/", api.StudLeave.as_view(), name="stud-leave"),
    path("stud/tables/<int:pk>/back/", api.StudBack.as_view(), name="stud-back"),
    path("stud/tables/<int:pk>/actions/", api.StudActions.as_view(), name="stud-actions"),
    path("stud/tables/<int:pk>/rebuy/", api.StudRebuy.as_view(), name="stud-rebuy"),
    path("stud/tables/<int:pk>/ante/", api.StudAutoAnte.as_view(), name="stud-auto-ante"),
    path("stud/hands/", api.StudHands.as_view(), name="stud-hands"),
    path("stud/hands/<int:pk>/", api.StudHand.as_view(), name="stud-hand"),
    path("stud/hands/<int:pk>/phh/", api.StudHandHistory.as_view(), name="stud-hand-phh"),
    path("stud/hands/<int:pk>/show/", api.StudShowHand.as_view(), name="stud-hand-show"),
]
