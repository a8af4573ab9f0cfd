"""Peer hands in play name the sittings dealt in (``seat_ids`` in the stored hand), so that a
stack moves only with its own sitting. A hand in play gets, for each seat number and player,
the sitting that was at the table when the hand was dealt: the latest joined by then."""

from typing import Any

from django.db import migrations

PEER_GAMES = ("seven_card_stud", "drawmaha")


def name_the_sittings(apps: Any, schema_editor: Any) -> None:
    Round = apps.get_model("games", "Round")
    Seat = apps.get_model("games", "Seat")
    in_play = Round.objects.filter(status="deciding", table__game__in=PEER_GAMES)
    for round_ in in_play.iterator():
        hand = round_.engine_state
        if "seat_ids" in hand:
            continue
        hand["seat_ids"] = [
            Seat.objects.filter(
                table_id=round_.table_id,
                number=number,
                player_id=player,
                joined_at__lte=round_.created_at,
            )
            .order_by("-joined_at")
            .values_list("pk", flat=True)[0]
            for number, player in zip(hand["seats"], hand["players"], strict=True)
        ]
        round_.save(update_fields=["engine_state"])


class Migration(migrations.Migration):
    dependencies = [("games", "0008_covered_foreign_key_indexes")]

    operations = [migrations.RunPython(name_the_sittings, migrations.RunPython.noop)]
