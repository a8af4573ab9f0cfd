"""Finished stud hands as PHH files (F7S): downloaded from the API, replayed by
``phh_replay`` to our finishing stacks, and loaded by PokerKit to the same stacks."""

from __future__ import annotations

import json
import random
import warnings
from collections import Counter
from decimal import Decimal

import pokerkit
import pytest
from django.core.management import CommandError, call_command

from games.engine import stud as engine
from games.engine import stud_phh
from games.engine.betting import AGGRESSIVE, FIXED_LIMIT_CAP, split_pot
from games.models import Round
from games.peer.hands import from_cents
from games.stud.hand import Hand
from games.stud.tasks import STUD as stud
from payouts import services as money
from tests.fixtures.phh import ALL_IN_ON_THE_ANTES, WSOP_DIR, WSOP_HANDS, pokerkit_hand
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import api_client, make_user

D = Decimal
FOLDED_CARD_DEALT_AGAIN = 5  # a seed of pokerkit_hand: eight players, three fold


@pytest.fixture
def seated(pit, settings):
    """Three players with 500.00 in their wallets; hands start at once."""
    settings.STUD_HAND_PAUSE_SECONDS = 0
    users = [make_user(name, "player") for name in ("ann", "ben", "cal")]
    for user in users:
        money.deposit(player=user, currency="USD", amount=D("500.00"), reason="c", by=pit)
    return users


def sit(users, table, buy_in="100.00"):
    for number, user in enumerate(users, start=1):
        stud.join(player=user, table=table, seat=number, buy_in=D(buy_in))


def play_randomly(table, users, hands, chooser, *, big_bets=False):
    """Random legal decisions, every bet the smallest allowed (with ``big_bets``, now and then
    the ST-5 big bet on fourth street) and none past the ST-8 cap, until ``hands`` hands are
    over or one player has every chip."""
    by_id = {user.pk: user for user in users}
    over = Round.objects.filter(table=table, status="settled").count() + hands
    while Round.objects.filter(table=table, status="settled").count() < over:
        running = Round.objects.filter(table=table, status="deciding").first()
        if running is None:  # all but one player lost their chips
            return
        hand = Hand.from_json(running.engine_state)
        options = {}  # per kind the smallest: fixed limit lists the ST-5 big bet second
        for option in engine.legal_actions(hand.state):
            if option.kind not in options or (big_bets and chooser.random() < 0.5):
                options[option.kind] = option
        if hand.state.betting.raises >= FIXED_LIMIT_CAP:
            # ST-8 lifts the cap once two players are left; PokerKit never does.
            options = {kind: o for kind, o in options.items() if kind not in AGGRESSIVE}
        option = chooser.choice(
            [o for o in options.values() for _ in range(1 if o.kind.value == "fold" else 4)]
        )
        amount = from_cents(option.min_amount) if option.min_amount else None
        player = by_id[hand.players[hand.state.to_act]]
        stud.act(player=player, table=table, action=option.kind.value, amount=amount)


def download(user, round_) -> str:
    response = api_client(user).get(f"/api/v1/stud/hands/{round_.pk}/phh/")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="stud-{round_.pk}.phh"'
    return response.content.decode()


def odd_unit_split(round_) -> bool:
    """ST-11's odd unit: a split pot whose shares differ (PokerKit gives it elsewhere)."""
    return any(
        len(set(event.data["shares"].values())) > 1
        for event in round_.events.filter(kind="pot_awarded")
    )


@pytest.mark.parametrize("open_pair_big_bet", [True, False])
def test_exported_hands_replay_here_and_in_pokerkit_but_for_named_conventions(
    open_pair_big_bet, pit, pit2, auditor, tmp_path, capsys, settings
):
    """Random hands at a raked table of four, two of them short-stacked, with ST-5's big bet on
    or off. Every file, the staff's and a player's (others' folded cards ??), replays through
    phh_replay to our stacks; PokerKit, which ignores the rake, replays it to our stacks with
    the rake given back, unless the hand uses a convention PokerKit does not follow, which is
    named and counted (README: Seven-card stud)."""
    settings.STUD_HAND_PAUSE_SECONDS = 0
    table = make_stud_table(
        pit, pit2, name="Stud PHH", buy_in_min=D("5.00"), open_pair_big_bet=open_pair_big_bet
    )
    users = [make_user(name, "player") for name in ("ann", "ben", "cal", "dee")]
    buy_ins = ("8.00", "19.00", "300.00", "400.00")
    for seat, (user, buy_in) in enumerate(zip(users, buy_ins, strict=True), 1):
        money.deposit(player=user, currency="USD", amount=D("500.00"), reason="c", by=pit)
        stud.join(player=user, table=table, seat=seat, buy_in=D(buy_in))
    play_randomly(table, users, 10, random.Random(43), big_bets=True)
    tally = Counter()
    unknown = 0
    for round_ in Round.objects.filter(table=table, status="settled"):
        state = Hand.from_json(round_.engine_state).state
        ours = state.finishing_stacks
        viewer = next(u for u in users if u.pk in Hand.from_json(round_.engine_state).players)
        for user in (auditor, viewer):  # the seed goes to auditors at once (FS-7b)
            text = download(user, round_)
            hand = stud_phh.loads(text)
            assert hand.finishing_stacks == ours
            if user == auditor:
                assert hand.extra["_server_seed"] == round_.secret_server_seed()
                assert hand.extra["_commitment"] == round_.commitment
            assert hand.extra["_open_pair_big_bet"] is open_pair_big_bet
            unknown += "??" in text
            path = tmp_path / f"{round_.pk}.phh"
            path.write_text(text)
            call_command("phh_replay", str(path))
            assert json.loads(capsys.readouterr().out) == {"finishing_stacks": list(ours)}
            differences = conventions(round_)
            tally.update(differences or ["replayed in PokerKit"])
            if not differences:  # PokerKit may refuse a file that uses a convention
                *_, final = pokerkit.HandHistory.loads(text)
                assert tuple(final.stacks) == rake_given_back(round_, ours), text
    assert tally["replayed in PokerKit"] >= 10, tally
    assert set(tally) <= {"replayed in PokerKit", *CONVENTIONS}
    if not open_pair_big_bet:
        assert "ST-5: big bet on fourth street with an open pair" not in tally, tally
    assert unknown >= 2


CONVENTIONS = (
    "ST-5: big bet on fourth street with an open pair",
    "ST-6b: a completion or raise after a short all-in",
    "ST-9: the common last card",
    "ST-11: the odd unit of a split pot",
    "ST-3: no bring-in from a player all in on the ante",
)


def conventions(round_) -> list[str]:
    """The conventions of these rules that a hand uses and PokerKit does not follow, read from
    its events."""
    found = []
    events = list(round_.events.order_by("sequence").values_list("kind", "data"))
    state = Hand.from_json(round_.engine_state).state
    level, short_all_in = 0, False
    for kind, data in events:
        if kind in ("deal", "common_card"):  # a new street
            level, short_all_in = 0, False
        big = data.get("amount", 0) - level >= state.table.big_bet > state.table.small_bet
        if kind in ("bet", "raise", "complete") and data["street"] == "fourth" and big:
            found.append(CONVENTIONS[0])
        if kind in ("bet", "raise", "complete") and short_all_in:
            found.append(CONVENTIONS[1])
        if kind in ("bet", "raise", "complete"):
            size = (
                state.table.small_bet
                if data["street"] in ("third", "fourth")
                else state.table.big_bet
            )
            short_all_in |= data["all_in"] and data["amount"] - level < size
            level = max(level, data["amount"])
        if kind == "common_card":
            found.append(CONVENTIONS[2])
        if kind == "pot_awarded" and len(data["shares"]) > 1:
            winners = len(data["shares"])
            if data["amount"] % winners or (data["amount"] + data["rake"]) % winners:
                found.append(CONVENTIONS[3])
        if kind == "bring_in_seat" and any(
            e[0] == "ante" and e[1]["all_in"] and e[1]["seat"] != data["seat"] for e in events
        ):
            found.append(CONVENTIONS[4])
    return sorted(set(found))


def rake_given_back(round_, stacks) -> tuple[int, ...]:
    """The finishing stacks without the rake: each pot's rake shared among its winners."""
    given = list(stacks)
    for data in round_.events.filter(kind="pot_awarded").values_list("data", flat=True):
        winners = sorted(int(seat) for seat in data["shares"])
        for seat, share in split_pot(
            data["rake"], winners, first_seat=0, seat_count=len(given)
        ).items():
            given[seat] += share
    return tuple(given)


def test_a_raked_hand_replays_with_its_rake(seated, pit, stud_table, tmp_path, capsys):
    """ST-13: the exported rake rule (user-defined fields) is applied by phh_replay. Staff's
    file is complete: a player's shows no folded hand (ST-10)."""
    sit(seated[:2], stud_table)
    play_randomly(stud_table, seated, 3, random.Random(7))
    for round_ in Round.objects.filter(table=stud_table, status="settled"):
        text = download(pit, round_)
        state = Hand.from_json(round_.engine_state).state
        assert stud_phh.loads(text).extra["_rake"] == state.rake
        path = tmp_path / "raked.phh"
        path.write_text(text)
        call_command("phh_replay", str(path))
        assert json.loads(capsys.readouterr().out)["finishing_stacks"] == list(
            state.finishing_stacks
        )


def test_phh_replay_names_the_rule_an_action_breaks(seated, pit, stud_table, tmp_path):
    sit(seated[:2], stud_table)
    play_randomly(stud_table, seated, 1, random.Random(1))
    round_ = Round.objects.get(table=stud_table, status="settled")
    hand = stud_phh.loads(download(pit, round_))  # complete: a player's hides folded hands
    bring_in = next(a for a in hand.actions if a.endswith(" pb"))
    other = "p2" if bring_in.startswith("p1") else "p1"
    broken = tuple(f"{other} pb" if a == bring_in else a for a in hand.actions)
    path = tmp_path / "broken.phh"
    path.write_text(stud_phh.dumps(stud_phh.HandHistory(**{**hand.__dict__, "actions": broken})))
    with pytest.raises(CommandError, match=r"rule ST-3"):
        call_command("phh_replay", str(path))


def test_a_hand_in_play_has_no_history_to_download(seated, stud_table):
    sit(seated[:2], stud_table)
    round_ = Round.objects.get(table=stud_table, status="deciding")
    response = api_client(seated[0]).get(f"/api/v1/stud/hands/{round_.pk}/phh/")
    assert response.status_code == 400
    assert "FS-7" in response.json()["errors"]["hand"][0]
    detail = api_client(seated[0]).get(f"/api/v1/stud/hands/{round_.pk}/").json()
    assert "server_seed" not in detail
    assert "events" not in detail
    assert api_client(seated[2]).get(f"/api/v1/stud/hands/{round_.pk}/").status_code == 404


@pytest.mark.parametrize("name", WSOP_HANDS)
def test_phh_replay_plays_pokerkit_written_files_to_pokerkit_stacks(name, capsys):
    """The WSOP hands were written by PokerKit; phh_replay prints the stacks PokerKit computes."""
    path = WSOP_DIR / name
    call_command("phh_replay", str(path))
    printed = json.loads(capsys.readouterr().out)
    *_, final = pokerkit.HandHistory.loads(path.read_text(encoding="utf-8"))
    assert printed == {"finishing_stacks": list(final.stacks)}


def test_phh_replay_plays_pokerkit_all_in_hands_and_names_st9_for_a_folded_card(tmp_path, capsys):
    """phh_replay on files PokerKit wrote: a hand shown with both players all in on the antes
    replays to PokerKit's stacks; one that deals a folded card again is refused by ST-9."""
    text, stacks = pokerkit_hand(ALL_IN_ON_THE_ANTES)
    path = tmp_path / "all-in.phh"
    path.write_text(text)
    call_command("phh_replay", str(path))
    assert json.loads(capsys.readouterr().out) == {"finishing_stacks": list(stacks)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns as it deals its reserve of cards
        text, _ = pokerkit_hand(FOLDED_CARD_DEALT_AGAIN)
    path.write_text(text)
    with pytest.raises(CommandError, match=r"who folded; folded cards .* \(rule ST-9"):
        call_command("phh_replay", str(path))
