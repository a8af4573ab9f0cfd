"""The API's refusals in Russian, as a player probing the tables gets them (the requests of the
robustness tests: bad amounts, unknown cards, cards not held, boxes and seats out of turn,
wagers the rules do not allow): a word in the Latin alphabet in a refusal is a message someone
forgot to mark, as on the pages (test_pages_in_russian)."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.latin_words import LATIN_WORD, NAMES, NOT_TEXT, names_made
from tests.fixtures.refusals import amount_requests
from tests.fixtures.users import api_client
from tests.fixtures.world import World


def probes(world: World) -> list[tuple[str, str, dict]]:
    """(who, URL, body) of requests the tables refuse."""
    joker = f"/api/v1/joker-draw/rounds/{world.open_round.pk}/actions/"
    stud = f"/api/v1/stud/tables/{world.stud_table.pk}/actions/"
    drawmaha = f"/api/v1/drawmaha/tables/{world.drawmaha_table.pk}/actions/"
    found = [("player", url, body) for url, body, _field in amount_requests(world, "-0.30")]
    found += [("player", url, body) for url, body, _field in amount_requests(world, "1e9")]
    found += [
        ("player", joker, {"box": 1, "action": "exchange", "cards": ["Xx"]}),
        ("player", joker, {"box": 1, "action": "exchange", "cards": ["As", "As"]}),
        ("player", joker, {"box": 1, "action": "exchange", "cards": []}),
        ("player", joker, {"box": 2, "action": "fold"}),
        ("player", joker, {"box": 1, "action": "double"}),
        ("player", joker, {"box": 1, "action": "fold", "cards": ["As"]}),
    ]
    for who in ("player", "other_player"):
        found += [
            (who, stud, {"action": "fold"}),
            (who, stud, {"action": "raise", "amount": "999.00"}),
            (who, stud, {"action": "check", "amount": "1.00"}),
            (who, stud, {"action": "show"}),
            (who, drawmaha, {"action": "exchange", "cards": ["Zz"]}),
            (who, drawmaha, {"action": "take"}),
            (who, drawmaha, {"action": "raise", "amount": "999.00"}),
            (who, drawmaha, {"action": "bet", "amount": "0.01"}),
        ]
    return found


def messages(body: object) -> list[str]:
    if isinstance(body, dict):
        return [m for key, value in body.items() if key != "code" for m in messages(value)]
    if isinstance(body, list):
        return [m for value in body for m in messages(value)]
    return [body] if isinstance(body, str) else []


@pytest.mark.django_db(transaction=False)
def test_the_tables_refusals_in_russian_have_no_english_word(world: World):
    names = {name.lower() for name in names_made(world)}
    english = []
    for number, (who, url, body) in enumerate(probes(world)):
        response = api_client(getattr(world, who)).post(
            url,
            body,
            format="json",
            HTTP_IDEMPOTENCY_KEY=f"probe-{number}",
            HTTP_ACCEPT_LANGUAGE="ru",
        )
        assert 400 <= response.status_code < 500, (url, body, response.content)
        for message in messages(response.json()):
            # What the player sent may come back quoted ("double" is not a choice).
            sent = set(LATIN_WORD.findall(json.dumps(body)))
            words = [
                word
                for word in LATIN_WORD.findall(NOT_TEXT.sub(" ", message))
                if word not in NAMES and word.lower() not in names and word not in sent
            ]
            if words:
                english.append(f"{url} {body}: {message}")
    assert not english, "\n".join(english)
