"""The joker draw table in Chromium, in English, Russian and Swedish at 1280 and 390 px: the
whole round on one 1280x800 screen, no sideways scrolling at 390, hands and settlement lines in
words, buttons that say what they cost, picked cards marked EXCHANGE, the keyboard kept on the
table, the paytables and rules beside it, and "Verify shuffle" from a settled round. The
dealer's cards and the next server seed stay out of the page until their time.

Messages drawn by the server are checked against the catalogue with ``gettext`` in the page's
language; messages the page's script draws, against the page's own JavaScript catalogue."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import translation
from playwright.sync_api import Page, expect

from games.engine import fairness
from games.engine.cards import parse_cards
from games.engine.hands import evaluate
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import Game, Round, RoundStatus
from games.tables import seeds
from games.tables.hand_names import hand_name
from payouts.services import deposit
from tests.fixtures.browser import COMBOS, EVERY_COMBO, in_language
from tests.fixtures.joker_draw import stacked_deck

HEIGHT = 800

BOX_1, BOX_2, BOX_3 = "Jc Jd 4h 8s Kc", "Ac Ad 5c 9h Ts", "2s 5s 7s 9s Ks"
DEALER = "2c 3d 5h 7c 9d"  # no pair, no four to anything: exchanges all five (JD-9.6)
BOX_1_DRAWS = "2h 3h"
DEALER_DRAWS = "4c 6d 8c Td Qc"  # queen high: no game (JD-10)


@pytest.fixture
def stacked(monkeypatch):
    deck = stacked_deck([BOX_1, BOX_2, BOX_3], DEALER, BOX_1_DRAWS + " " + DEALER_DRAWS)
    monkeypatch.setattr(fairness, "deck_order", lambda *args, **kwargs: deck)


@pytest.fixture
def funded(player, pit):
    deposit(player=player, currency="USD", amount=Decimal("500.00"), reason="cage", by=pit)


def script_text(page: Page, expression: str) -> str:
    """What the page's script says, from the page's own JavaScript catalogue."""
    return page.evaluate(f"() => {expression}")


def shown(page: Page, amount: str) -> str:
    """An amount as the page's language writes it (the page's `shown`)."""
    return page.evaluate("(cents) => casinoPage.shown(cents)", int(Decimal(amount) * 100))


def inside_viewport(page: Page, selector: str, width: int) -> None:
    for element in page.locator(selector).all():
        box = element.bounding_box()
        assert box is not None, selector
        assert box["x"] >= 0, (selector, box)
        assert box["x"] + box["width"] <= width + 0.5, (selector, box)
        assert box["y"] >= 0, (selector, box)
        assert box["y"] + box["height"] <= HEIGHT + 0.5, (selector, box)


def no_sideways_scroll(page: Page, width: int) -> None:
    assert page.evaluate("() => document.scrollingElement.scrollWidth") <= width


@pytest.mark.parametrize(("language", "width"), COMBOS)
def test_a_whole_round_on_one_screen_in_words_with_costs_and_the_keyboard_kept(
    open_page, player, three_box_table, funded, stacked, screenshot, language, width
):
    page = open_page(language, width, player, height=HEIGHT)
    page.goto(f"/play/joker-draw/{three_box_table.pk}/")
    deal = page.locator("#stake-form button[type=submit]")
    expect(deal).to_be_enabled()
    for box in (2, 3):
        page.locator(f'input[name="play-{box}"]').check()
    deal.click()
    box_1 = page.get_by_test_id("box-1")
    expect(box_1.locator("svg.card")).to_have_count(5)

    # The player's hand named while deciding (the engine's evaluation, in words).
    with translation.override(language):
        pair_of_jacks = hand_name(evaluate(parse_cards(BOX_1)))
    expect(page.get_by_test_id("hand-1")).to_have_text(pair_of_jacks)
    # The dealer's cards are not in the page before the showdown (JD-8), nor the seed.
    assert page.locator('[data-testid="dealer"] svg[data-card]').count() == 0
    round_ = Round.objects.get()
    html = page.content()
    assert round_.secret_server_seed() not in html
    for card in DEALER.split():
        assert f'data-card="{card}"' not in html

    # Each button says what it costs (JD-5): a bet of twice the ante, an exchange of one ante.
    bet = page.locator(".to-act button.bet")
    expect(bet).to_have_text(
        script_text(
            page, "interpolate(gettext('Bet %(amount)s'), {amount: casinoPage.shown(60)}, true)"
        )
    )
    assert shown(page, "0.60") in bet.inner_text()
    if width == 1280:
        # The whole round, dealer to buttons, on one 1280x800 screen without scrolling.
        assert page.evaluate("() => window.scrollY") == 0
        inside_viewport(page, '[data-testid="dealer"]', width)
        inside_viewport(page, '[data-testid^="box-"]', width)
        inside_viewport(page, ".to-act button", width)
    else:
        no_sideways_scroll(page, width)
        for button in page.locator(".to-act button").all():
            box = button.bounding_box()
            assert box is not None
            assert box["x"] >= 0
            assert box["x"] + box["width"] <= width

    # Picking by keyboard marks the cards EXCHANGE, in words and a shape, never HOLD.
    picks = box_1.locator("button.card-pick")
    picks.nth(2).focus()
    page.keyboard.press("Enter")
    picks.nth(3).focus()
    page.keyboard.press("Space")
    marked = box_1.locator('.card-pick[aria-pressed="true"] .pick-mark')
    expect(marked).to_have_count(2)
    expect(marked.first).to_be_visible()
    expect(marked.first).to_have_text(script_text(page, "gettext('Exchange')"))
    assert marked.first.inner_text() == script_text(page, "gettext('Exchange')").upper()
    expect(box_1.locator('.card-pick[aria-pressed="false"] .pick-mark').first).to_be_hidden()
    assert "HOLD" not in page.locator("#felt").inner_text().upper().replace("EXCHANGE", "")
    exchange = box_1.locator("button.exchange")
    expect(exchange).to_have_text(
        script_text(
            page,
            "interpolate(ngettext('Exchange %(count)s card: %(amount)s', "
            "'Exchange %(count)s cards: %(amount)s', 2), "
            "{count: 2, amount: casinoPage.shown(30)}, true)",
        )
    )
    screenshot(page, f"joker-table-exchange-{language}-{width}")
    exchange.focus()
    page.keyboard.press("Enter")
    # After the exchange the ante is 0.60: the bet costs 1.20, and the keyboard is still on
    # the table (on the next decision), not lost to the page.
    expect(box_1.locator("button.bet")).to_contain_text(shown(page, "1.20"))
    assert page.evaluate("() => document.getElementById('felt').contains(document.activeElement)")

    for box in (1, 2, 3):
        page.get_by_test_id(f"box-{box}").locator("button.bet").focus()
        page.keyboard.press("Enter")
        if box < 3:
            expect(page.get_by_test_id(f"box-{box + 1}").locator("button.bet")).to_be_enabled()
    expect(page.get_by_test_id("payout")).to_be_visible()
    assert page.evaluate("() => document.getElementById('felt').contains(document.activeElement)")

    # The dealer's hand named after the draw, and each settlement line in words (JD-10, JD-11).
    round_.refresh_from_db()
    assert round_.status == RoundStatus.SETTLED
    with translation.override(language):
        queen_high = hand_name(evaluate(parse_cards(DEALER_DRAWS)))
    no_game = in_language(
        language, "Dealer does not qualify: ante pays %(odds)s (%(ante)s won), bet returned."
    )
    expect(page.get_by_test_id("dealer-hand")).to_contain_text(queen_high)
    for box, won in ((1, "0.40"), (2, "0.20"), (3, "0.20")):
        expect(page.get_by_test_id(f"result-{box}").locator("li")).to_have_text(
            no_game % {"odds": "2:3", "ante": shown(page, won)}
        )
    expect(page.locator("#news")).to_contain_text(queen_high)  # announced (aria-live)
    screenshot(page, f"joker-table-settled-{language}-{width}")
    if width == 1280:
        assert page.evaluate("() => window.scrollY") == 0
        inside_viewport(page, '[data-testid="dealer"]', width)
        inside_viewport(page, '[data-testid^="result-"]', width)
        inside_viewport(page, '[data-testid="settlement"]', width)
    else:
        no_sideways_scroll(page, width)


@pytest.mark.parametrize(("language", "width"), COMBOS)
def test_the_paytables_in_force_and_the_rules_are_beside_the_table(
    open_page, player, joker_table, language, width
):
    page = open_page(language, width, player, height=HEIGHT)
    page.goto(f"/play/joker-draw/{joker_table.pk}/")
    bet = page.get_by_test_id("paytable-bet")
    expect(bet).to_be_visible()
    rows = bet.locator("tr")
    top, bottom = in_language(language, "Five of a kind"), in_language(language, "Pair")
    no_game = in_language(language, "No game (dealer does not qualify)")
    expect(rows.first).to_contain_text(top)  # lines in rank order, the best hand first
    expect(rows.nth(-2)).to_contain_text(bottom)
    expect(rows.last).to_contain_text(no_game)  # the no-game payment is a line too (JD-11a)
    expect(rows.last).to_contain_text("2:3")
    expect(page.get_by_test_id("paytable-bonus").locator("tr").first).to_contain_text("2000:1")
    page.get_by_test_id("rules-link").click()
    expect(
        page.get_by_role("heading", name=in_language(language, "The dealer's fixed draw"))
    ).to_be_visible()
    if width == 390:
        no_sideways_scroll(page, width)


@pytest.mark.parametrize(("language", "width"), COMBOS)
def test_verify_shuffle_from_a_settled_round_on_the_table(
    open_page, player, joker_table, funded, language, width
):
    round_ = joker_draw.open_round(
        player=player, table=joker_table, boxes=[BoxRequest(1, Decimal("0.30"))]
    ).round
    joker_draw.act(player=player, round_id=round_.pk, box=1, action="fold")
    seeds.rotate(player)  # FS-7: the seed is revealed once the pair is rotated
    page = open_page(language, width, player, height=HEIGHT)
    page.goto(f"/play/joker-draw/{joker_table.pk}/")
    folded = in_language(language, "Folded: ante %(ante)s lost.")
    expect(page.get_by_test_id("result-1").locator("li")).to_have_text(
        folded % {"ante": shown(page, "0.30")}
    )
    link = page.get_by_test_id("verify-link")
    expect(link).to_have_text(script_text(page, "gettext('Verify shuffle')"))
    link.click()
    expect(page.locator("#server-seed")).to_have_text(round_.secret_server_seed())
    expect(page.locator("#commitment")).to_have_text(round_.commitment)
    expect(page.locator("#nonce")).to_have_text(str(round_.nonce))
    page.locator("#verify").click()
    expect(page.get_by_test_id("commitment-verdict")).to_have_class("ok")
    expect(page.get_by_test_id("deck-verdict")).to_have_class("ok")
    if width == 390:
        no_sideways_scroll(page, width)


def test_screens_in_every_language_and_width(
    open_page, player, joker_table, stud_table, funded, screenshot
):
    """One sweep of the lobby, the joker table with a settled round and a rules page in each
    language at each width, with screenshots; none scrolls sideways on a phone."""
    round_ = joker_draw.open_round(
        player=player,
        table=joker_table,
        boxes=[BoxRequest(1, Decimal("0.60"), Decimal("0.30"))],
    ).round
    joker_draw.act(player=player, round_id=round_.pk, box=1, action="bet")
    for language, width in EVERY_COMBO:
        page = open_page(language, width, player, height=HEIGHT)
        page.goto("/play/")
        expect(page.get_by_test_id(f"lobby-table-{joker_table.pk}")).to_be_visible()
        phone = width < 500
        if phone:
            no_sideways_scroll(page, width)
        screenshot(page, f"lobby-{language}-{width}")
        page.goto(f"/play/joker-draw/{joker_table.pk}/")
        expect(page.get_by_test_id("payout")).to_be_visible()
        if phone:
            no_sideways_scroll(page, width)
        screenshot(page, f"joker-table-{language}-{width}")
        page.goto("/play/rules/drawmaha/")
        with translation.override(language):
            label = str(Game(Game.DRAWMAHA).label)
        expect(page.get_by_role("heading", level=1)).to_contain_text(label)
        if phone:
            no_sideways_scroll(page, width)
        screenshot(page, f"rules-drawmaha-{language}-{width}")
        page.context.close()
