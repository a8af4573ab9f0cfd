"""What the staff's player pages read of one player: the account, the wallets, the statement of
the last twelve months, the seats at peer tables now and the latest finished rounds and hands.
Read only: nothing here changes a player."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from django.contrib.auth.models import User
from django.db import DEFAULT_DB_ALIAS
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone

from casino.gaming_day import gaming_day_of
from casino.roles import PLAYER
from games.models import Seat, SeatStatus
from games.staff.review import ReviewedRound, review, reviewed_rounds
from payouts.models import Account
from payouts.protection.limits import LimitState, limits_of
from payouts.protection.models import LimitChange
from payouts.protection.selectors import Conduct, limit_history, player_conduct
from payouts.protection.statement import Statement, statement
from payouts.protection.statement_forms import years_before
from payouts.selectors import wallets_of

RECENT_ROUNDS = 20


def players(search: str = "") -> QuerySet[User]:
    """Every player, by user name; ``search`` narrows them to names that contain it."""
    found = User.objects.filter(groups__name=PLAYER).order_by("username")
    return found.filter(username__icontains=search.strip()) if search.strip() else found


def player(pk: int) -> User:
    """The player ``pk``, or 404: staff and auditors have no player page."""
    return get_object_or_404(players(), pk=pk)


def last_twelve_months() -> tuple[date, date]:
    today = gaming_day_of(timezone.now())
    return years_before(today, 1) + timedelta(days=1), today


@dataclass(frozen=True)
class PlayerFile:
    player: User
    wallets: list[Account]
    statement: Statement
    seats: list[Seat]
    rounds: list[ReviewedRound]
    limits: list[LimitState]
    limit_changes: list[LimitChange]
    conduct: Conduct


def player_file(user: User, *, reports: str = DEFAULT_DB_ALIAS) -> PlayerFile:
    """The player's file; the statement read on the database ``reports``."""
    first, last = last_twelve_months()
    return PlayerFile(
        player=user,
        wallets=list(wallets_of(user)),
        statement=statement(user, first, last, using=reports),
        seats=list(
            Seat.objects.filter(player=user)
            .exclude(status=SeatStatus.LEFT)
            .select_related("table")
            .order_by("table__name")
        ),
        rounds=review(list(reviewed_rounds(player=user)[:RECENT_ROUNDS])),
        limits=limits_of(user),
        limit_changes=limit_history(user),
        conduct=player_conduct(user),
    )
