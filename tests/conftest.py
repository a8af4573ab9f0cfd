"""What every test needs: fast password hashing, throttles of its own, the default language,
and the shared fixtures of tests/fixtures registered as plugins."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.utils import translation

from payouts import services as money

# The helpers' asserts explain a failure as a test module's own do.
pytest.register_assert_rewrite("tests.fixtures")

# In the order they build on each other (each module is registered before one that imports it).
pytest_plugins = [
    "tests.fixtures.database",
    "tests.fixtures.workers",
    "tests.fixtures.users",
    "tests.fixtures.tables",
    "tests.fixtures.joker_draw",
    "tests.fixtures.world",
]


@pytest.fixture(autouse=True)
def fast_password_hashing(settings) -> None:
    # The real hasher is slow by design; tests create many users and check no hash strength.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fresh_throttles(settings) -> None:
    # Sign-in throttles, open streams and the pit's alerts count in the cache: one test's
    # logins must not throttle the next's. Each test counts in memory of its own, as parallel
    # test processes share one Redis; the shared Redis cache has tests of its own
    # (tests/http/test_sign_in_abuse.py, tests/robustness/test_live_streams.py).
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    cache.clear()


@pytest.fixture(autouse=True)
def accounts_of_this_test() -> None:
    # The ledger keeps the accounts' ids per process once committed (payouts.services); a test
    # on a committing database empties it afterwards, which no casino's ledger ever is.
    money.forget_accounts()


@pytest.fixture(autouse=True)
def clients_share_loopback(settings) -> None:
    # Every test client and the browser tests' live server connect from 127.0.0.1, as a
    # developer's players do: loopback is shared, as on a developer's machine. The
    # same-address rule's own tests (tests/peer/test_same_address.py) share nothing.
    settings.FAIR_PLAY_SHARED_ADDRESSES = ["127.0.0.1", "::1"]


@pytest.fixture(autouse=True)
def default_language() -> Iterator[None]:
    # A request in Russian leaves Russian active in the test's thread (a server's next request
    # sets its own): each test starts, and leaves the next, in the default language.
    translation.deactivate()
    yield
    translation.deactivate()
