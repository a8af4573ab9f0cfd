"""Finished stud hands as PHH files (F7S): downloaded from the API, replayed by
``phh_replay`` to our finishing stacks, and loaded by PokerKit to the same stacks."""

from __future__ import annotations

import json
import random
import warnings
from decimal import Decimal

import pokerkit
import pytest
from django.core.management import CommandError, call_command

from games.engine import stud as engine
from games.engine import stud_phh
from games.engine.betting import AGGRESSIVE, FIXED_LIMIT_CAP
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


def play_randomly(table, users, hands, chooser):
    """Random legal decisions, every bet the smallest allowed (no ST-5 big bet on fourth) and
    none past the ST-8 cap, until ``hands`` hands are over or one player has every chip."""
    by_id = {user.pk: user for user in users}
    over = Round.objects.filter(table=table, status="settled").count() + hands
    while Round.objects.filter(table=table, status="settled").count() < over:
        running = Round.objects.filter(table=table, status="deciding").first()
        if running is None:  # all but one player lost their chips
            return
        hand = Hand.from_json(running.engine_state)
        options = {}  # per kind the smallest: fixed limit lists the ST-5 big bet second
        for option in engine.legal_actions(hand.state):
            options.setdefault(option.kind, option)
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


def test_exported_hands_replay_here_and_in_pokerkit_to_the_same_stacks(
    seated, pit, pit2, auditor, tmp_path, capsys
):
    """Rake-free table, three players (no ST-9), small bets only: the rules both share."""
    table = make_stud_table(pit, pit2, name="Stud PHH", rake_percent=D("0"), rake_cap=None)
    sit(seated, table, buy_in="500.00")  # deep enough that nobody goes broke
    play_randomly(table, seated, 12, random.Random(43))
    compared = 0
    for round_ in Round.objects.filter(table=table, status="settled"):
        text = download(auditor, round_)  # the seed goes to auditors at once (FS-7b)
        ours = Hand.from_json(round_.engine_state).state.finishing_stacks
        hand = stud_phh.loads(text)
        assert hand.finishing_stacks == ours
        assert hand.extra["_server_seed"] == round_.secret_server_seed()
        assert hand.extra["_commitment"] == round_.commitment
        path = tmp_path / f"{round_.pk}.phh"
        path.write_text(text)
        call_command("phh_replay", str(path))
        assert json.loads(capsys.readouterr().out) == {"finishing_stacks": list(ours)}
        if odd_unit_split(round_):
            continue
        *_, final = pokerkit.HandHistory.loads(text)
        assert tuple(final.stacks) == ours
        compared += 1
    assert compared >= 10


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
