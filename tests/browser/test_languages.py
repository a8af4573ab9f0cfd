"""The frame in Chromium in English, Russian and Swedish: a player switches the language with
the keyboard alone and keeps it; screenshots of the frame in each language at 1280 and 390 px."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from casino.models import LanguagePreference
from tests.fixtures.browser import HEIGHTS, in_language

# From the browser's language to another one, at alternating widths.
SWITCHES = [("en", "ru", 1280), ("ru", "sv", 390), ("sv", "en", 1280)]


@pytest.mark.parametrize(("start", "target", "width"), SWITCHES)
def test_a_player_switches_the_language_with_the_keyboard_and_keeps_it(
    open_page, player, start, target, width, screenshot
):
    page = open_page(start, width, player, height=HEIGHTS[width], language_cookie=False)
    page.goto("/play/wallet/")
    expect(page.locator("html")).to_have_attribute("lang", start)

    # Tab from the top of the page to the switcher, choose with the arrow keys, send with Enter.
    switcher = page.locator("#frame-language")
    for _press in range(40):
        page.keyboard.press("Tab")
        if switcher.evaluate("node => node === document.activeElement"):
            break
    expect(switcher).to_be_focused()
    codes = [option.get_attribute("value") for option in switcher.locator("option").all()]
    steps = codes.index(target) - codes.index(start)
    for _step in range(abs(steps)):
        page.keyboard.press("ArrowDown" if steps > 0 else "ArrowUp")
    expect(switcher).to_have_value(target)
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name=in_language(start, "Change language"))).to_be_focused()
    page.keyboard.press("Enter")

    expect(page.locator("html")).to_have_attribute("lang", target)
    assert page.url.endswith("/play/wallet/")  # back where the player was
    expect(page.get_by_role("link", name=in_language(target, "Game recall"))).to_be_visible()
    assert LanguagePreference.objects.get(user=player).language == target
    screenshot(page, f"frame-switched-{target}-{width}")

    # Kept for the player: a fresh browser asking for the first language gets the chosen one.
    again = open_page(start, width, player, height=HEIGHTS[width], language_cookie=False)
    again.goto("/play/")
    expect(again.locator("html")).to_have_attribute("lang", target)


@pytest.mark.parametrize("language", ["en", "ru", "sv"])
def test_the_frame_and_error_pages_in_each_language_and_width(
    open_page, player, language, screenshot
):
    for width in HEIGHTS:
        page = open_page(language, width, player, height=HEIGHTS[width], language_cookie=False)
        page.goto("/play/wallet/")
        expect(page.get_by_role("button", name=in_language(language, "Sign out"))).to_be_visible()
        # No sideways scrolling at the phone's width.
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        screenshot(page, f"frame-{language}-{width}")
        page.goto("/no-such-page/")
        expect(
            page.get_by_role("heading", name=in_language(language, "Page not found"))
        ).to_be_visible()
        screenshot(page, f"frame-404-{language}-{width}")
