"""What a Drawmaha hand's own events say in its history, beside the peer tables'
(``PEER_WORDS``): the blinds, the board, the draw and its twist (DM-5, DM-6)."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_lazy

from games.engine.drawmaha import DrawmahaEvent
from games.tables.event_words import SeenEvent, Wordings, cards_text, says
from games.tables.hand_names import street_name


def _board(event: SeenEvent) -> str:
    return gettext("%(street)s: %(cards)s.") % {
        "street": street_name(event.data["street"]),
        "cards": cards_text(event.data["cards"]),
    }


def _draw(event: SeenEvent) -> str:
    return gettext("The draw: up to %(count)s cards each.") % {"count": event.data["max_cards"]}


def _exchange(event: SeenEvent) -> str:
    if event.data["count"] == 0:
        return gettext("%(who)s stands pat.") % event.values
    return gettext("%(who)s exchanges %(count)s.") % {**event.values, "count": event.data["count"]}


def _replacements(event: SeenEvent) -> str | None:
    """The cards an exchange gets, told to their player alone."""
    if event.seat not in event.viewer_seats:
        return None
    return gettext("%(who)s gets %(cards)s.") % {
        **event.values,
        "cards": cards_text(event.data["cards"]),
    }


DRAWMAHA_WORDS: Wordings = {
    DrawmahaEvent.SMALL_BLIND: says(gettext_lazy("%(who)s posts the small blind %(amount)s.")),
    DrawmahaEvent.BIG_BLIND: says(gettext_lazy("%(who)s posts the big blind %(amount)s.")),
    DrawmahaEvent.BOARD: _board,
    DrawmahaEvent.DRAW: _draw,
    DrawmahaEvent.EXCHANGE: _exchange,
    DrawmahaEvent.TWIST_SHOWN: says(gettext_lazy("%(who)s is shown the twist card %(card)s.")),
    DrawmahaEvent.TWIST_TAKEN: says(gettext_lazy("%(who)s takes the twist card %(card)s.")),
    DrawmahaEvent.TWIST_REJECTED: says(gettext_lazy("%(who)s rejects the twist card %(card)s.")),
    DrawmahaEvent.REPLACEMENTS: _replacements,
}
