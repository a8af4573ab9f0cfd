"""The stud and Drawmaha tables, their recall and the wallet in Chromium, in English, Russian and
Swedish at 1280 and 390 px: at every street each browser draws, for every seat, exactly the
cards the API gives that player; a call says what it adds and the total it makes; the seat to
act has its countdown; nothing overflows at 390 px; focus stays on the table after an action;
every settlement line is worded; the recall pages and the wallet links to it."""

from __future__ import annotations

import re
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.utils import formats, translation
from playwright.sync_api import Page, expect

from games.drawmaha.serializers import table_json as drawmaha_table_json
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.engine import stud as engine_stud
from games.models import Round, RoundStatus
from games.peer import services as peer_services
from games.peer.selectors import peer_table
from games.site import selectors as pages
from games.stud.hand import Hand
from games.stud.serializers import table_json as stud_table_json
from games.stud.tasks import STUD as stud
from payouts.services import deposit
from tests.fixtures.browser import in_language
from tests.fixtures.peer import running
from tests.fixtures.stud_play import stud_deck

# Every (language, width) once; each test takes the next, so that all six are covered.
COMBOS = [("en", 1280), ("ru", 390), ("sv", 1280), ("en", 390), ("ru", 1280), ("sv", 390)]
NO_OVERFLOW = "document.documentElement.scrollWidth <= window.innerWidth"
FOCUS_ON_TABLE = (
    "document.activeElement !== document.body"
    " && document.getElementById('peer-table').contains(document.activeElement)"
)


@pytest.fixture
def funded(player, other_player, pit):
    for user in (player, other_player):
        deposit(player=user, currency="USD", amount=Decimal("500.00"), reason="cage", by=pit)


def _language_of(page: Page) -> str:
    """The language the server wrote the page in (its numbers too)."""
    return page.evaluate("document.documentElement.lang") or "en"


def _shown(page: Page, amount: str) -> str:
    """An amount as the table's script shows it in the page's language ("1,50" in Russian and
    Swedish); the inputs and the data attributes keep the API's "1.50"."""
    with translation.override(_language_of(page)):
        return formats.number_format(Decimal(amount), 2)


def _drawn(page: Page, seat: int, selector: str) -> list[str]:
    return (
        page.get_by_test_id(f"seat-{seat}")
        .locator(selector)
        .evaluate_all("(cards) => cards.map((card) => card.dataset.card || null)")
    )


def _wait_for_table(page: Page) -> None:
    expect(page.locator("#actions button:disabled")).to_have_count(0)


def _click(page: Page, button) -> None:
    """Press a button from the keyboard, as a player without a mouse does, and check that the
    focus stays on the table once the page is drawn again."""
    button.focus()
    page.keyboard.press("Enter")
    _wait_for_table(page)
    assert page.evaluate(FOCUS_ON_TABLE)


def _passive(page: Page) -> bool:
    """Bring in, check, call or show, if it is this page's turn."""
    actions = page.locator("#actions")
    for key in ("bring_in", "check", "call", "show"):
        button = actions.locator(f'[data-focus="action-{key}"]')
        if button.count():
            _click(page, button.first)
            return True
    return False


def _check_turn(page: Page, hand: dict) -> None:
    """The seat to act, and only it, shows the countdown to the API's deadline."""
    if hand["to_act"] is None:
        return
    clock = page.get_by_test_id(f"seat-{hand['to_act']}").get_by_test_id("countdown")
    expect(clock).to_have_attribute("data-deadline", hand["decision_deadline"])
    expect(clock).to_have_text(re.compile(r"\d"))
    expect(page.get_by_test_id("countdown")).to_have_count(1)


def test_two_players_play_a_stud_hand_street_by_street(
    open_page, player, other_player, stud_table, funded, screenshot, settings
):
    """ST-2..ST-7, ST-10: each browser draws every seat's face-up cards and its own down cards
    as the API gives them, at every street; the bring-in and completion say their amounts; a
    call says what it adds and the total it makes; the seat to act has its countdown."""
    (alice_language, alice_width), (bob_language, bob_width) = COMBOS[1], COMBOS[2]
    alice = open_page(alice_language, alice_width, player)
    bob = open_page(bob_language, bob_width, other_player)
    # A buy-in out of range: the API's refusal, word for word, next to the form.
    alice.goto(f"/play/stud/{stud_table.pk}/")
    alice.locator("#buy-in").fill("10.00")
    alice.locator("#join-form button[type=submit]").click()
    expect(alice.locator("#join-error")).to_contain_text("ST-1")
    for page, seat in ((alice, "1"), (bob, "2")):
        page.goto(f"/play/stud/{stud_table.pk}/")
        page.locator("#client-seed").fill(f"seat-{seat}-seed")
        page.locator(".client-seed-form button[type=submit]").click()
        page.locator("#seat").select_option(seat)
        page.locator("#buy-in").fill("100.00")
        page.locator("#join-form button[type=submit]").click()
        expect(page.locator("#my-seat")).to_have_text(seat)
    expect(
        alice.get_by_role("heading", name=in_language(alice_language, "Your move"))
    ).to_be_visible()

    hand = running(stud_table)
    settings.STUD_HAND_PAUSE_SECONDS = 3600  # this hand's result stays the last word
    assert hand.client_seed == "1=seat-1-seed,2=seat-2-seed"
    users = {player.pk: (player, alice), other_player.pk: (other_player, bob)}
    # Third street: the bring-in (ST-3), a completion, and a call of what is left to add.
    state = Hand.from_json(hand.engine_state)
    first, first_page = users[state.players[state.state.to_act]]
    _second, second_page = next(v for k, v in users.items() if k != first.pk)
    expect(first_page.locator('[data-focus="action-bring_in"]')).to_contain_text(
        _shown(first_page, "1.00")
    )
    _click(first_page, first_page.locator('[data-focus="action-bring_in"]'))
    complete = second_page.locator('[data-focus="action-complete"]')
    expect(complete).to_contain_text(_shown(second_page, "5.00"))
    _click(second_page, complete)
    call = first_page.get_by_test_id("call")
    expect(call).to_have_attribute("data-add", "4.00")  # 5.00 less the 1.00 brought in
    expect(call).to_have_attribute("data-to", "5.00")
    expect(call).to_contain_text(_shown(first_page, "4.00"))
    expect(call).to_contain_text(_shown(first_page, "5.00"))
    # Alice reads Russian, Bob Swedish: the amounts they see have the decimal comma.
    for page in (alice, bob):
        stack = page.get_by_test_id("seat-1").locator("p.stack")
        amount = stack.get_attribute("data-stack") or ""
        expect(stack).to_contain_text(amount.replace(".", ","))
        expect(stack).not_to_contain_text(amount)
    screenshot(first_page, f"stud-call-{alice_language if first == player else bob_language}")

    checked = []
    for _ in range(90):
        hand.refresh_from_db()
        if hand.status == RoundStatus.SETTLED:
            break
        street = hand.engine_state["state"]["street"]
        if street not in checked and street != "showdown":
            for user, page in users.values():
                expect(page.get_by_test_id("pot")).to_have_attribute("data-street", street)
                seen = stud_table_json(stud_table, peer_table(stud_table), user)["hand"]
                expect(page.get_by_test_id("pot")).to_have_attribute("data-pot", seen["pot"])
                expect(page.get_by_test_id("pot")).to_contain_text(_shown(page, seen["pot"]))
                for shown in seen["players"]:
                    up = page.get_by_test_id(f"seat-{shown['seat']}").locator("svg.card.up")
                    expect(up).to_have_count(len(shown["up"]))
                    assert _drawn(page, shown["seat"], "svg.card.up") == shown["up"]
                    down = _drawn(page, shown["seat"], "svg.card:not(.up)")
                    assert down == (shown["down"] or [None] * shown["down_count"]), street
                _check_turn(page, seen)
                assert page.evaluate(NO_OVERFLOW), (street, page.viewport_size)
            checked.append(street)
            if street == "fifth":
                screenshot(alice, f"stud-fifth-street-{alice_language}-{alice_width}")
                screenshot(bob, f"stud-fifth-street-{bob_language}-{bob_width}")
        if not (_passive(alice) or _passive(bob)):
            alice.wait_for_timeout(200)
    assert checked == ["third", "fourth", "fifth", "sixth", "seventh"]
    hand.refresh_from_db()
    assert hand.status == RoundStatus.SETTLED
    for user, page in users.values():
        with translation.override(_language_of(page)):
            lines = pages.finished_hand(pages.PEER_GAMES["stud"], hand, user).settlement
        settlement = page.get_by_test_id("settlement").locator("li")
        expect(settlement).to_have_count(len(lines))
        assert settlement.all_inner_texts() == lines
        # Told in the live region too, for a screen reader.
        expect(page.locator("#news")).to_have_text(" ".join(lines))
        assert page.evaluate(NO_OVERFLOW)
    screenshot(alice, f"stud-settled-{alice_language}-{alice_width}")

    # The last hand's "Verify shuffle" leads to its recall, which says the seed comes when bob
    # leaves the table (FS-7b); once he has left, it recomputes the deck.
    bob.get_by_test_id("hand-result").get_by_role("link").click()
    expect(bob.get_by_test_id("verify-later")).to_be_visible()
    stud.leave(player=other_player, table=stud_table)
    bob.reload()
    expect(bob.locator("#verify")).to_be_enabled()
    bob.locator("#verify").click()
    expect(bob.get_by_test_id("deck-verdict")).to_have_class(re.compile(r"\bok\b"))
    expect(bob.get_by_test_id("hand-actions").locator("li").first).to_be_visible()


def _play_drawmaha(page: Page, *, raise_once: bool, twist: str) -> bool:
    """One decision in this page, if it is this player's turn: raise the pot-limit maximum
    with the slider once, exchange one card in the draw (DM-5), answer the twist (DM-6) with
    ``twist`` (take or reject), else check or call."""
    actions = page.locator("#actions")
    if not actions.get_by_role("button").count():
        return False
    exchange = actions.locator('[data-focus="action-exchange"]')
    twist_button = actions.locator(f'[data-focus="action-{twist}"]')
    slider = actions.get_by_role("slider")
    if exchange.count():
        pick = actions.locator("button.card-pick").first
        expect(pick.locator(".pick-mark")).to_be_hidden()
        pick.click()
        # Marked in a word, beside its lift: the card goes (DM-5).
        expect(pick).to_have_attribute("aria-pressed", "true")
        expect(pick.locator(".pick-mark")).to_be_visible()
        _click(page, exchange)
    elif twist_button.count():
        _click(page, twist_button)
    elif raise_once and slider.count():
        slider.first.focus()
        page.keyboard.press("End")  # the pot-limit maximum (DM-9)
        wager = actions.locator(".wager").first
        maximum = wager.locator('input[type="number"]').get_attribute("max")
        action = wager.locator("button.primary")
        expect(action).to_contain_text(_shown(page, maximum or ""))
        expect(wager.locator("button.pot-max")).to_contain_text(_shown(page, maximum or ""))
        _click(page, action)
    else:
        passive = actions.locator('[data-focus="action-check"], [data-focus="action-call"]')
        _click(page, passive.first)
    return True


def test_two_players_play_a_drawmaha_hand_through_the_draw_and_the_twist(
    open_page, player, other_player, drawmaha_table, funded, screenshot, settings
):
    """DM-2..DM-11: at every street each browser draws its own five cards, backs for the
    other's, the board and a taken twist card as the API gives them; the button is marked;
    the pot-limit maximum is offered; the showdown's halves are worded and verified."""
    (alice_language, alice_width), (bob_language, bob_width) = COMBOS[3], COMBOS[4]
    for number, user in enumerate((player, other_player), start=1):
        drawmaha.join(player=user, table=drawmaha_table, seat=number, buy_in=Decimal("100.00"))
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 3600  # one hand
    alice = open_page(alice_language, alice_width, player)
    bob = open_page(bob_language, bob_width, other_player)
    users = ((player, alice), (other_player, bob))
    for _, page in users:
        page.goto(f"/play/drawmaha/{drawmaha_table.pk}/")
    hand = running(drawmaha_table)
    checked, raised = [], False
    for _ in range(90):
        hand.refresh_from_db()
        if hand.status == RoundStatus.SETTLED:
            break
        street = hand.engine_state["state"]["street"]
        key = f"{street}:{len(hand.engine_state['state'].get('exchanges', []))}"
        if key not in checked:
            for user, page in users:
                seen = drawmaha_table_json(drawmaha_table, peer_table(drawmaha_table), user)
                seen = seen["hand"]
                expect(page.get_by_test_id("pot")).to_have_attribute("data-street", street)
                board = page.get_by_test_id("board").locator("svg.card")
                expect(board).to_have_count(len(seen["board"]))
                assert board.evaluate_all("(c) => c.map((x) => x.dataset.card)") == seen["board"]
                for shown in seen["players"]:
                    faces = shown["cards"] or ([shown["twist"]] if shown["twist"] else [])
                    backs = 0 if shown["cards"] else shown["card_count"]
                    drawn = page.get_by_test_id(f"seat-{shown['seat']}").locator("svg.back")
                    expect(drawn).to_have_count(backs)
                    assert _drawn(page, shown["seat"], "svg.card:not(.back)") == faces, key
                button_seat = seen["players"][seen["button"]]["seat"]
                expect(
                    page.get_by_test_id(f"seat-{button_seat}").get_by_test_id("dealer-button")
                ).to_have_count(1)
                expect(page.get_by_test_id("dealer-button")).to_have_count(1)
                _check_turn(page, seen)
                assert page.evaluate(NO_OVERFLOW), (key, page.viewport_size)
            checked.append(key)
            if street == "draw":
                screenshot(alice, f"drawmaha-draw-{alice_language}-{alice_width}")
        if not raised and alice.locator("#actions").get_by_role("slider").count():
            raised = _play_drawmaha(alice, raise_once=True, twist="take")
        elif not (
            _play_drawmaha(alice, raise_once=False, twist="take")
            or _play_drawmaha(bob, raise_once=False, twist="reject")
        ):
            alice.wait_for_timeout(200)
    hand.refresh_from_db()
    assert hand.status == RoundStatus.SETTLED
    assert raised
    assert {c.split(":")[0] for c in checked} >= {"preflop", "flop", "draw", "turn", "river"}
    kinds = list(hand.events.values_list("kind", flat=True))
    assert "twist_taken" in kinds
    assert "twist_rejected" in kinds
    for user, page in users:
        with translation.override(_language_of(page)):
            lines = pages.finished_hand(pages.PEER_GAMES["drawmaha"], hand, user).settlement
        settlement = page.get_by_test_id("settlement").locator("li")
        expect(settlement).to_have_count(len(lines))
        assert settlement.all_inner_texts() == lines
    screenshot(bob, f"drawmaha-settled-{bob_language}-{bob_width}")
    alice.get_by_test_id("hand-result").get_by_role("link").click()
    expect(alice.get_by_test_id("verify-later")).to_be_visible()
    drawmaha.leave(player=player, table=drawmaha_table)  # the seed is hers now (FS-7b)
    alice.reload()
    alice.locator("#verify").click()
    expect(alice.get_by_test_id("commitment-verdict")).to_have_class(re.compile(r"\bok\b"))
    expect(alice.get_by_test_id("deck-verdict")).to_have_class(re.compile(r"\bok\b"))
    screenshot(alice, f"drawmaha-recall-{alice_language}-{alice_width}")


def test_a_stud_recall_shows_the_hand_mucked_at_the_showdown(
    open_page, player, other_player, stud_table, funded, settings, monkeypatch
):
    """ST-10 (source 002): Alice mucks her jack high at the showdown; Bob's recall of the
    hand shows her cards. (The deck is stacked for a known showdown: no seed to verify.)"""
    language, width = COMBOS[5]
    deck = stud_deck(["Th 9d 2c", "As Ad Kc"], "3d | Jc Ks", "3h | 5c Kd", "3s | 4d 2h",
                     "4h | 8s 7c")  # fmt: skip
    monkeypatch.setattr(peer_services, "Deck", SimpleNamespace(shuffled=lambda *_: deck))
    for number, user in enumerate((player, other_player), start=1):
        stud.join(player=user, table=stud_table, seat=number, buy_in=Decimal("100.00"))
    settings.STUD_HAND_PAUSE_SECONDS = 3600  # no next hand
    hand = Round.objects.get(table=stud_table)
    while hand.status != RoundStatus.SETTLED:
        state = Hand.from_json(hand.engine_state)
        legal = {option.kind.value for option in engine_stud.legal_actions(state.state)}
        action = next(a for a in ("muck", "bring_in", "check", "call", "show") if a in legal)
        user = player if state.players[state.state.to_act] == player.pk else other_player
        stud.act(player=user, table=stud_table, action=action)
        hand.refresh_from_db()
    page = open_page(language, width, other_player)
    page.goto(f"/play/recall/stud/{hand.pk}/")
    mucked = page.get_by_test_id("summary-seat-1")
    expect(mucked).to_contain_text(in_language(language, "mucked at the showdown"))
    cards = mucked.locator("svg.card").evaluate_all("(cards) => cards.map((c) => c.dataset.card)")
    assert cards == ["Th", "9d", "8s", "2c", "Jc", "5c", "4d"]
    assert page.evaluate(NO_OVERFLOW)


def test_the_recall_pages_and_the_wallet_leads_to_it(
    open_page, player, other_player, stud_table, funded, monkeypatch, screenshot
):
    """The recall of a game in pages (newest first), each hand with its result and the
    player's own cards; a wallet entry of a sitting leads to that sitting's hands."""
    language, width = COMBOS[0]
    monkeypatch.setattr(pages, "RECALL_PAGE_SIZE", 2)
    for number, user in enumerate((player, other_player), start=1):
        stud.join(player=user, table=stud_table, seat=number, buy_in=Decimal("100.00"))
    for _ in range(3):  # three hands, each over at once: the bring-in, then a fold
        state = Hand.from_json(running(stud_table).engine_state)
        first = player if state.players[state.state.to_act] == player.pk else other_player
        stud.act(player=first, table=stud_table, action="bring_in")
        second = other_player if first == player else player
        stud.act(player=second, table=stud_table, action="fold")
    page = open_page(language, width, player)
    page.goto("/play/wallet/")
    page.get_by_test_id("wallet-entries").get_by_role(
        "link", name=in_language(language, "See in game recall")
    ).first.click()
    expect(page).to_have_url(re.compile(r"/play/recall/\?game=stud&sitting=\d+$"))
    rows = page.get_by_test_id("recall-list").locator("tbody tr")
    expect(rows).to_have_count(2)
    newest = Round.objects.filter(table=stud_table).order_by("-id")
    assert rows.evaluate_all("(rows) => rows.map((r) => Number(r.dataset.round))") == [
        newest[0].pk,
        newest[1].pk,
    ]
    # The hand in play shows nothing yet; a finished one the player's own third street.
    assert newest[0].status == RoundStatus.DECIDING
    expect(rows.first.locator("svg.card")).to_have_count(0)
    expect(rows.nth(1).locator("svg.card")).to_have_count(3)
    screenshot(page, f"recall-{language}-{width}")
    page.locator('.pager a[rel="next"]').click()
    expect(rows).to_have_count(2)
    assert rows.evaluate_all("(rows) => rows.map((r) => Number(r.dataset.round))") == [
        newest[2].pk,
        newest[3].pk,
    ]
    assert page.evaluate(NO_OVERFLOW)


def test_screens_of_the_peer_tables_recall_and_wallet(
    open_page, player, other_player, stud_table, drawmaha_table, funded, screenshot
):
    """A screenshot of each screen in each language and width, with no horizontal overflow:
    a stud and a Drawmaha table in play, the recall and the wallet."""
    for table, service in ((stud_table, stud), (drawmaha_table, drawmaha)):
        for number, user in enumerate((player, other_player), start=1):
            service.join(player=user, table=table, seat=number, buy_in=Decimal("100.00"))
    for language, width in COMBOS:
        page = open_page(language, width, player)
        for name, url in (
            ("stud-table", f"/play/stud/{stud_table.pk}/"),
            ("drawmaha-table", f"/play/drawmaha/{drawmaha_table.pk}/"),
            ("recall", "/play/recall/?game=stud"),
            ("wallet", "/play/wallet/"),
        ):
            page.goto(url)
            if name.endswith("table"):
                expect(page.get_by_test_id("pot")).to_be_visible()
                expect(page.get_by_test_id("countdown")).to_have_count(1)
            assert page.evaluate(NO_OVERFLOW), (name, language, width)
            screenshot(page, f"{name}-{language}-{width}")
        page.context.close()
