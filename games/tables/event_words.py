"""A finished hand's history in the player's words. Each game words the kinds of event its hands
record, every kind beside its enum: a small function for each kind (None: a kind the history
does not tell, such as the rake, which the settlement explains), and a page tells a history by
looking each event up in its game's wordings (``PeerTableGame.event_words``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.functional import Promise

# Whether the viewer may see a card dealt to an engine seat (face: stud's "up" or "down").
MaySee = Callable[[int, str, str | None], bool]


@dataclass(frozen=True)
class SeenEvent:
    """An event of a finished hand as its viewer reads it: its facts (``data``), the ``values``
    its message names (the player, as the pages name them, and the amounts in the viewer's
    number format), and the cards the viewer may see: by ``may_see``, and their own
    (``viewer_seats``, engine seats)."""

    data: dict[str, Any]
    values: dict[str, str]
    seat: int | None
    may_see: MaySee
    viewer_seats: frozenset[int]


EventWords = Callable[[SeenEvent], str | None]
# A game's wordings by event kind; None: a kind the history does not tell.
Wordings = Mapping[str, EventWords | None]


def says(message: Promise) -> EventWords:
    """A wording that is ``message`` filled in with the event's facts and values (a card, a
    reason, the player and the amounts in words)."""
    return lambda event: str(message) % {**event.data, **event.values}


def cards_text(cards: Iterable[dict[str, Any]]) -> str:
    """Dealt cards as the history writes them: "As Kd 7c"."""
    return " ".join(c["card"] for c in cards)
