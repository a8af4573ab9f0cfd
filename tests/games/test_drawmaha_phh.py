"""Finished Drawmaha hands as PHH files (variant PDM): downloaded from the API, round-tripped
through ``loads``/``dumps``, replayed by ``phh_replay`` to our finishing stacks, with taken and
rejected twists (DM-6), and a tampered action refused with its rule."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from games.engine import drawmaha as engine
from games.engine import phh_drawmaha
from games.engine.common import RuleViolation
from games.models import Round
from games.services import drawmaha
from games.services.drawmaha import Hand
from games.services.peer_tables import from_cents
from payouts import services as money
from tests.conftest import api_client, make_user
from tests.games.test_drawmaha_service import hand_of, play_passively, seat_everyone, to_act

D = Decimal


def play_with_twists(table, hands):
    """The first player to draw exchanges two cards, the others one (a twist, DM-6), taken and
    rejected in turn; bets of the least amount now and then, else check or call."""
    over = Round.objects.filter(table=table, status="settled").count() + hands
    decisions = 0
    while Round.objects.filter(table=table, status="settled").count() < over:
        decisions += 1
        seating = to_act(table)
        state = hand_of(table).state
        options = {o.kind.value: o for o in engine.legal_actions(state)}
        if "exchange" in options:
            seat = state.to_act
            count = 2 if not state.exchanges else 1
            body = {"action": "exchange", "cards": [str(c) for c in state.hands[seat][:count]]}
        elif "take" in options:
            body = {"action": "take" if decisions % 2 else "reject"}
        elif "bet" in options and decisions % 3 == 0:
            body = {"action": "bet", "amount": from_cents(options["bet"].min_amount)}
        else:
            body = {"action": next(k for k in ("check", "call") if k in options)}
        drawmaha.act(player=seating.player, table=table, **body)


def download(user, round_) -> str:
    response = api_client(user).get(f"/api/v1/drawmaha/hands/{round_.pk}/phh/")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="drawmaha-{round_.pk}.phh"'
    return response.content.decode()


def replayed(text, tmp_path, capsys) -> list[int]:
    path = tmp_path / "hand.phh"
    path.write_text(text)
    call_command("phh_replay", str(path))
    return json.loads(capsys.readouterr().out)["finishing_stacks"]


@pytest.fixture
def played(players, drawmaha_table, settings):
    seat_everyone(drawmaha_table, players, settings)
    play_passively(drawmaha_table, hands=1)
    play_with_twists(drawmaha_table, hands=4)
    return list(Round.objects.filter(table=drawmaha_table, status="settled").order_by("pk"))


@pytest.fixture
def players(pit):
    users = [make_user(name, "player") for name in ("ann", "ben", "cal")]
    for user in users:
        money.deposit(player=user, currency="USD", amount=D("200.00"), reason="cash", by=pit)
    return users


def test_every_finished_hand_exports_round_trips_and_replays(played, pit, tmp_path, capsys):
    twists = set()
    for round_ in played:
        text = download(pit, round_)
        hand = phh_drawmaha.loads(text)
        assert phh_drawmaha.dumps(hand) == text
        assert phh_drawmaha.loads(phh_drawmaha.dumps(hand)) == hand
        state = Hand.from_json(round_.engine_state).state
        assert hand.variant == "PDM"
        assert hand.antes == (0, 0, 0)
        assert hand.finishing_stacks == state.finishing_stacks
        assert hand.extra["_server_seed"] == round_.server_seed
        assert hand.extra["_commitment"] == round_.commitment
        assert hand.extra["_button"] == state.button
        assert any(" sd" in action for action in hand.actions)
        assert replayed(text, tmp_path, capsys) == list(state.finishing_stacks)
        twists |= {a.rsplit(" ", 1)[1] for a in hand.actions if "# twist" in a}
    assert twists == {"taken", "rejected"}


def test_a_taken_and_a_rejected_twist_replay_to_the_engine_state(played, pit):
    seen = set()
    for round_ in played:
        hand = phh_drawmaha.loads(download(pit, round_))
        state = Hand.from_json(round_.engine_state).state
        result = phh_drawmaha.replay(hand)
        for exchange in state.exchanges:
            if exchange.twist is None:
                continue
            answer = "taken" if exchange.twist_taken else "rejected"
            seen.add(answer)
            line = next(a for a in hand.actions if a.startswith(f"p{exchange.seat + 1} sd"))
            received = "".join(map(str, exchange.received))
            assert line == (
                f"p{exchange.seat + 1} sd {exchange.discards[0]} {received}"
                f" # twist {exchange.twist} {answer}"
            )
        assert result.state.exchanges == state.exchanges
        assert result.state.hands == state.hands
        assert result.finishing_stacks == state.finishing_stacks
    assert seen == {"taken", "rejected"}


def test_a_flipped_twist_answer_no_longer_replays(played, pit):
    round_ = next(r for r in played if r.events.filter(kind="twist_taken").exists())
    hand = phh_drawmaha.loads(download(pit, round_))
    flipped = tuple(a.replace(" taken", " rejected") for a in hand.actions)
    with pytest.raises(ValueError, match="deals a card twice"):
        phh_drawmaha.replay(replace(hand, actions=flipped))


def test_phh_replay_names_the_rule_a_tampered_action_breaks(played, pit, tmp_path):
    hand = phh_drawmaha.loads(download(pit, played[-1]))
    dealt = {a.split()[2]: a.split()[3] for a in hand.actions if a.startswith("d dh")}
    draw = next(a for a in hand.actions if " sd " in a)
    player = draw.split()[0]
    foreign = next(cards[:2] for p, cards in dealt.items() if p != player)
    tampered = tuple(
        f"{player} sd {foreign} {draw.split()[3]}" if a == draw else a for a in hand.actions
    )
    path = tmp_path / "broken.phh"
    path.write_text(phh_drawmaha.dumps(replace(hand, actions=tampered)))
    with pytest.raises(CommandError, match=r"rule DM-5"):
        call_command("phh_replay", str(path))
    overbet = tuple(f"{a.split()[0]} cbr 99999999" if " cbr " in a else a for a in hand.actions)
    if overbet != hand.actions:
        with pytest.raises(RuleViolation) as broken:
            phh_drawmaha.replay(replace(hand, actions=overbet))
        assert broken.value.rule.startswith("DM-")


def test_a_hand_in_play_has_no_history_to_download(players, drawmaha_table, settings):
    seat_everyone(drawmaha_table, players, settings)
    round_ = Round.objects.get(table=drawmaha_table, status="deciding")
    response = api_client(players[0]).get(f"/api/v1/drawmaha/hands/{round_.pk}/phh/")
    assert response.status_code == 400
    assert "FS-7" in response.json()["errors"]["hand"][0]


def test_only_the_hands_players_and_staff_download_it(played):
    stranger = make_user("dan", "player")
    assert (
        api_client(stranger).get(f"/api/v1/drawmaha/hands/{played[0].pk}/phh/").status_code == 404
    )


def test_the_readme_example_replays_to_its_finishing_stacks(tmp_path, capsys):
    """The worked PDM example published in the README is a hand the engine accepts."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```toml\n(variant = \"PDM\".*?)```", readme, re.DOTALL)
    assert example is not None
    path = tmp_path / "example.phh"
    path.write_text(example.group(1), encoding="utf-8")
    call_command("phh_replay", str(path))
    assert json.loads(capsys.readouterr().out) == {"finishing_stacks": [10000, 10000]}
