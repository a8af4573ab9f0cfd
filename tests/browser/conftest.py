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
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.fixtures.browser import TIMEOUT
from tests.fixtures.users import logged_in

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


def session_cookie(user: User, url: str) -> dict[str, str]:
    """A cookie of a session signed in as ``user`` for the live server at ``url``, without the
    sign-in form."""
    name = django_settings.SESSION_COOKIE_NAME
    return {"name": name, "value": logged_in(user).cookies[name].value, "url": url}


@pytest.fixture
def new_context(
    browser: Browser, live_server, browser_context_args: dict[str, Any]
) -> Iterator[Callable[..., BrowserContext]]:
    """Opens a browser of its own on the live server, with ``options`` over the session's
    (``browser_context_args``); every one is closed after the test."""
    contexts: list[BrowserContext] = []

    def open_(**options: Any) -> BrowserContext:
        context = browser.new_context(
            **{**browser_context_args, "base_url": live_server.url, **options}
        )
        contexts.append(context)
        return context

    yield open_
    for context in contexts:
        context.close()


@pytest.fixture
def signed_in(new_context, live_server) -> Callable[[User], Page]:
    """Opens a page already signed in as a user (for tests whose subject is not the sign-in)."""

    def open_page(user: User) -> Page:
        context = new_context()
        context.add_cookies([session_cookie(user, live_server.url)])
        return context.new_page()

    return open_page


@pytest.fixture
def open_page(new_context, live_server) -> Callable[..., Page]:
    """Opens a page in a browser of its own that asks for ``language`` (its locale, its
    Accept-Language and, unless ``language_cookie`` is false, the language switcher's cookie),
    ``width`` by ``height`` pixels, signed in as ``user`` if given (else the test signs in
    through the form or stays out)."""

    def open_(
        language: str,
        width: int,
        user: User | None = None,
        *,
        height: int = 860,
        language_cookie: bool = True,
    ) -> Page:
        context = new_context(
            viewport={"width": width, "height": height},
            locale=language,
            extra_http_headers={"Accept-Language": language},
        )
        cookies = [] if user is None else [session_cookie(user, live_server.url)]
        if language_cookie:
            name = django_settings.LANGUAGE_COOKIE_NAME
            cookies.append({"name": name, "value": language, "url": live_server.url})
        if cookies:
            context.add_cookies(cookies)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        return page

    return open_


@pytest.fixture
def screenshot() -> Callable[[Page, str], Path]:
    """Saves a full-page screenshot as an artifact for reviewers; returns its path."""

    def take(page: Page, name: str) -> Path:
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOT_DIR / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
