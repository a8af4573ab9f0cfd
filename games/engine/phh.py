"""What every variant's hand history shares in the PHH format (github.com/uoftcprg/phh-std):
the fields and their TOML (read with the standard library's ``tomllib``, amounts exact as
decimals, written with ``tomli-w``), the grammar of an action line, players and card notation,
and what a replay gives. Each variant (``stud_phh``: F7S, ``drawmaha_phh``: PDM) declares its
game's fields and its own actions, records its engine's hands and replays them.

An action line is ``d dh pN cards`` (cards dealt to player N), ``d db cards`` (common cards) or
``pN verb words``; text after `` # `` is a comment, and a comment alone does nothing. Player N is
engine seat N - 1. Cards are written together (``AsTd``), ``??`` for an unknown card. Amounts
are whole minor units, which may be written as decimals with nothing after the point.

A file that is not a hand of the variant is refused with ValueError; the rules a hand breaks are
each variant's to name (RuleViolation).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar, cast

import tomli_w

from games.engine.betting import AGGRESSIVE, ActionKind, Rake
from games.engine.cards import Card, parse_card
from games.engine.common import Event

VARIANTS = {  # the PHH standard's variant codes, to name a file of another game
    "FT": "fixed-limit Texas hold'em",
    "NT": "no-limit Texas hold'em",
    "NS": "no-limit short-deck hold'em",
    "PO": "pot-limit Omaha hold'em",
    "FO/8": "fixed-limit Omaha hold'em high/low eight or better",
    "F7S": "fixed-limit seven-card stud",
    "F7S/8": "fixed-limit seven-card stud high/low eight or better",
    "FR": "fixed-limit razz",
    "N2L1D": "no-limit deuce-to-seven lowball single draw",
    "F2L3D": "fixed-limit deuce-to-seven lowball triple draw",
    "FB": "fixed-limit badugi",
    "PDM": "pot-limit Drawmaha, this casino's own variant",
}
UNKNOWN = "??"  # PHH's unknown card
_PLAYER = re.compile(r"p([1-9][0-9]*)")
FieldReader = Callable[[Any, str], Any]  # a field's value and name to what the hand holds


# The fields of a hand --------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Hand:
    """One hand of a variant: its game's fields (a subclass declares them, each with how it is
    read, in ``game_fields``), the starting stacks, the actions, the finishing stacks once the
    hand is over, and any other fields as read (``extra``, written back unchanged). A subclass
    gives ``variant`` its code as the default."""

    game: ClassVar[str]  # the game's name, for the refusal of another variant's file
    game_fields: ClassVar[Mapping[str, FieldReader]]
    # Fields of ``extra`` that PokerKit writes before the game's.
    written_first: ClassVar[Collection[str]] = ()

    starting_stacks: tuple[int, ...]
    actions: tuple[str, ...]
    finishing_stacks: tuple[int, ...] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    variant: str

    @classmethod
    def loads(cls, text: str) -> Self:
        """Parse PHH text as a hand of this variant; ValueError if it is not TOML, is of another
        variant, or lacks or misstates one of its fields."""
        data = tomllib.loads(text, parse_float=Decimal)  # amounts exact, never binary floats
        written = data.get("variant")
        if written != cls.variant:  # the variant first: another game lacks this one's fields
            raise ValueError(
                f"variant {written!r}{_variant_name(written)} is not {cls.variant} ({cls.game})"
            )
        required = (*cls.game_fields, "starting_stacks", "actions")
        missing = [name for name in required if name not in data]
        if missing:
            raise ValueError(f"the hand history lacks {', '.join(missing)}")
        finishing = data.get("finishing_stacks")
        known = {"variant", *required, "finishing_stacks"}
        return cls(
            **{name: read(data[name], name) for name, read in cls.game_fields.items()},
            starting_stacks=read_amounts(data["starting_stacks"], "starting_stacks"),
            actions=tuple(read_text(action, "actions") for action in data["actions"]),
            finishing_stacks=None
            if finishing is None
            else read_amounts(finishing, "finishing_stacks"),
            extra={key: value for key, value in data.items() if key not in known},
        )

    def dumps(self) -> str:
        """The hand as PHH text: the variant, the game's fields (after the other fields PokerKit
        writes first), the starting stacks and actions, the other fields, and the finishing
        stacks once the hand is over."""
        first = self.written_first
        fields: dict[str, Any] = {
            "variant": self.variant,
            **{key: value for key, value in self.extra.items() if key in first},
            **{name: _toml(getattr(self, name)) for name in self.game_fields},
            "starting_stacks": list(self.starting_stacks),
            "actions": list(self.actions),
            **{key: value for key, value in self.extra.items() if key not in first},
        }
        if self.finishing_stacks is not None:
            fields["finishing_stacks"] = list(self.finishing_stacks)
        return tomli_w.dumps(fields)


def _variant_name(code: Any) -> str:
    name = VARIANTS.get(code) if isinstance(code, str) else None
    return "" if name is None else f" ({name})"


def _toml(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def read_amount(value: Any, name: str) -> int:
    """A field of whole minor units, written as an integer or a decimal number with nothing after
    the point (``50000.0``, as PHH allows); ValueError naming the field and the value if it is
    not."""
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        shown = value if isinstance(value, Decimal) else repr(value)
        raise ValueError(f"{name} must be whole minor units, got {shown}")
    return value


def read_amounts(values: Any, name: str) -> tuple[int, ...]:
    """A field listing whole minor units; ValueError naming the field if it is not."""
    if not isinstance(values, list):
        raise ValueError(f"{name} must be a list of whole minor units, got {values!r}")
    return tuple(read_amount(value, name) for value in values)


def read_text(value: Any, name: str) -> str:
    """A text field; ValueError naming the field if it is not."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text, got {value!r}")
    return value


def read_flag(extra: Mapping[str, Any], name: str, default: bool) -> bool:
    """A user-defined field that is true or false, ``default`` when absent; ValueError if it is
    anything else."""
    value = extra.get(name, default)
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def read_rake(extra: Mapping[str, Any]) -> Rake:
    """The rake rule (ST-13, DM-12) a history names in the user-defined fields the casino exports
    (``_rake_percent``, ``_rake_cap``); none for a history without them."""
    if "_rake_percent" not in extra:
        return Rake()
    cap = extra.get("_rake_cap")
    return Rake(
        Decimal(str(extra["_rake_percent"])), None if cap is None else read_amount(cap, "_rake_cap")
    )


# Writing the actions of an engine hand ----------------------------------------------------------


def player(seat: int) -> str:
    """The PHH name (pN) of the player in engine seat ``seat``."""
    return f"p{seat + 1}"


def deal_lines(dealt: Iterable[Mapping[str, Any]]) -> list[str]:
    """The ``d dh`` actions of a deal event's cards: one a player, in seat order, with every card
    the deal gave that player."""
    by_seat: dict[int, str] = {}
    for card in dealt:
        by_seat[card["seat"]] = by_seat.get(card["seat"], "") + card["card"]
    return [f"d dh {player(seat)} {cards}" for seat, cards in sorted(by_seat.items())]


def action_line(event: Event) -> str | None:
    """The PHH action of a betting decision (``cbr`` to an amount, ``cc``, ``f``) or a showdown
    choice (``sm`` with the cards shown, or without any: a muck); None for any other event."""
    data = event.data
    if event.kind in AGGRESSIVE:
        return f"{player(data['seat'])} cbr {data['amount']}"
    if event.kind in (ActionKind.CHECK, ActionKind.CALL):
        return f"{player(data['seat'])} cc"
    if event.kind == ActionKind.FOLD:
        return f"{player(data['seat'])} f"
    if event.kind == ActionKind.SHOW:
        return f"{player(data['seat'])} sm {''.join(data['cards'])}"
    if event.kind == ActionKind.MUCK:
        return f"{player(data['seat'])} sm"
    return None


# Reading the actions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One action read: ``seat`` acts (None: the dealer, ``d``), ``verb`` and ``args`` are the
    words before any comment, ``comment`` the player's words after it; the dealer's ``dh`` deals
    ``args[0]`` to ``receiver`` (None: common cards, ``db``)."""

    seat: int | None
    verb: str
    args: tuple[str, ...]
    text: str
    comment: tuple[str, ...] = ()
    receiver: int | None = None


def read_step(text: str, players: int) -> Step | None:
    """The step an action line takes among ``players``; None for a comment alone (PHH's no-op,
    such as a note on a card exposed), ValueError for a line the grammar does not allow."""
    words = text.split()
    comment: list[str] = []
    if "#" in words:  # a comment follows
        at = words.index("#")
        words, comment = words[:at], words[at + 1 :]
    if not words:
        return None
    if len(words) == 4 and words[:2] == ["d", "dh"]:
        return Step(None, "dh", (words[3],), text, receiver=read_seat(words[2], players, text))
    if len(words) == 3 and words[:2] == ["d", "db"]:
        return Step(None, "db", (words[2],), text)
    if len(words) < 2:
        raise ValueError(f"cannot read the action {text!r}")
    seat = read_seat(words[0], players, text)
    return Step(seat, words[1], tuple(words[2:]), text, tuple(comment))


def read_seat(label: str, players: int, text: str) -> int:
    """The seat of player ``label`` (pN is seat N - 1) in the action ``text``."""
    match = _PLAYER.fullmatch(label)
    if match is None or not 1 <= int(match[1]) <= players:
        raise ValueError(f"cannot read the action {text!r}: no player {label!r}")
    return int(match[1]) - 1


def read_cards(text: str, action: str) -> tuple[Card, ...]:
    """The cards written in ``text`` (such as AsTd) of ``action``, a show or a draw: every one
    known (no ??)."""
    cards = read_dealt(text, action)
    if None in cards:
        raise ValueError(f"{action!r}: the cards a player shows or draws are known, not ??")
    return cast(tuple[Card, ...], cards)


def read_dealt(text: str, action: str) -> tuple[Card | None, ...]:
    """The cards written in ``text`` of ``action``; None for an unknown card (PHH's ``??``)."""
    try:
        return tuple(
            None if text[i : i + 2] == UNKNOWN else parse_card(text[i : i + 2])
            for i in range(0, len(text), 2)
        )
    except ValueError as error:
        raise ValueError(f"{action!r}: {error}") from None


# What a replay gives ----------------------------------------------------------------------------


class _Finishing(Protocol):
    @property
    def finishing_stacks(self) -> tuple[int, ...] | None: ...


State = TypeVar("State", bound=_Finishing)


@dataclass(frozen=True)
class Replay(Generic[State]):
    """A history played through a variant's engine: the state it ends in and every event."""

    state: State
    events: tuple[Event, ...]

    @property
    def finishing_stacks(self) -> tuple[int, ...]:
        stacks = self.state.finishing_stacks
        if stacks is None:
            raise ValueError("the hand history ends before the hand is over")
        return stacks
