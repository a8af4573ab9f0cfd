"""Shared fixtures: users in each role, the shipped paytables approved, a joker draw table."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import Group, User
from django.core.cache import cache
from django.core.management import call_command
from rest_framework.test import APIClient

from casino.roles import ADMIN, AUDITOR, PIT_STAFF, PLAYER, STAFF_ROLES
from games.joker_draw import rtp_lab as rtp
from games.joker_draw import services as joker_draw
from games.joker_draw.paytables import approve_paytable_version
from games.models import Game, Table, TableStatus
from games.tables import services as table_services
from games.tables.limits import DEFAULT_LIMITS
from payouts.models import ChangeStatus, Paytable, PaytableVersion
from payouts.services import deposit, fund_house
from tests.celery_worker import celery_worker  # noqa: F401 - a fixture for every test module


@pytest.fixture(autouse=True)
def fast_password_hashing(settings) -> None:
    # The real hasher is slow by design; tests create many users and check no hash strength.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fresh_throttles(settings) -> None:
    # Sign-in throttles, open streams and the pit's alerts count in the cache: one test's
    # logins must not throttle the next's. Each test counts in memory of its own, as parallel
    # test processes share one Redis; the shared Redis cache has tests of its own
    # (tests/robustness/test_sign_in_abuse.py, tests/robustness/test_live_streams.py).
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    cache.clear()


def make_user(username: str, role: str) -> User:
    user = User.objects.create_user(
        username=username,
        password=f"{username}-pw",
        is_staff=role in STAFF_ROLES,
        is_superuser=role == ADMIN,
    )
    user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def player(db) -> User:
    return make_user("alice", PLAYER)


@pytest.fixture
def other_player(db) -> User:
    return make_user("bob", PLAYER)


@pytest.fixture
def pit(db) -> User:
    return make_user("pitboss", PIT_STAFF)


@pytest.fixture
def pit2(db) -> User:
    return make_user("floor", PIT_STAFF)


@pytest.fixture
def auditor(db) -> User:
    return make_user("auditor", AUDITOR)


@pytest.fixture
def admin_user(db) -> User:
    return make_user("boss", ADMIN)


def api_client(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


# Approval needs a computed RTP (JD-14); a short run is enough for tests of anything else.
TEST_RTP_ROUNDS = 5_000


@pytest.fixture
def default_paytables(pit, pit2, settings) -> dict[str, Paytable]:
    settings.RTP_APPROVAL_MIN_ROUNDS = TEST_RTP_ROUNDS
    call_command("load_paytables", verbosity=0)
    for version in PaytableVersion.objects.filter(status=ChangeStatus.DRAFT):
        rtp.compute_now(version, seed=1)
        approve_paytable_version(version, by=pit2)
    return {p.kind: p for p in Paytable.objects.all()}


def joker_draw_limits(paytables: dict[str, Paytable], **changes: object) -> dict[str, object]:
    values: dict[str, object] = dict(DEFAULT_LIMITS[Game.JOKER_DRAW])
    values.update(bet_paytable=paytables["bet"], bonus_paytable=paytables["bonus"])
    values.update(changes)
    return values


@pytest.fixture
def joker_table(pit, pit2, default_paytables) -> Table:
    table = table_services.create_table(
        name="Joker 1", game=Game.JOKER_DRAW, currency="USD", by=pit, reason="test"
    )
    limits = table_services.propose_limits(
        table=table, values=joker_draw_limits(default_paytables), reason="test", by=pit
    )
    table_services.approve_limits(limits, by=pit2)
    fund_house(currency="USD", amount=Decimal("10000.00"), reason="bankroll", by=pit)
    return table_services.set_table_status(table, status=TableStatus.OPEN, by=pit2, reason="test")


@pytest.fixture
def three_box_table(joker_table, default_paytables, pit, pit2) -> Table:
    """The joker table with new limits that let a round play three boxes."""
    limits = table_services.propose_limits(
        table=joker_table,
        values=joker_draw_limits(default_paytables, boxes_per_round=3),
        reason="three boxes",
        by=pit,
    )
    table_services.approve_limits(limits, by=pit2)
    return joker_table


def make_stud_table(pit: User, pit2: User, name: str = "Stud 1", **changes: object) -> Table:
    """An open seven-card stud table with the default limits, changed by ``changes``."""
    table = table_services.create_table(
        name=name, game=Game.SEVEN_CARD_STUD, currency="USD", by=pit, reason="test"
    )
    values = {**DEFAULT_LIMITS[Game.SEVEN_CARD_STUD], **changes}
    limits = table_services.propose_limits(table=table, values=values, reason="test", by=pit)
    table_services.approve_limits(limits, by=pit2)
    return table_services.set_table_status(table, status=TableStatus.OPEN, by=pit2, reason="test")


@pytest.fixture
def stud_table(pit, pit2, settings) -> Table:
    # Hands start as soon as two players have chips: no pause to wait out in tests.
    settings.STUD_HAND_PAUSE_SECONDS = 0
    return make_stud_table(pit, pit2)


def make_drawmaha_table(
    pit: User, pit2: User, name: str = "Drawmaha 1", **changes: object
) -> Table:
    """An open Drawmaha table with the default limits, changed by ``changes``."""
    table = table_services.create_table(
        name=name, game=Game.DRAWMAHA, currency="USD", by=pit, reason="test"
    )
    values = {**DEFAULT_LIMITS[Game.DRAWMAHA], **changes}
    limits = table_services.propose_limits(table=table, values=values, reason="test", by=pit)
    table_services.approve_limits(limits, by=pit2)
    return table_services.set_table_status(table, status=TableStatus.OPEN, by=pit2, reason="test")


@pytest.fixture
def drawmaha_table(pit, pit2, settings) -> Table:
    # Hands start as soon as two players have chips: no pause to wait out in tests.
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 0
    return make_drawmaha_table(pit, pit2)


@pytest.fixture
def settled_boxes(joker_table, pit) -> list[User]:
    """Eight settled joker draw boxes of two players, ann and ben: folded and played to the end,
    antes 0.30 to 2.40, each with a BONUS of 0.30."""
    users = [make_user(name, PLAYER) for name in ("ann", "ben")]
    for user in users:
        deposit(player=user, currency="USD", amount=Decimal("100.00"), reason="cash", by=pit)
    for n in range(8):
        user = users[n % 2]
        round_ = joker_draw.open_round(
            player=user,
            table=joker_table,
            boxes=[joker_draw.BoxRequest(1, Decimal("0.30") * (n + 1), Decimal("0.30"))],
        ).round
        action = "fold" if n % 3 == 0 else "bet"
        joker_draw.act(player=user, round_id=round_.pk, box=1, action=action)
    return users
