"""Players in Chromium against the live server: sign in, play a joker draw round with an
exchange to its payout, verify its shuffle in the browser, sit out and rebuy at a stud table,
and find the staff screens closed (the peer tables' hands: test_peer_tables.py)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from playwright.sync_api import Page, expect

from games.engine import fairness
from games.models import BoxSettlement, Round, RoundStatus, SeedPair
from games.stud.tasks import STUD as stud
from payouts.models import AccountKind
from payouts.services import deposit, wallet
from tests.fixtures.browser import TIMEOUT


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
