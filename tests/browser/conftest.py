"""Browser tests: Playwright drives Debian's Chromium against the live server on PostgreSQL.

Every test here is marked ``browser``. Screenshots go to ``$SCREENSHOT_DIR`` (default
``artifacts/screenshots``), which is not committed: reviewers look at them after a run.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.test import Client
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.fixtures.browser import TIMEOUT

# Playwright's sync API keeps an event loop running in the test thread for the whole session;
# the ORM calls a test makes between page actions are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

expect.set_options(timeout=TIMEOUT)

SCREENSHOT_DIR = Path(os.environ.get("SCREENSHOT_DIR", "artifacts/screenshots"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail("Chromium is missing: `make test` installs Debian's chromium package")
    return {**browser_type_launch_args, "executable_path": chromium, "args": CHROMIUM_ARGS}


@pytest.fixture
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_context_args, "viewport": {"width": 1280, "height": 860}}


@pytest.fixture(autouse=True)
def static_files_by_name(settings) -> None:
    """pytest-django's live server serves static files through Django's finders, which know
    them by their own names, not by the manifest's fingerprinted ones."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def signed_in(
    browser: Browser, live_server, browser_context_args: dict[str, Any]
) -> Iterator[Callable[[User], Page]]:
    """Opens a page already signed in as a user (for tests whose subject is not the sign-in)."""
    contexts: list[BrowserContext] = []

    def open_page(user: User) -> Page:
        client = Client()
        client.force_login(user)
        context = browser.new_context(base_url=live_server.url, **browser_context_args)
        context.add_cookies(
            [
                {
                    "name": django_settings.SESSION_COOKIE_NAME,
                    "value": client.cookies[django_settings.SESSION_COOKIE_NAME].value,
                    "url": live_server.url,
                }
            ]
        )
        contexts.append(context)
        return context.new_page()

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def screenshot() -> Callable[[Page, str], Path]:
    """Saves a full-page screenshot as an artifact for reviewers; returns its path."""

    def take(page: Page, name: str) -> Path:
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOT_DIR / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
