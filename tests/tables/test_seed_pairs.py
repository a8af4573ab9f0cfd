"""Seed pairs (FS-2, FS-7): the server seed's commitment is published before the stake, the
client seed is the player's to change, rotating the pair reveals the seed, and every round
under it then verifies; peer hands commit their seed before the antes and mix in the seated
players' client seeds. With the attacks of a dishonest or curious player."""

from __future__ import annotations

import hashlib
import json
import threading
from decimal import Decimal

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection, transaction
from pghistory.models import Event as HistoryEvent

from casino.roles import PLAYER
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.engine import fairness
from games.engine.dealer import Deck
from games.joker_draw import services as joker_draw
from games.joker_draw import sql
from games.joker_draw.selectors import dealt_cards
from games.joker_draw.services import BoxRequest
from games.models import Round, SeedPair, SeedPairStatus
from games.stud.tasks import STUD as stud
from games.tables import voids
from games.tables.replay import replay_round
from payouts import services as money
from tests.fixtures.peer import running
from tests.fixtures.stud import play_passively
from tests.fixtures.users import api_client, make_user

D = Decimal
SEEDS = "/api/v1/me/seeds/"
ROTATE = "/api/v1/me/seeds/rotate/"
ROUNDS = "/api/v1/joker-draw/rounds/"


def sha256(seed_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def play_round(client, table, key, **extra) -> dict:
    """Open a one-box round and bet at once: the shortest complete round."""
    opened = client.post(
        ROUNDS,
        {"table": table.pk, "boxes": [{"box": 1, "ante": "0.30"}], **extra},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"{key}-open",
    )
    assert opened.status_code == 201, opened.json()
    settled = client.post(
        f"{ROUNDS}{opened.json()['id']}/actions/",
        {"box": 1, "action": "bet"},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"{key}-bet",
    )
    assert settled.json()["state"] == "settled"
    return settled.json()


def rotate(client, key="rotate"):
    return client.post(ROTATE, format="json", HTTP_IDEMPOTENCY_KEY=key)


def verify(round_: Round, server_seed: str) -> fairness.Verification:
    """What an auditor does with a revealed seed: the commitment, then every card in deck order."""
    cards = " ".join(card for _, card in dealt_cards(round_))
    return fairness.verify_deal(
        server_seed, round_.commitment, round_.client_seed, round_.nonce, cards, jokers=1
    )


# Joker draw: the player's pair -------------------------------------------------------------------


def test_the_hash_is_published_before_the_stake_and_is_the_rounds_commitment(
    funded_player, joker_table
):
    """FS-2: read the hash, play, the round's commitment is that hash; nonces count per pair."""
    client = api_client(funded_player)
    before = client.get(SEEDS).json()
    assert before["next_nonce"] == 1
    assert len(before["commitment"]) == 64
    assert "server_seed" not in before
    first = play_round(client, joker_table, "r1")
    second = play_round(client, joker_table, "r2")
    assert (first["commitment"], first["nonce"]) == (before["commitment"], 1)
    assert (second["commitment"], second["nonce"]) == (before["commitment"], 2)
    assert first["client_seed"] == second["client_seed"] == before["client_seed"]
    after = client.get(SEEDS).json()
    assert (after["commitment"], after["next_nonce"]) == (before["commitment"], 3)


def test_a_new_players_seed_pair_is_committed_before_their_first_request(db):
    """FS-2: becoming a player commits the first server seed: its hash is on record before the
    player has sent anything, let alone a stake."""
    newcomer = make_user("newcomer", PLAYER)
    committed = SeedPair.objects.get(player=newcomer, status=SeedPairStatus.CURRENT)
    assert committed.commitment == sha256(committed.server_seed)
    assert api_client(newcomer).get(SEEDS).json()["commitment"] == committed.commitment
    staff = make_user("pitnew", "pit_staff")
    assert not SeedPair.objects.filter(player=staff).exists()


def test_no_opening_draws_a_seed_after_seeing_the_stake(funded_player, joker_table):
    """FS-2: a player with no committed pair (one from before pairs, say) is refused before any
    stake, and reads the hash of a new pair first; the server never makes the seed of a round
    it has already seen the stake of."""
    SeedPair.objects.filter(player=funded_player).delete()
    client = api_client(funded_player)
    refused = client.post(
        ROUNDS,
        {"table": joker_table.pk, "boxes": [{"box": 1, "ante": "0.30"}]},
        format="json",
        HTTP_IDEMPOTENCY_KEY="no-pair",
    )
    assert refused.status_code == 409
    assert "(FS-2)" in refused.json()["errors"]["seed_pair"][0]
    assert not SeedPair.objects.filter(player=funded_player).exists()
    assert not Round.objects.filter(player=funded_player).exists()
    published = client.get(SEEDS).json()["commitment"]
    assert play_round(client, joker_table, "after-reading")["commitment"] == published


def test_a_client_seed_change_applies_to_the_next_round(funded_player, joker_table):
    client = api_client(funded_player)
    play_round(client, joker_table, "r1")
    changed = client.put(SEEDS, {"client_seed": "my-own.seed_7"}, format="json")
    assert changed.status_code == 200
    assert changed.json()["client_seed"] == "my-own.seed_7"
    assert changed.json()["next_nonce"] == 2
    played = play_round(client, joker_table, "r2")
    assert (played["client_seed"], played["nonce"]) == ("my-own.seed_7", 2)
    # A client seed given with the opening is the player's from that round on.
    given = play_round(client, joker_table, "r3", client_seed="lucky")
    assert given["client_seed"] == "lucky"
    assert client.get(SEEDS).json()["client_seed"] == "lucky"


def test_rotation_reveals_the_seed_and_every_round_under_it_verifies(
    funded_player, joker_table, capsys
):
    """FS-7: the revealed seed hashes to the published commitment, and every round played
    under the pair recomputes card for card; replay_round agrees; the new pair starts at 1."""
    client = api_client(funded_player)
    published = client.get(SEEDS).json()["commitment"]
    ids = [play_round(client, joker_table, f"r{n}")["id"] for n in range(3)]
    client.put(SEEDS, {"client_seed": "second-half"}, format="json")
    ids.append(play_round(client, joker_table, "r3")["id"])
    for pk in ids:  # settled, but the pair is live: no seed yet
        assert "server_seed" not in client.get(f"{ROUNDS}{pk}/").json()

    rotation = rotate(client)
    assert rotation.status_code == 200
    revealed = rotation.json()["revealed"]
    assert revealed["commitment"] == published
    assert sha256(revealed["server_seed"]) == published
    assert revealed["rounds"] == 4
    for pk in ids:
        round_ = Round.objects.get(pk=pk)
        assert verify(round_, revealed["server_seed"]), verify(round_, revealed["server_seed"])
        assert client.get(f"{ROUNDS}{pk}/").json()["server_seed"] == revealed["server_seed"]
        call_command("replay_round", pk)
        assert "replay matches" in capsys.readouterr().out
    assert Round.objects.get(pk=ids[-1]).client_seed == "second-half"

    current = rotation.json()["current"]
    assert current["commitment"] != published
    assert (current["next_nonce"], current["client_seed"]) == (1, "second-half")
    assert client.get(SEEDS).json() == current
    nxt = play_round(client, joker_table, "after")
    assert (nxt["commitment"], nxt["nonce"]) == (current["commitment"], 1)
    assert "server_seed" not in nxt


def test_rotation_is_refused_while_a_round_of_the_pair_is_unfinished(funded_player, joker_table):
    """FS-7: the seed of an unfinished round would show the cards to come (the dealer's, the
    draws): the rotation is refused, and nothing changes until the round is over."""
    client = api_client(funded_player)
    published = client.get(SEEDS).json()["commitment"]
    opened = client.post(
        ROUNDS,
        {"table": joker_table.pk, "boxes": [{"box": 1, "ante": "0.30"}]},
        format="json",
        HTTP_IDEMPOTENCY_KEY="open",
    ).json()
    refused = rotate(client, "early")
    assert refused.status_code == 409
    assert refused.json()["errors"]["seed_pair"][0].endswith("(FS-7).")
    round_ = Round.objects.get(pk=opened["id"])
    assert round_.secret_server_seed() not in json.dumps(refused.json())
    pair = SeedPair.objects.get(commitment=published)
    assert pair.status == SeedPairStatus.CURRENT
    assert client.get(SEEDS).json()["commitment"] == published

    client.post(
        f"{ROUNDS}{opened['id']}/actions/",
        {"box": 1, "action": "fold"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="fold",
    )
    rotated = rotate(client, "late")  # the refused key stored nothing: any key works now
    assert rotated.status_code == 200
    assert verify(round_, rotated.json()["revealed"]["server_seed"])


def test_a_rotation_retried_with_its_key_rotates_once(funded_player, joker_table):
    client = api_client(funded_player)
    first = rotate(client, "same")
    again = rotate(client, "same")
    assert again.status_code == 200
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert SeedPair.objects.filter(player=funded_player).count() == 2
    assert client.post(ROTATE).status_code == 400  # no key: refused, nothing rotated
    assert SeedPair.objects.filter(player=funded_player).count() == 2


def test_a_client_seed_change_mid_round_leaves_the_dealt_deck_alone(funded_player, joker_table):
    """A dishonest player cannot steer the cards to come: the deck was fixed at the deal."""
    client = api_client(funded_player)
    client.put(SEEDS, {"client_seed": "before"}, format="json")
    opened = client.post(
        ROUNDS,
        {"table": joker_table.pk, "boxes": [{"box": 1, "ante": "0.30"}]},
        format="json",
        HTTP_IDEMPOTENCY_KEY="open",
    ).json()
    assert client.put(SEEDS, {"client_seed": "during"}, format="json").status_code == 200
    cards = opened["boxes"][0]["cards"]
    for key, body in (("x", {"action": "exchange", "cards": cards[:3]}), ("b", {"action": "bet"})):
        client.post(
            f"{ROUNDS}{opened['id']}/actions/",
            {"box": 1, **body},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key,
        )
    round_ = Round.objects.get(pk=opened["id"])
    assert round_.client_seed == "before"
    seed = rotate(client).json()["revealed"]["server_seed"]
    assert verify(round_, seed)  # the draw came from the deck of "before"
    assert replay_round(round_).ok


@pytest.mark.parametrize(
    "bad", ["", "two words", "a,b", "seat=1", "x" * 65, "colon:", "ünicode", None, ["a"]]
)
def test_a_malformed_client_seed_is_refused_and_changes_nothing(funded_player, bad):
    client = api_client(funded_player)
    before = client.get(SEEDS).json()
    refused = client.put(SEEDS, {"client_seed": bad}, format="json")
    assert refused.status_code == 400
    assert "client_seed" in refused.json()["errors"]
    assert client.get(SEEDS).json() == before


def test_a_malformed_client_seed_at_the_opening_takes_no_stake(funded_player, joker_table):
    client = api_client(funded_player)
    refused = client.post(
        ROUNDS,
        {"table": joker_table.pk, "boxes": [{"box": 1, "ante": "0.30"}], "client_seed": "a,b"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="open",
    )
    assert refused.status_code == 400
    assert "client_seed" in refused.json()["errors"]
    assert money.wallet(funded_player, "USD").balance == D("100.00")
    assert not Round.objects.exists()


def test_staff_have_no_seed_pair(pit, auditor, admin_user):
    for user in (pit, auditor, admin_user):
        client = api_client(user)
        assert client.get(SEEDS).status_code == 403
        assert client.put(SEEDS, {"client_seed": "x"}, format="json").status_code == 403
        assert rotate(client).status_code == 403
        assert api_client(None).get(SEEDS).status_code in (401, 403)
    assert not SeedPair.objects.exists()


def test_a_player_cannot_set_another_players_client_seed(funded_player, other_player):
    """The pair is always the signed-in player's: naming someone else changes nothing of theirs."""
    theirs = api_client(other_player).get(SEEDS).json()
    mine = api_client(funded_player).put(
        SEEDS,
        {"client_seed": "hijack", "player": other_player.pk, "username": other_player.username},
        format="json",
    )
    assert mine.json()["client_seed"] == "hijack"
    assert api_client(other_player).get(SEEDS).json() == theirs
    assert api_client(funded_player).get(f"{SEEDS}?player={other_player.pk}").json() != theirs


def test_a_player_cannot_read_a_live_seed(funded_player, other_player, joker_table, auditor):
    """Every page and answer a player (or an auditor) can reach while the pair is live, before
    and after its rounds settle, and the change history, hold no trace of the server seed."""
    client = api_client(funded_player)
    played = play_round(client, joker_table, "r1")
    opened = client.post(
        ROUNDS,
        {"table": joker_table.pk, "boxes": [{"box": 1, "ante": "0.30"}]},
        format="json",
        HTTP_IDEMPOTENCY_KEY="open-2",
    ).json()
    seed = SeedPair.objects.get(player=funded_player).server_seed
    web = api_client(funded_player)
    web.force_login(funded_player)
    staff = api_client(auditor)
    staff.force_login(auditor)
    seen = [
        client.get(SEEDS),
        client.get(ROUNDS),
        client.get(f"{ROUNDS}{played['id']}/"),
        client.get(f"{ROUNDS}{opened['id']}/"),
        web.get("/play/recall/"),
        web.get(f"/play/recall/joker-draw/{played['id']}/"),
        web.get(f"/play/recall/joker-draw/{opened['id']}/"),
        staff.get(f"/staff/rounds/{played['id']}/"),
        staff.get(f"/admin/games/round/{played['id']}/change/"),
        staff.get(f"/admin/games/round/?q={seed[:8]}"),
        api_client(other_player).get(SEEDS),
    ]
    for response in seen:
        assert response.status_code == 200, response
        assert seed not in response.content.decode()
    assert Round.objects.get(pk=played["id"]).server_seed == ""  # kept on the pair alone
    assert_no_history_holds(seed)


def assert_no_history_holds(seed: str) -> None:
    """No snapshot of the change history (pghistory's events, shown in the admin) holds it."""
    for model in apps.get_models():
        if issubclass(model, HistoryEvent) and not model._meta.abstract:
            for row in model.objects.values():
                assert seed not in json.dumps(row, default=str), model


@pytest.mark.django_db(transaction=True)
def test_openings_at_one_table_do_not_wait_on_each_other(funded_player, pit, joker_table):
    """The nonce counts per seed pair, so an opening no longer locks the table to number its
    round: while another opening at the table holds what it takes of the table (until its
    commit), this one goes through at once."""
    money.fund_house(currency="USD", amount=D("1000.00"), reason="bankroll", by=pit)
    holding, release, failure = threading.Event(), threading.Event(), []

    def other_opening() -> None:
        try:
            with transaction.atomic():
                sql.lock_table(joker_table.pk)
                holding.set()
                release.wait(10)
        except Exception as error:  # reported below
            failure.append(error)
        finally:
            holding.set()
            connection.close()

    thread = threading.Thread(target=other_opening)
    thread.start()
    try:
        assert holding.wait(10)
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '2s'")
            opened = joker_draw.open_round(
                player=funded_player, table=joker_table.pk, boxes=[BoxRequest(1, D("0.30"))]
            ).round
    finally:
        release.set()
        thread.join()
    assert not failure
    assert opened.nonce == 1


# Peer tables: the table's seed for its next hand -------------------------------------------------


def test_a_stud_hand_uses_the_seed_committed_before_its_antes(players, stud_table):
    """FS-2: the next hand's commitment is on the table before anyone antes; the hand mixes in
    the dealt players' client seeds ("seat=seed" in seat order, comma-joined); the seed is
    secret while the hand is played, and revealed to a player dealt in once they leave (FS-7b);
    the deck recomputes and replay_round passes."""
    ann, ben, _ = players
    api_client(ann).put(SEEDS, {"client_seed": "ann-seed"}, format="json")
    api_client(ben).put(SEEDS, {"client_seed": "ben-seed"}, format="json")
    stud.join(player=ann, table=stud_table, seat=5, buy_in=D("100.00"))
    table_view = api_client(ann).get(f"/api/v1/stud/tables/{stud_table.pk}/").json()
    published = table_view["next_hand_commitment"]
    assert table_view["hand"] is None
    assert len(published) == 64

    stud.join(player=ben, table=stud_table, seat=2, buy_in=D("100.00"))  # the hand is dealt
    hand = running(stud_table)
    assert hand.commitment == published
    assert hand.client_seed == "2=ben-seed,5=ann-seed"
    seed = hand.secret_server_seed()
    for viewer in (ann, ben):
        during = api_client(viewer).get(f"/api/v1/stud/tables/{stud_table.pk}/")
        assert seed not in during.content.decode()
        assert during.json()["next_hand_commitment"] not in (None, published)
    assert_no_history_holds(seed)

    play_passively(stud_table)
    hand.refresh_from_db()
    # FS-7b: a player dealt in reads the seed once they have left the table.
    assert api_client(ann).get(f"/api/v1/stud/hands/{hand.pk}/").json()["server_seed"] is None
    stud.leave(player=ann, table=stud_table)  # from the next hand, whose play folds her cards
    if Round.objects.filter(table=stud_table, status="deciding").exists():
        play_passively(stud_table)
    recalled = api_client(ann).get(f"/api/v1/stud/hands/{hand.pk}/").json()
    assert sha256(recalled["server_seed"]) == published
    dealt = Deck.shuffled(recalled["server_seed"], "2=ben-seed,5=ann-seed", hand.nonce)
    assert dealt.deal(1) == Deck.shuffled(seed, hand.client_seed, hand.nonce).deal(1)
    assert replay_round(hand).ok


def test_a_voided_peer_hand_reveals_its_seed(players, drawmaha_table, pit):
    ann, ben, _ = players
    drawmaha.join(player=ann, table=drawmaha_table, seat=1, buy_in=D("100.00"))
    published = SeedPair.objects.get(table=drawmaha_table, status="current").commitment
    drawmaha.join(player=ben, table=drawmaha_table, seat=2, buy_in=D("100.00"))
    hand = running(drawmaha_table)
    assert hand.commitment == published
    assert hand.seed_pair.status == SeedPairStatus.IN_PLAY
    voids.void_round(hand, by=pit, reason="dealer error")
    hand = Round.objects.get(pk=hand.pk)
    assert hand.seed_pair.status == SeedPairStatus.REVEALED
    assert hand.revealed_server_seed() == hand.secret_server_seed()
    assert sha256(hand.revealed_server_seed()) == published


def test_the_seed_pair_endpoints_are_in_the_openapi_schema(player):
    schema = api_client(player).get("/api/schema/", HTTP_ACCEPT="application/json").json()
    pair = schema["paths"]["/api/v1/me/seeds/"]
    assert {"get", "put"} <= set(pair)
    rotation = schema["paths"]["/api/v1/me/seeds/rotate/"]["post"]
    assert any(p["name"] == "Idempotency-Key" and p["required"] for p in rotation["parameters"])


def test_the_admin_is_no_oracle_for_a_live_seed(funded_player, joker_table, auditor):
    """A curious auditor filtering the rounds by the seed pair's seed learns nothing: the round
    list answers a right prefix exactly as a wrong one."""
    played = play_round(api_client(funded_player), joker_table, "r1")
    seed = SeedPair.objects.get(player=funded_player).server_seed
    wrong = "0" if seed[0] != "0" else "1"
    staff = api_client(auditor)
    staff.force_login(auditor)
    link = f"/admin/games/round/{played['id']}/change/"
    answers = []
    for lookup in ("seed_pair__server_seed__startswith", "server_seed__startswith"):
        for prefix in (seed[:2], wrong):
            response = staff.get(f"/admin/games/round/?{lookup}={prefix}")
            answers.append((lookup, response.status_code, link in response.content.decode()))
    assert answers[0][1:] == answers[1][1:]
    assert answers[2][1:] == answers[3][1:]


def test_a_full_stud_table_of_the_longest_client_seeds_still_deals(pit, stud_table):
    """FS-2: eight players each with a client seed of the longest allowed length: the hand's
    client seed holds all eight, and the hand is dealt (no player's seed can stop a table)."""
    longest = "s" * 64
    players = [make_user(f"long{number}", PLAYER) for number in range(1, 9)]
    for user in players:
        money.deposit(player=user, currency="USD", amount=D("200.00"), reason="cash", by=pit)
        assert (
            api_client(user).put(SEEDS, {"client_seed": longest}, format="json").status_code == 200
        )
    for number, user in enumerate(players, start=1):
        stud.join(player=user, table=stud_table, seat=number, buy_in=D("100.00"))
    play_passively(stud_table)  # the first hand, dealt to the first two seated
    hand = running(stud_table)
    assert hand.client_seed == ",".join(f"{number}={longest}" for number in range(1, 9))
    assert Deck.shuffled(hand.secret_server_seed(), hand.client_seed, hand.nonce).deal(1)
