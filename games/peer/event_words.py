"""What the events of every peer hand say in its history, whichever the game: the betting, the
cards dealt and shown (each viewer sees only the cards they may), and what the house and the pit
record around the play. Each game's ``event_words`` adds its own kinds to these."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_lazy

from games.engine.betting import PeerEvent
from games.peer.hands import UNKNOWN_CARD, HouseEvent
from games.tables.event_words import SeenEvent, Wordings, cards_text, says
from games.tables.hand_names import street_name
from games.tables.voids import PIT_WORDS


def _deal(event: SeenEvent) -> str:
    seen = [
        c
        for c in event.data["cards"]
        if c["card"] != UNKNOWN_CARD and event.may_see(c["seat"], c["card"], c.get("face"))
    ]
    return gettext("%(street)s dealt: %(cards)s.") % {
        "street": street_name(event.data["street"]),
        "cards": cards_text(seen) or "…",
    }


def _show(event: SeenEvent) -> str:
    cards = " ".join(event.data["cards"])
    return gettext("%(who)s shows %(cards)s.") % {**event.values, "cards": cards}


PEER_WORDS: Wordings = {
    PeerEvent.FOLD: says(gettext_lazy("%(who)s folds.")),
    PeerEvent.CHECK: says(gettext_lazy("%(who)s checks.")),
    PeerEvent.CALL: says(gettext_lazy("%(who)s calls %(added)s.")),
    PeerEvent.BRING_IN: says(gettext_lazy("%(who)s brings in for %(amount)s.")),
    PeerEvent.COMPLETE: says(gettext_lazy("%(who)s completes to %(amount)s.")),
    PeerEvent.BET: says(gettext_lazy("%(who)s bets %(amount)s.")),
    PeerEvent.RAISE: says(gettext_lazy("%(who)s raises to %(amount)s.")),
    PeerEvent.UNCALLED_BET_RETURNED: says(
        gettext_lazy("Uncalled bet of %(amount)s returned to %(who)s.")
    ),
    PeerEvent.DEAL: _deal,
    PeerEvent.BURN: None,
    PeerEvent.RESHUFFLE: says(
        gettext_lazy("The deck ran out: the discards are shuffled and dealt on.")
    ),
    PeerEvent.SHOW: _show,
    # The settlement's lines tell the rake and the pots.
    PeerEvent.RAKE: None,
    PeerEvent.POT_AWARDED: None,
    PeerEvent.HAND_OVER: None,
    HouseEvent.HAND_OPENED: None,
    HouseEvent.TIMED_OUT: says(gettext_lazy("%(who)s runs out of time.")),
    HouseEvent.LEFT_TABLE: says(gettext_lazy("%(who)s has left the table.")),
    HouseEvent.SAT_OUT: None,
    **PIT_WORDS,
}
