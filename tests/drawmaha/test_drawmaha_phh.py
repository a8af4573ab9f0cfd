"""Finished Drawmaha hands as PHH files (variant PDM): downloaded from the API, round-tripped
through ``loads``/``dumps``, replayed by ``phh_replay`` to our finishing stacks, with taken and
rejected twists (DM-6) and a draw that runs out twice (DM-7), and tampered histories refused
with their rule."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from games.drawmaha.hand import Hand
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.engine import drawmaha as engine
from games.engine import drawmaha_phh, fairness
from games.engine.cards import parse_cards
from games.engine.common import RuleViolation
from games.engine.fairness import Shoe
from games.models import Round
from games.peer.hands import from_cents
from games.tables.replay import replay_round
from payouts import services as money
from tests.fixtures.drawmaha import (
    hand_of,
    play_passively,
    play_to_the_draw,
    play_with_twists,
    seat_everyone,
    to_act,
)
from tests.fixtures.peer import running
from tests.fixtures.tables import make_drawmaha_table
from tests.fixtures.users import api_client, make_user

D = Decimal


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


def test_every_finished_hand_exports_round_trips_and_replays(played, auditor, tmp_path, capsys):
    twists = set()
    for round_ in played:
        text = download(auditor, round_)  # the seed goes to auditors at once (FS-7b)
        hand = drawmaha_phh.loads(text)
        assert drawmaha_phh.dumps(hand) == text
        assert drawmaha_phh.loads(drawmaha_phh.dumps(hand)) == hand
        state = Hand.from_json(round_.engine_state).state
        assert hand.variant == "PDM"
        assert hand.antes == (0, 0, 0)
        assert hand.finishing_stacks == state.finishing_stacks
        assert hand.extra["_server_seed"] == round_.secret_server_seed()
        assert hand.extra["_commitment"] == round_.commitment
        assert hand.extra["_button"] == state.button
        assert any(" sd" in action for action in hand.actions)
        assert replayed(text, tmp_path, capsys) == list(state.finishing_stacks)
        twists |= {a.rsplit(" ", 1)[1] for a in hand.actions if "# twist" in a}
    assert twists == {"taken", "rejected"}


def test_a_taken_and_a_rejected_twist_replay_to_the_engine_state(played, pit):
    seen = set()
    for round_ in played:
        hand = drawmaha_phh.loads(download(pit, round_))
        state = Hand.from_json(round_.engine_state).state
        result = drawmaha_phh.replay(hand)
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
    hand = drawmaha_phh.loads(download(pit, round_))
    flipped = tuple(a.replace(" taken", " rejected") for a in hand.actions)
    with pytest.raises(ValueError, match="deals a card twice"):
        drawmaha_phh.replay(replace(hand, actions=flipped))


def test_phh_replay_names_the_rule_a_tampered_action_breaks(played, pit, tmp_path):
    hand = drawmaha_phh.loads(download(pit, played[-1]))
    dealt = {a.split()[2]: a.split()[3] for a in hand.actions if a.startswith("d dh")}
    draw = next(a for a in hand.actions if " sd " in a)
    player = draw.split()[0]
    foreign = next(cards[:2] for p, cards in dealt.items() if p != player)
    tampered = tuple(
        f"{player} sd {foreign} {draw.split()[3]}" if a == draw else a for a in hand.actions
    )
    path = tmp_path / "broken.phh"
    path.write_text(drawmaha_phh.dumps(replace(hand, actions=tampered)))
    with pytest.raises(CommandError, match=r"rule DM-5"):
        call_command("phh_replay", str(path))
    overbet = tuple(f"{a.split()[0]} cbr 99999999" if " cbr " in a else a for a in hand.actions)
    if overbet != hand.actions:
        with pytest.raises(RuleViolation) as broken:
            drawmaha_phh.replay(replace(hand, actions=overbet))
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


# DM-7: a draw that runs out of cards -----------------------------------------------------------

SEED = "5e" * 32  # the fixed shuffle of the seven-player hand
DRAWS = (5, 1, 5, 5, 5, 5, 1)  # by draw order: cards exchanged (DM-5); one card is a twist


@pytest.fixture
def seven(pit, pit2, settings, monkeypatch):
    """A hand at a seven-player table without the draw limit (DM-5), shuffled from a fixed
    seed, played through the service: checked to the draw; there the players exchange
    ``DRAWS`` cards, the second rejecting its twist card and the last taking it (DM-6); a bet of
    the least amount on the turn, called; checked down. Returns the settled hand and the cards
    each player set aside, by engine seat."""
    monkeypatch.setattr(fairness, "new_server_seed", lambda: SEED)
    table = make_drawmaha_table(pit, pit2, name="Drawmaha seven", draw_limit=False)
    users = [
        make_user(name, "player") for name in ("ann", "ben", "cal", "dee", "eve", "fay", "gus")
    ]
    for user in users:
        money.deposit(player=user, currency="USD", amount=D("200.00"), reason="cash", by=pit)
    seat_everyone(table, users, settings)
    round_ = running(table)
    play_to_the_draw(table)
    state = hand_of(table).state
    order = state.draw_order
    aside = {seat: state.hands[seat][:count] for seat, count in zip(order, DRAWS, strict=True)}
    while hand_of(table).state.street == engine.Street.DRAW:
        seat = hand_of(table).state.to_act
        kinds = {o.kind.value for o in engine.legal_actions(hand_of(table).state)}
        if "exchange" in kinds:
            body = {"action": "exchange", "cards": [str(card) for card in aside[seat]]}
        else:
            body = {"action": "reject" if seat == order[1] else "take"}
        drawmaha.act(player=to_act(table).player, table=table, **body)
    bet = next(o for o in engine.legal_actions(hand_of(table).state) if o.kind.value == "bet")
    drawmaha.act(
        player=to_act(table).player, table=table, action="bet", amount=from_cents(bet.min_amount)
    )
    play_passively(table)
    round_.refresh_from_db()
    return round_, order, aside


def dealt_by_deck(round_) -> dict[int, list[str]]:
    """The cards the hand dealt, in order, by deck: 0 the first shuffle, k after the k-th
    reshuffle (the audit trail's ``shuffle``)."""
    decks: dict[int, list[str]] = {}
    for event in round_.events.order_by("sequence"):
        if event.kind in ("deal", "board", "replacements"):
            dealt = event.data["cards"]
        elif event.kind == "twist_shown":
            dealt = [event.data]
        else:
            continue
        for card in dealt:
            decks.setdefault(card["shuffle"], []).append(card["card"])
    return decks


def test_a_draw_that_runs_out_twice_reshuffles_the_right_cards_and_replays(
    seven, pit, tmp_path, capsys
):
    """DM-7, FS-6: 14 cards are left after the flop. The first three players take 5, 2 (the
    twist card and the next) and 5, the fourth 2 of its 5: the deck is out, and the muck is
    the first three players' discards and the rejected twist card, 12 cards, without the
    discards of the players still waiting. The fourth gets 3 from it, the fifth 5, the sixth 4:
    out again, and the muck is the fourth and fifth players' discards. The hand downloaded as
    PDM names both reshuffles and replays with phh_replay to the same finishing stacks."""
    round_, order, aside = seven
    state = Hand.from_json(round_.engine_state).state
    assert state.street == engine.Street.OVER
    rejected = state.exchanges[1].twist
    assert state.exchanges[1].twist_taken is False
    assert state.exchanges[6].twist_taken is True
    expected = [
        {*aside[order[0]], *aside[order[1]], rejected, *aside[order[2]]},
        {*aside[order[3]], *aside[order[4]]},
    ]
    reshuffles = round_.events.filter(kind="reshuffle").order_by("sequence")
    assert [set(parse_cards(" ".join(r.data["returned"]))) for r in reshuffles] == expected
    # FS-6: each new deck is exactly those cards, shuffled on by the seed's byte stream.
    frames = dealt_by_deck(round_)
    shoe = Shoe(round_.secret_server_seed(), round_.client_seed, round_.nonce)
    assert frames[0] == [str(card) for card in shoe.deal(52)]
    shoe.reshuffle(expected[0])
    assert frames[1] == [str(card) for card in shoe.deal(12)]  # the whole of the first muck
    shoe.reshuffle(expected[1])
    assert frames[2] == [str(card) for card in shoe.deal(len(frames[2]))]
    assert len(frames[2]) == 1 + 1 + 2  # the sixth player's fifth card, the twist, turn, river

    text = download(pit, round_)
    hand = drawmaha_phh.loads(text)
    assert hand.extra["_reshuffles"] == ["".join(map(str, sorted(cards))) for cards in expected]
    assert sum(1 for action in hand.actions if "# twist" in action) == 2
    stacks = round_.events.get(kind="hand_over").data["stacks"]
    assert len(set(stacks)) > 1  # the turn's bet moved chips
    assert replayed(text, tmp_path, capsys) == stacks == list(state.finishing_stacks)
    replay = drawmaha_phh.replay(hand)
    assert replay.state.exchanges == state.exchanges
    assert replay.state.hands == state.hands
    report = replay_round(round_)
    assert report.ok, report.mismatches


def test_a_history_whose_reshuffle_breaks_dm7_is_refused(seven, pit, tmp_path):
    """A history that lists a waiting player's discard among the reshuffled cards, or that
    deals a player back its own discard from a reshuffle, is refused under DM-7; one that
    does not list its reshuffles cannot say which deck its later cards come from."""
    round_, order, aside = seven
    hand = drawmaha_phh.loads(download(pit, round_))
    first, second = hand.extra["_reshuffles"]
    dealt = dealt_by_deck(round_)
    unused = next(
        second[i : i + 2] for i in range(0, len(second), 2) if second[i : i + 2] not in dealt[2]
    )

    def refused(history) -> str:
        path = tmp_path / "tampered.phh"
        path.write_text(drawmaha_phh.dumps(history))
        with pytest.raises(CommandError) as refusal:
            call_command("phh_replay", str(path))
        return str(refusal.value)

    # The second reshuffle is said to hold the sixth player's discard, still waiting for cards.
    waiting = str(aside[order[5]][0])
    listed = replace(
        hand, extra={**hand.extra, "_reshuffles": [first, second.replace(unused, waiting)]}
    )
    assert "(rule DM-7, field _reshuffles)" in refused(listed)
    # The fourth player gets back its own discard in place of its first card from the muck.
    fourth = f"p{order[3] + 1} sd "
    line = next(a for a in hand.actions if a.startswith(fourth))
    discards, received = line.split()[2:4]
    own = discards[:2]
    from_muck = received[4:6]  # two cards from the old deck, then the first from the muck
    assert from_muck == dealt[1][0]
    actions = tuple(
        f"{fourth}{discards} {received.replace(from_muck, own)}" if a == line else a
        for a in hand.actions
    )
    back = replace(
        hand,
        actions=actions,
        extra={**hand.extra, "_reshuffles": [first.replace(from_muck, own), second]},
    )
    refusal = refused(back)
    assert "cards the rules do not reshuffle" in refusal
    assert own in refusal
    assert "(rule DM-7, field _reshuffles)" in refusal
    unlisted = replace(hand, extra={k: v for k, v in hand.extra.items() if k != "_reshuffles"})
    assert "more than the deck and the reshuffles in _reshuffles hold" in refused(unlisted)
