"""Fixtures of the game tests."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import User

from casino.roles import PLAYER
from payouts.services import deposit
from tests.conftest import make_user


@pytest.fixture
def players(pit) -> list[User]:
    """Three players, ann, ben and cal, with 200.00 USD each in their wallets."""
    users = [make_user(name, PLAYER) for name in ("ann", "ben", "cal")]
    for user in users:
        deposit(player=user, currency="USD", amount=Decimal("200.00"), reason="cash", by=pit)
    return users
