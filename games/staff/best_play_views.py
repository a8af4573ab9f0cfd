"""Players against best play (``/staff/best-play/``): each player's average given away against
best play per round and per original ante at the joker draw, and the advantage players (those
who play close to best play over enough rounds) with their latest rounds linked to the round's
replay. Pit staff and auditors read; players get 403."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from games.joker_draw.box_play import (
    AssessedRound,
    PlayerPlay,
    players_against_best_play,
    rounds_of,
)
from games.staff.views import READ_BOX_PLAY, READ_ROUNDS, requires

READ_BEST_PLAY = (READ_BOX_PLAY, "games.view_boxsettlement", *READ_ROUNDS)
ROUNDS_SHOWN = 20  # of each advantage player


@dataclass(frozen=True)
class AdvantagePlayer:
    play: PlayerPlay
    rounds: list[AssessedRound]


@require_GET
@requires(*READ_BEST_PLAY)
def best_play(request: HttpRequest) -> HttpResponse:
    players = players_against_best_play()
    advantage = [
        AdvantagePlayer(play, rounds_of(play.player_id, play.currency, ROUNDS_SHOWN))
        for play in players
        if play.advantage
    ]
    return render(
        request,
        "staff/best_play.html",
        {
            "players": players,
            "advantage": advantage,
            "max_loss": settings.BEST_PLAY_ADVANTAGE_MAX_LOSS,
            "min_rounds": settings.BEST_PLAY_ADVANTAGE_MIN_ROUNDS,
            "rounds_shown": ROUNDS_SHOWN,
        },
    )
