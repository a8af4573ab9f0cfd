"""What a stud hand's own events say in its history, beside the peer tables' (``PEER_WORDS``)."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_lazy

from games.engine.stud import StudEvent
from games.tables.event_words import SeenEvent, Wordings, says


def _bring_in_seat(event: SeenEvent) -> str:
    return gettext("%(who)s has the lowest door card (%(card)s) and brings in.") % {
        **event.values,
        "card": event.data["door_card"],
    }


STUD_WORDS: Wordings = {
    StudEvent.ANTE: says(gettext_lazy("%(who)s posts the ante %(amount)s.")),
    StudEvent.BRING_IN_SEAT: _bring_in_seat,
    StudEvent.COMMON_CARD: says(
        gettext_lazy("Too few cards for everyone: the common card %(card)s (ST-9).")
    ),
    StudEvent.SHOWDOWN: says(gettext_lazy("Showdown.")),
    StudEvent.MUCK: says(gettext_lazy("%(who)s mucks.")),
}
