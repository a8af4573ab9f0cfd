"""The engine's refusals with numbers in them, over the API in every language: the template from
the catalogues, the amounts written as the language writes money, the actions by their names,
the seats and boxes as the table numbers them, and the code the same in every language. And
every refusal the engine words is a template the catalogues translate, with its facts named."""

from __future__ import annotations

import ast
import re
from decimal import Decimal
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.utils import formats, translation
from rest_framework.test import APIClient

from casino import catalogues
from casino.refusals import Kind
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.models import Table, TableStatus
from games.stud.tasks import STUD as stud
from games.tables.rounds import RoundRefused
from tests.fixtures.drawmaha import to_act as drawmaha_to_act
from tests.fixtures.joker_draw import open_round
from tests.fixtures.stud import to_act as stud_to_act

D = Decimal
LANGUAGES = ("en", "ru", "sv")
ENGINE = Path(catalogues.ROOT, "games", "engine")
PLACEHOLDER = re.compile(r"%\((\w+)\)[sr]")


def worded(language: str, template: str, **facts: object) -> str:
    """The refusal's message as the API words it in ``language``, with its rule."""
    with translation.override(language):
        return translation.gettext(template) % facts


def money(language: str, amount: str) -> str:
    with translation.override(language):
        return formats.number_format(D(amount), 2)


def action(language: str, name: str) -> str:
    with translation.override(language):
        return translation.pgettext("poker action", name)


def client_of(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_box_out_of_order_is_refused_with_its_number(funded_player, three_box_table, language):
    """JD-4: boxes act in order; the refusal names the box whose turn it is."""
    client = client_of(funded_player)
    boxes = [{"box": 1, "ante": "0.30"}, {"box": 2, "ante": "0.30"}]
    opened = open_round(client, three_box_table, boxes, key=f"open-{language}")
    assert opened.status_code == 201, opened.content
    refused = client.post(
        f"/api/v1/joker-draw/rounds/{opened.json()['id']}/actions/",
        {"box": 2, "action": "fold"},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"second-first-{language}",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert refused.status_code == 400, refused.content
    assert refused.json()["code"] == "JD-4"
    expected = worded(language, "box %(box)s acts first: boxes act in order", box=1)
    assert refused.json()["errors"]["box"] == [f"{expected} (JD-4)."]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_stud_completion_to_a_wrong_amount_names_the_amounts_as_money(
    players, stud_table, language
):
    """ST-3: the bring-in player completes to the small bet and nothing else."""
    for number, user in enumerate(players[:2], start=1):
        stud.join(player=user, table=stud_table, seat=number, buy_in=D("60.00"))
    first = stud_to_act(stud_table).player
    client = client_of(first)
    table = client.get(f"/api/v1/stud/tables/{stud_table.pk}/").json()
    complete = next(o for o in table["hand"]["legal_actions"] if o["action"] == "complete")
    too_much = D(complete["min_amount"]) + D("1.00")
    refused = client.post(
        f"/api/v1/stud/tables/{stud_table.pk}/actions/",
        {"action": "complete", "amount": str(too_much)},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"complete-{language}",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert refused.status_code == 400, refused.content
    body = refused.json()
    expected = worded(
        language,
        "%(action)s to %(amount)s is not allowed: only to %(low)s",
        action=action(language, "complete"),
        amount=money(language, str(too_much)),
        low=money(language, complete["min_amount"]),
    )
    assert body["errors"]["amount"] == [f"{expected} ({body['code']})."]
    assert body["code"] == "ST-3"
    if language != "en":
        assert money(language, str(too_much)) in body["detail"]
        assert "." not in money(language, str(too_much))


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_drawmaha_raise_above_the_pot_names_the_range_as_money(
    players, drawmaha_table, language, settings
):
    """DM-9: a raise is from the least full raise up to the pot."""
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 60
    for number, user in enumerate(players[:3], start=1):
        drawmaha.join(player=user, table=drawmaha_table, seat=number, buy_in=D("100.00"))
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 0
    drawmaha.catch_up(drawmaha_table.pk)
    client = client_of(drawmaha_to_act(drawmaha_table).player)
    table = client.get(f"/api/v1/drawmaha/tables/{drawmaha_table.pk}/").json()
    raise_ = next(o for o in table["hand"]["legal_actions"] if o["action"] == "raise")
    over = D(raise_["max_amount"]) + D("0.01")
    refused = client.post(
        f"/api/v1/drawmaha/tables/{drawmaha_table.pk}/actions/",
        {"action": "raise", "amount": str(over)},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"raise-{language}",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert refused.status_code == 400, refused.content
    assert refused.json()["code"] == "DM-9"
    expected = worded(
        language,
        "%(action)s to %(amount)s is not allowed: from %(low)s to %(high)s",
        action=action(language, "raise"),
        amount=money(language, str(over)),
        low=money(language, raise_["min_amount"]),
        high=money(language, raise_["max_amount"]),
    )
    assert refused.json()["errors"]["amount"] == [f"{expected} (DM-9)."]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_seat_at_a_table_closed_meanwhile_is_refused_in_the_players_language(
    players, stud_table, language
):
    """ST-1: a table closed between the page and the seat seats nobody (the API no longer lists
    it; the service refuses under the table's lock), a conflict worded for the reader."""
    Table.objects.filter(pk=stud_table.pk).update(status=TableStatus.CLOSED)
    with translation.override(language), pytest.raises(RoundRefused) as refused:
        stud.join(player=players[0], table=stud_table, seat=1, buy_in=D("60.00"))
    expected = worded(language, "%(table)s is closed.", table=stud_table).rstrip(".")
    assert refused.value.kind == Kind.CONFLICT
    assert refused.value.messages() == {"table": [f"{expected} (ST-1)."]}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_seat_out_of_turn_is_named_by_the_tables_number(players, stud_table, language):
    """ST-3: the engine counts seats from 0 in the hand; the refusal names the table's seats."""
    stud.join(player=players[0], table=stud_table, seat=3, buy_in=D("60.00"))
    stud.join(player=players[1], table=stud_table, seat=6, buy_in=D("60.00"))
    turn = stud_to_act(stud_table)
    waiting = next(u for u in players[:2] if u != turn.player)
    refused = client_of(waiting).post(
        f"/api/v1/stud/tables/{stud_table.pk}/actions/",
        {"action": "bring_in"},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"early-{language}",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert refused.status_code == 400, refused.content
    body = refused.json()
    expected = worded(
        language,
        "seat %(to_act)s acts now, not seat %(acting)s",
        to_act=turn.number,
        acting=9 - turn.number,
    )
    assert body["errors"]["seat"] == [f"{expected} ({body['code']})."]


# Every template of the engine in the catalogues --------------------------------------------


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")


def _templates(call: ast.Call) -> list[str]:
    """The templates a refusal's first argument can be: a literal, or one of several literals
    each marked with `rule_text`; anything else (an f-string, a variable) the catalogues cannot
    read, which fails the test."""
    if _name(call.func) == "OutOfTurn":
        message = next((k.value for k in call.keywords if k.arg == "message"), None)
        branches = [] if message is None else [message]
    else:
        branches = [call.args[0]]
    templates = []
    while branches:
        node = branches.pop()
        if isinstance(node, ast.IfExp):
            branches += [node.body, node.orelse]
        elif isinstance(node, ast.Call) and _name(node.func) == "rule_text":
            branches.append(node.args[0])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            templates.append(node.value)
        else:
            raise AssertionError(f"line {call.lineno}: {ast.unparse(node)} is no template")
    return templates


def engine_refusals() -> list[tuple[str, str, set[str]]]:
    """(where, template, the facts given) of every refusal the player-facing engine raises; the
    hand-history readers (*_phh.py) refuse files, not players."""
    found = []
    for path in sorted(ENGINE.glob("*.py")):
        if path.stem.endswith("_phh"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _name(node.func) in {"RuleViolation", "OutOfTurn"}:
                given = {k.arg for k in node.keywords if k.arg} - {"field", "rule", "message"}
                if _name(node.func) == "OutOfTurn":
                    given = {"to_act", "acting"}
                for template in _templates(node):
                    found.append((f"{path.name}:{node.lineno}", template, given))
    return found


def test_the_engines_refusals_are_templates_with_their_facts_named():
    refusals = engine_refusals()
    assert len(refusals) > 40
    named: dict[str, set[str]] = {}
    for where, template, given in refusals:
        assert set(PLACEHOLDER.findall(template)) <= given, (where, template)
        named.setdefault(where, set()).update(PLACEHOLDER.findall(template))
    # Every fact a refusal gives, one of its templates words.
    for where, _template, given in refusals:
        assert named[where] == given, where


@pytest.mark.parametrize("language", catalogues.LANGUAGES)
def test_every_engine_refusal_is_translated_with_the_same_facts(language):
    with catalogues.po_path(language, "django").open("rb") as file:
        catalogue = read_po(file)
    for where, template, _given in engine_refusals():
        message = catalogue.get(template)
        assert message is not None, (where, template)
        assert message.string, (where, template)
        assert not message.fuzzy, (where, template)
        assert set(PLACEHOLDER.findall(message.string)) == set(PLACEHOLDER.findall(template)), (
            where,
            message.string,
        )
