"""Players in Chromium against the live server: sign in, play a joker draw round with an
exchange to its payout, verify its shuffle in the browser, play a stud hand between two
browsers (with every face-up card drawn as the API deals it), and find the staff screens closed."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from types import SimpleNamespace

import pytest
from playwright.sync_api import Page, expect

from games.engine import fairness
from games.engine import stud as engine_stud
from games.models import BoxSettlement, Round, RoundStatus, SeedPair
from games.peer import services as peer_services
from games.peer.selectors import peer_table
from games.stud.hand import Hand
from games.stud.serializers import table_json as stud_table_json
from games.stud.tasks import STUD as stud
from payouts.models import AccountKind
from payouts.services import deposit, wallet
from tests.fixtures.browser import TIMEOUT
from tests.fixtures.stud_play import stud_deck


@pytest.fixture
def funded(player, other_player, pit):
    for user in (player, other_player):
        deposit(player=user, currency="USD", amount=Decimal("500.00"), reason="cage", by=pit)


def test_a_player_signs_in_plays_a_round_with_an_exchange_and_verifies_it(
    page: Page, live_server, player, joker_table, stud_table, drawmaha_table, funded, screenshot
):
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{live_server.url}/play/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/play/$"))
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("alice-pw")
    screenshot(page, "sign-in")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Lobby")).to_be_visible()
    screenshot(page, "lobby")

    page.get_by_role("link", name="Open Joker 1").click()
    expect(page.locator("#balance")).to_have_text("500.00")
    # The form sends what the player typed; the API's refusal comes back word for word (JD-2).
    page.get_by_label("Ante").fill("0.45")
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#stake-error")).to_contain_text("0.45 is not a whole multiple")
    expect(page.locator("#stake-error")).to_contain_text("(JD-2)")
    assert not Round.objects.exists()

    # The seed pair's hash is on the table before the stake (FS-2); the client seed is ours.
    expect(page.locator("#seeds-panel")).to_be_visible()
    published = SeedPair.objects.get(player__username="alice").commitment
    expect(page.locator("#seed-commitment")).to_have_text(published)
    page.get_by_label("Client seed").fill("browser-seed")
    page.get_by_role("button", name="Use this client seed").click()
    expect(page.locator("#news")).to_contain_text("client seed is set")

    page.get_by_label("Ante").fill("0.60")
    page.get_by_label("BONUS (optional)").fill("0.30")
    page.get_by_role("button", name="Deal").click()
    box = page.get_by_test_id("box-1")
    expect(box.locator("svg.card")).to_have_count(5)
    expect(page.locator("#balance")).to_have_text("499.10")
    screenshot(page, "joker-draw-dealt")

    # Pick two cards by keyboard and exchange them (JD-5): the ante doubles.
    picks = box.locator("button.card-pick")
    picks.nth(0).focus()
    page.keyboard.press("Enter")
    picks.nth(3).focus()
    page.keyboard.press("Space")
    exchange = page.get_by_role("button", name=re.compile(r"^Exchange 2 cards"))
    exchange.click()
    expect(box).to_contain_text("Ante 1.20")
    expect(box).to_contain_text("1 exchange")
    expect(page.locator("#balance")).to_have_text("498.50")

    page.get_by_role("button", name="Bet 2.40").click()
    expect(page.get_by_test_id("payout")).to_be_visible()
    expect(page.get_by_test_id("dealer")).to_contain_text("Dealer")
    round_ = Round.objects.get()
    assert round_.status == RoundStatus.SETTLED
    settlement = BoxSettlement.objects.get(round=round_)
    total = settlement.total_result
    expect(page.get_by_test_id("result-1")).to_contain_text(
        f"{'+' if total > 0 else ''}{total:.2f}"
    )
    balance = wallet(player, "USD")
    assert balance.kind == AccountKind.PLAYER_WALLET
    balance.refresh_from_db()
    expect(page.locator("#balance")).to_have_text(f"{balance.balance:.2f}")
    expect(page.locator("#news")).to_contain_text("Round over")
    screenshot(page, "joker-draw-settled")
    assert (round_.commitment, round_.client_seed) == (published, "browser-seed")

    # Rotating the pair reveals the seed (FS-7) and shows the next one's hash.
    page.get_by_role("button", name="Rotate the seed pair").click()
    expect(page.get_by_test_id("revealed-seed")).to_have_text(round_.secret_server_seed())
    expect(page.locator("#seed-commitment")).not_to_have_text(published)

    # Game recall and "Verify shuffle" (FS-7): the browser recomputes the deck from the seed.
    page.get_by_role("link", name="Game recall").click()
    page.get_by_role("link", name=f"Round {round_.pk} at Joker 1").click()
    expect(page.locator("#server-seed")).to_have_text(round_.secret_server_seed())
    page.get_by_role("button", name="Verify shuffle").click()
    expect(page.get_by_test_id("commitment-verdict")).to_have_text(
        "The seed's SHA-256 equals the commitment published before the deal."
    )
    expect(page.get_by_test_id("deck-verdict")).to_contain_text("cards dealt match")
    deck = page.locator("ol.deck li").all_text_contents()
    assert len(deck) == 53
    screenshot(page, "recall-verified")

    page.get_by_role("link", name="Wallet").click()
    expect(page.get_by_test_id("balance-USD")).to_have_text(f"{balance.balance:.2f}")
    screenshot(page, "wallet")


def test_verify_shuffle_recomputes_the_readme_test_vector_in_the_browser(signed_in, player):
    """The browser's FS-1..FS-5 gives the README's published deck for its test vector."""
    page = signed_in(player)
    page.goto("/play/")
    page.add_script_tag(url="/static/play/verify.js")
    result = page.evaluate(
        """async () => {
            const seed = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
            return {
                commitment: await casinoFairness.commitment(seed),
                deck: (await casinoFairness.deckOrder(seed, "casino", 1, 1)).join(" "),
            };
        }"""
    )
    assert result["commitment"] == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    )
    assert result["deck"] == (
        "9c 4h Td 9h 2d Ah Kh JK 2h Qc 7d Ac 6d 8h Qh 7h 9d 4d Ks 8c Kd Kc 5d 3d Tc 2c 8s "
        "3h 3s As Jh Ad 6c 6s Th 7s Qs Qd Jd 7c 8d 3c 5s 6h Ts 2s 5h Jc 5c 9s 4s 4c Js"
    )


def test_verify_shuffle_follows_a_reshuffle_in_the_browser(signed_in, player):
    """FS-6: the browser's reshuffle (the cards left and the cards returned, in canonical order,
    shuffled on the same byte stream) gives the cards the server's shoe deals."""
    seed, client_seed, nonce = fairness.new_server_seed(), "seven", 3
    shoe = fairness.Shoe(seed, client_seed, nonce)
    first = shoe.deal(45)
    returned = first[:10]  # cards shuffled back in: ST-9 burns, DM-7 muck
    shoe.reshuffle(returned)
    second = shoe.deal(12)
    dealt = [{"shuffle": 0, "position": n, "card": str(c)} for n, c in enumerate(first)]
    dealt += [{"shuffle": 1, "position": n, "card": str(c)} for n, c in enumerate(second)]
    args = {
        "serverSeed": seed,
        "commitment": fairness.commitment(seed),
        "clientSeed": client_seed,
        "nonce": nonce,
        "jokers": 0,
        "dealt": dealt,
        "reshuffles": [{"shuffle": 1, "returned": [str(c) for c in returned]}],
    }
    page = signed_in(player)
    page.goto("/play/")
    page.add_script_tag(url="/static/play/verify.js")
    verify = "async (args) => { const v = await casinoFairness.verifyDeal(args); "
    verify += "return [v.ok, v.reshuffles, v.mismatches.map((m) => m.position)]; }"
    assert page.evaluate(verify, args) == [True, 1, []]
    # A card that did not come where the seeds put it is caught.
    dealt[50]["card"], dealt[51]["card"] = dealt[51]["card"], dealt[50]["card"]
    assert page.evaluate(verify, args) == [False, 1, [5, 6]]


PASSIVE = ("Bring-in", "Check", "Call", "Show")


def _act_passively(page: Page) -> bool:
    """Click the passive action offered on this page, if it is this player's turn, and wait
    for the table to come back."""
    actions = page.locator("#actions")
    for name in PASSIVE:
        button = actions.get_by_role("button", name=re.compile(f"^{name}"))
        if button.count():
            button.first.click()
            expect(actions.locator("button:disabled")).to_have_count(0)
            return True
    return False


def test_two_browsers_play_a_stud_hand_against_each_other(
    signed_in, player, other_player, stud_table, funded, screenshot
):
    alice, bob = signed_in(player), signed_in(other_player)
    alice.goto(f"/play/stud/{stud_table.pk}/")
    # A buy-in out of range: the API's refusal, word for word, next to the form.
    alice.get_by_label("Buy-in").fill("10.00")
    alice.get_by_role("button", name="Sit down").click()
    expect(alice.locator("#join-error")).to_contain_text("The buy-in must be from 50.00 to 500.00")
    for page, seat in ((alice, "1"), (bob, "2")):
        page.set_default_timeout(TIMEOUT)
        page.goto(f"/play/stud/{stud_table.pk}/")
        # The client seed the hand mixes in, set at the table (FS-2).
        page.get_by_label("Client seed").fill(f"seat-{seat}-seed")
        page.get_by_role("button", name="Use this client seed").click()
        expect(page.locator("#news")).to_contain_text("client seed is set")
        page.get_by_label("Seat", exact=True).select_option(seat)
        page.get_by_label("Buy-in").fill("100.00")
        page.get_by_role("button", name="Sit down").click()
        expect(page.locator("#my-seat")).to_have_text(seat)
    # The hand deals itself once both have chips; each page hears of it (live notice).
    for page in (alice, bob):
        expect(page.get_by_test_id("pot")).to_contain_text("Hand 1")
        expect(page.get_by_test_id("seat-1").locator("svg.card")).to_have_count(3)
    # Each sees their own down cards and only backs for the other's (ST-2).
    expect(alice.get_by_test_id("seat-2").locator("svg.back")).to_have_count(2)
    expect(bob.get_by_test_id("seat-1").locator("svg.back")).to_have_count(2)
    screenshot(alice, "stud-table")

    # Both check or call to the end and show (ST-10): whoever's turn it is acts in their page.
    hand = Round.objects.get(table=stud_table)
    assert hand.client_seed == "1=seat-1-seed,2=seat-2-seed"
    for _ in range(60):
        hand.refresh_from_db()
        if hand.status == RoundStatus.SETTLED:
            break
        if not (_act_passively(alice) or _act_passively(bob)):
            alice.wait_for_timeout(250)
    hand.refresh_from_db()
    assert hand.status == RoundStatus.SETTLED
    for page in (alice, bob):
        result = page.get_by_test_id("hand-result")
        expect(result).to_contain_text("Hand 1 · settled")
        expect(result).to_contain_text("Main pot: Seat")
        expect(result).to_contain_text(" shows")
    screenshot(alice, "stud-showdown")

    bob.get_by_role("link", name="Game recall").click()
    bob.get_by_role("link", name=f"Hand 1 at {stud_table.name}").click()
    bob.get_by_role("button", name="Verify shuffle").click()
    expect(bob.get_by_test_id("deck-verdict")).to_contain_text("cards dealt match")


def _drawn_up_cards(page: Page, seat: int) -> list[str]:
    return (
        page.get_by_test_id(f"seat-{seat}")
        .locator("svg.card.up")
        .evaluate_all("(cards) => cards.map((card) => card.dataset.card)")
    )


def test_the_stud_table_draws_every_face_up_card_the_api_shows(
    signed_in, player, other_player, stud_table, funded, screenshot
):
    """ST-4, ST-6: at every street each browser draws, for every seat, exactly the face-up
    cards the API gives that player (none dropped, in dealing order)."""
    users = (player, other_player)
    for number, user in enumerate(users, start=1):
        stud.join(player=user, table=stud_table, seat=number, buy_in=Decimal("100.00"))
    pages = [signed_in(user) for user in users]
    for page in pages:
        page.set_default_timeout(TIMEOUT)
        page.goto(f"/play/stud/{stud_table.pk}/")
    hand = Round.objects.get(table=stud_table)
    checked = []
    for _ in range(90):
        hand.refresh_from_db()
        if hand.status == RoundStatus.SETTLED:
            break
        street = hand.engine_state["state"]["street"]
        if street not in checked and street != "showdown":
            for user, page in zip(users, pages, strict=True):
                expect(page.get_by_test_id("pot")).to_contain_text(f" · {street} · ")
                seen_table = stud_table_json(stud_table, peer_table(stud_table), user)
                for seen in seen_table["hand"]["players"]:
                    drawn = page.get_by_test_id(f"seat-{seen['seat']}").locator("svg.card.up")
                    expect(drawn).to_have_count(len(seen["up"]))
                    cards = drawn.evaluate_all("(cards) => cards.map((card) => card.dataset.card)")
                    assert cards == seen["up"], (street, seen["seat"])
            checked.append(street)
            if street == "sixth":
                screenshot(pages[0], "stud-sixth-street")
        if not any(_act_passively(page) for page in pages):
            pages[0].wait_for_timeout(250)
    assert checked == ["third", "fourth", "fifth", "sixth", "seventh"]


def test_a_stud_player_sits_out_and_rebuys_at_the_table(
    signed_in, player, other_player, stud_table, funded, settings
):
    """Source 002 (ST-1): unticking the automatic ante sits the player out, and no hand is
    dealt without them; a rebuy beyond the buy-in shows the API's refusal, one within it is
    added; ticking the ante again deals the hand."""
    settings.STUD_HAND_PAUSE_SECONDS = 0
    stud.join(player=player, table=stud_table, seat=1, buy_in=Decimal("100.00"))
    page = signed_in(player)
    page.set_default_timeout(TIMEOUT)
    page.goto(f"/play/stud/{stud_table.pk}/")
    ante = page.get_by_label("Post the ante automatically", exact=False)
    expect(ante).to_be_checked()
    ante.uncheck()
    expect(page.get_by_test_id("seat-1")).to_contain_text("sitting out")
    stud.join(player=other_player, table=stud_table, seat=2, buy_in=Decimal("100.00"))
    assert not Round.objects.filter(table=stud_table).exists()
    page.get_by_label("Rebuy", exact=True).fill("450.00")
    page.get_by_role("button", name="Add chips").click()
    expect(page.locator("#seat-error")).to_contain_text("no short buys (ST-1)")
    page.get_by_label("Rebuy", exact=True).fill("20.00")
    page.get_by_role("button", name="Add chips").click()
    expect(page.get_by_test_id("seat-1")).to_contain_text("Stack 120.00")
    ante.check()
    expect(page.get_by_test_id("pot")).to_contain_text("Hand 1")
    expect(page.get_by_test_id("seat-1")).not_to_contain_text("sitting out")


def test_a_stud_recall_shows_the_hand_mucked_at_the_showdown(
    signed_in, player, other_player, stud_table, funded, settings, monkeypatch
):
    """ST-10 (source 002): Alice mucks her jack high at the showdown; Bob's recall of the
    hand shows her cards. (The deck is stacked for a known showdown: no seed to verify.)"""
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
    page = signed_in(other_player)
    page.set_default_timeout(TIMEOUT)
    page.goto(f"/play/recall/stud/{hand.pk}/")
    mucked = page.get_by_test_id("history-1")
    expect(mucked).to_contain_text("mucked")
    cards = mucked.locator("svg.card").evaluate_all("(cards) => cards.map((c) => c.dataset.card)")
    assert cards == ["Th", "9d", "8s", "2c", "Jc", "5c", "4d"]


def _play_drawmaha(
    page: Page, *, raise_once: bool, twist: str, on_twist: Callable[[Page], object] | None = None
) -> bool:
    """One decision in this page, if it is this player's turn: raise the pot-limit maximum
    with the slider once, exchange one card in the draw (DM-5), answer the twist (DM-6) with
    ``twist``, else check or call."""
    actions = page.locator("#actions")
    if not actions.get_by_role("button").count():
        return False
    exchange = actions.get_by_role("button", name=re.compile("^Exchange"))
    twist_button = actions.get_by_role("button", name=re.compile(f"^{twist} the twist card"))
    slider = actions.get_by_role("slider")
    if exchange.count():
        actions.locator("button.card-pick").first.click()
        actions.get_by_role("button", name="Exchange 1 card").click()
    elif twist_button.count():
        if on_twist is not None:
            on_twist(page)
        twist_button.click()
    elif raise_once and slider.count():
        slider.first.focus()
        page.keyboard.press("End")  # the pot-limit maximum (DM-9)
        wager = actions.locator(".wager").first
        maximum = wager.locator('input[type="number"]').get_attribute("max")
        expect(wager.get_by_role("button")).to_have_text(re.compile(f" {maximum}$"))
        wager.get_by_role("button").click()
    else:
        passive = actions.get_by_role("button", name=re.compile("^(Check|Call)"))
        passive.first.click()
    expect(actions.locator("button:disabled")).to_have_count(0)
    return True


def test_two_browsers_play_a_drawmaha_hand_with_the_draw_and_the_twist(
    signed_in, player, other_player, drawmaha_table, funded, screenshot
):
    alice, bob = signed_in(player), signed_in(other_player)
    for page, seat in ((alice, "1"), (bob, "2")):
        page.set_default_timeout(TIMEOUT)
        page.goto(f"/play/drawmaha/{drawmaha_table.pk}/")
        page.get_by_label("Seat", exact=True).select_option(seat)
        page.get_by_label("Buy-in").fill("100.00")
        page.get_by_role("button", name="Sit down").click()
        expect(page.locator("#my-seat")).to_have_text(seat)
    for page in (alice, bob):
        expect(page.get_by_test_id("pot")).to_contain_text("Hand 1")
        # Five cards each: one's own face up in the page, the other's as backs (DM-2).
        expect(page.locator("li.seat.mine svg.card:not(.back)")).to_have_count(5)
        expect(page.locator("li.seat:not(.mine) svg.back")).to_have_count(5)
    screenshot(alice, "drawmaha-table")

    hand = Round.objects.get(table=drawmaha_table)
    raised = False
    for _ in range(60):
        hand.refresh_from_db()
        if hand.status == RoundStatus.SETTLED:
            break
        if not raised and alice.locator("#actions").get_by_role("slider").count():
            raised = _play_drawmaha(alice, raise_once=True, twist="Accept")
        elif not (
            _play_drawmaha(alice, raise_once=False, twist="Accept")
            or _play_drawmaha(
                bob,
                raise_once=False,
                twist="Reject",
                on_twist=lambda page: screenshot(page, "drawmaha-twist"),
            )
        ):
            alice.wait_for_timeout(250)
    hand.refresh_from_db()
    assert hand.status == RoundStatus.SETTLED
    assert raised
    kinds = list(hand.events.values_list("kind", flat=True))
    assert "raise" in kinds
    assert "twist_taken" in kinds  # alice's answer (DM-6)
    assert "twist_rejected" in kinds  # bob's
    for page in (alice, bob):
        result = page.get_by_test_id("hand-result")
        expect(result).to_contain_text("Hand 1 · settled")
        expect(result).to_contain_text("(draw half)")
        expect(result).to_contain_text("(Omaha half)")
    screenshot(bob, "drawmaha-showdown")

    alice.get_by_role("link", name="Game recall").click()
    alice.get_by_role("link", name=f"Hand 1 at {drawmaha_table.name}").click()
    expect(alice.get_by_test_id("hand-result")).to_contain_text("(Omaha half)")
    alice.get_by_role("button", name="Verify shuffle").click()
    expect(alice.get_by_test_id("commitment-verdict")).to_contain_text("equals the commitment")
    expect(alice.get_by_test_id("deck-verdict")).to_contain_text("cards dealt match")
    screenshot(alice, "drawmaha-recall")


def test_a_player_cannot_open_the_staff_screens(signed_in, player, screenshot):
    page = signed_in(player)
    page.goto("/admin/")
    # The admin sends a player, who is no staff member, to its own sign-in page.
    expect(page).to_have_url(re.compile(r"/admin/login/\?next=/admin/$"))
    expect(page.locator("body")).to_contain_text("You are authenticated as alice")
    response = page.goto("/staff/")
    assert response is not None
    assert response.status == 403
    screenshot(page, "staff-forbidden")
