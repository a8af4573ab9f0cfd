"""The joker draw's endpoints, under /api/v1/."""

from django.urls import path

from games.joker_draw import api

urlpatterns = [
    path("joker-draw/rounds/", api.JokerDrawRounds.as_view(), name="joker-draw-rounds"),
    path("joker-draw/rounds/<int:pk>/", api.JokerDrawRound.as_view(), name="joker-draw-round"),
    path(
        "joker-draw/rounds/<int:pk>/actions/",
        api.JokerDrawRoundActions.as_view(),
        name="joker-draw-round-actions",
    ),
    path(
        "joker-draw/rounds/<int:pk>/trainer/",
        api.JokerDrawTrainer.as_view(),
        name="joker-draw-round-trainer",
    ),
]
