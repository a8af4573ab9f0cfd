"""What the admin's rows and titles, the histories and the staff screens call a table's limits,
a round, a seat, a box or a ledger entry: worded in the reader's language, the names and
numbers in it as they are."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.utils import translation

from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import BoxSettlement, Seat, TableLimits
from games.stud.tasks import STUD
from payouts.models import LedgerEntry, PaytableVersion
from tests.fixtures.tables import make_stud_table

# The made names ("Joker 1", "Stud East", the paytables' names, user names), currencies and
# card-free numbers are the same in every language; anything else in Latin letters is English.
LATIN = re.compile(r"[A-Za-z]+")


def english_left(text: str, *names: str) -> list[str]:
    for name in names:
        text = text.replace(name, "")
    return [word for word in LATIN.findall(text) if word not in {"USD", "RTP", "v"}]


@pytest.mark.parametrize("language", ["ru", "sv"])
def test_objects_are_named_in_the_readers_language(language, funded_player, joker_table, pit, pit2):
    opened = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, Decimal("0.30"))]
    ).round
    joker_draw.act(player=funded_player, round_id=opened.pk, box=1, action="fold")
    stud = make_stud_table(pit, pit2, name="Stud East")
    STUD.join(player=funded_player, table=stud, seat=2, buy_in=Decimal("50.00"))
    things = [
        TableLimits.objects.filter(table=joker_table).first(),
        opened,
        BoxSettlement.objects.get(round=opened),
        Seat.objects.get(table=stud),
        LedgerEntry.objects.filter(account__owner=funded_player).first(),
    ]
    names = ("Joker 1", "Stud East", funded_player.username)
    with translation.override("en"):
        english = [str(thing) for thing in things]
    with translation.override(language):
        for thing, in_english in zip(things, english, strict=True):
            worded = str(thing)
            assert worded != in_english
            # Swedish is written in Latin letters too: for it, the wording differs from English.
            if language == "ru":
                assert english_left(worded, *names) == [], worded
        version = PaytableVersion.objects.first()
        if language == "ru":
            assert english_left(str(version), version.paytable.name) == []
