"""Hand histories in the PHH format for Drawmaha, pot limit, under the new variant code ``PDM``
(the PHH standard admits new variants): read (``loads``), write (``dumps``), record a hand the
Drawmaha engine played (``record``) and replay a history through the engine (``replay``).

The fields are pot-limit Omaha's: ``antes`` (zeros), ``blinds_or_straddles`` (each player's
blind), ``min_bet`` (the big blind), ``starting_stacks``, ``actions`` and ``finishing_stacks``;
the table's other facts are user-defined fields: ``_button`` (the button's player index from
0), ``_draw_limit`` (DM-5), ``_rake_percent`` and ``_rake_cap`` (DM-12) besides the casino's
seeds and names. Player N is engine seat N - 1, clockwise; ``seats`` maps them to table seats.

Actions:
- ``d dh pN c1c2c3c4c5``: the player's five cards (DM-2; dealt one at a time from the small
  blind, which the replay restores from ``_button``);
- ``d db cards``: the flop, the turn, the river (DM-4, DM-8);
- ``pN cbr X`` (bet or raise to X, the player's total this street), ``pN cc``, ``pN f``;
- the draw (DM-5), in draw order, as PHH's ``sd``: ``pN sd <discards> <replacements>``, e.g.
  ``p2 sd 7c2d 9hTs``; standing pat ``p2 sd``;
- the twist (DM-6), a one-card exchange: the shown card and the player's answer in a comment,
  the action staying a plain ``sd``: ``p2 sd 7c Kh # twist Kh taken`` (the replacement is the
  twist card) or ``p2 sd 7c 4s # twist Kh rejected`` (the replacement is the next card);
- ``pN sm cards``: the cards shown at the showdown (cards speak, DM-11).

The recorded cards are dealt in the engine's order: the hands, the flop, the draw's cards
(a twist card before its replacement), the turn, the river. Each time the deck runs out (DM-7,
in the draw as often as the counts demand, or for the turn) the muck is reshuffled: the
user-defined field ``_reshuffles`` lists, per reshuffle in turn, the cards it returned in
canonical order (FS-6), e.g. ``_reshuffles = ["2c3h3s4h5h6c8sTcJdKd", "3d7d8h9c9dThTsJs"]``.
A reshuffled deck holds exactly those cards, so the replay knows which recorded cards come
from which deck and puts them on top of it; the engine's own muck must be that set, or the
replay names DM-7.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from games.engine import drawmaha, phh
from games.engine.betting import Action, ActionKind
from games.engine.cards import Card, parse_cards
from games.engine.common import Event, RuleViolation, clockwise
from games.engine.dealer import STANDARD_DECK, Deck
from games.engine.drawmaha import DrawAction, DrawChoice, DrawmahaState, DrawmahaTable, Street
from games.engine.phh import Replay, Step, read_cards
from games.engine.rules import DrawmahaRule

VARIANT = "PDM"


@dataclass(frozen=True, kw_only=True)
class DrawmahaHandHistory(phh.Hand):
    """One PDM hand: the game's fields, its actions, and any other fields as read (``extra``,
    written back unchanged)."""

    game: ClassVar[str] = "Drawmaha"
    game_fields: ClassVar[Mapping[str, phh.FieldReader]] = {
        "antes": phh.read_amounts,
        "blinds_or_straddles": phh.read_amounts,
        "min_bet": phh.read_amount,
    }

    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    min_bet: int
    variant: str = VARIANT


loads = DrawmahaHandHistory.loads  # PHH text to a hand; ValueError if it is not a complete PDM hand
dumps = DrawmahaHandHistory.dumps  # a hand to PHH text


# Recording an engine hand --------------------------------------------------------------------


def record(state: DrawmahaState, events: Iterable[Event]) -> DrawmahaHandHistory:
    """The PHH of a hand the engine played: ``state`` is any state of the hand (its table,
    button and starting stacks are used), ``events`` every event from ``start_hand`` on."""
    players = len(state.starting_stacks)
    blinds = [0] * players
    actions: list[str] = []
    reshuffles: list[str] = []  # DM-7: the cards each reshuffle returned, canonical order
    draws: dict[int, dict[str, Any]] = {}  # by seat: discards, received, twist
    draw_lines: dict[int, int] = {}  # by seat: the index of its sd action

    def write_draw(seat: int) -> None:
        draw = draws[seat]
        line = f"{phh.player(seat)} sd {draw['discards']} {draw['received']}".rstrip()
        if draw["twist"] is not None:
            line += f" # twist {draw['twist']} {draw['answer']}"
        actions[draw_lines[seat]] = line

    for event in events:
        data = event.data
        if event.kind in ("small_blind", "big_blind"):
            blinds[data["seat"]] = data["amount"]
        elif event.kind == "deal":
            actions += phh.deal_lines(data["cards"])
        elif event.kind == "board":
            actions.append(f"d db {''.join(dealt['card'] for dealt in data['cards'])}")
        elif (line := phh.action_line(event)) is not None:  # bets, and cards shown (DM-11)
            actions.append(line)
        elif event.kind == "exchange":
            seat = data["seat"]
            draws[seat] = {"discards": "".join(data["discards"]), "received": "", "twist": None}
            draw_lines[seat] = len(actions)
            actions.append("")
            write_draw(seat)
        elif event.kind == "twist_shown":
            draws[data["seat"]].update(twist=data["card"], answer="?")
        elif event.kind in ("twist_taken", "twist_rejected"):
            seat = data["seat"]
            draws[seat]["answer"] = "taken" if event.kind == "twist_taken" else "rejected"
            if event.kind == "twist_taken":
                draws[seat]["received"] = data["card"]
            write_draw(seat)
        elif event.kind == "replacements":
            seat = data["seat"]
            draws[seat]["received"] += "".join(dealt["card"] for dealt in data["cards"])
            write_draw(seat)
        elif event.kind == "reshuffle":
            reshuffles.append("".join(map(str, sorted(parse_cards(" ".join(data["returned"]))))))
    table = state.table
    rake = table.rake
    return DrawmahaHandHistory(
        antes=(0,) * players,
        blinds_or_straddles=tuple(blinds),
        min_bet=table.big_blind,
        starting_stacks=state.starting_stacks,
        actions=tuple(actions),
        finishing_stacks=state.finishing_stacks,
        extra={
            "_button": state.button,
            "_draw_limit": table.draw_limit,
            "_rake_percent": str(rake.percent),
            **({} if rake.cap is None else {"_rake_cap": rake.cap}),
            **({"_reshuffles": reshuffles} if reshuffles else {}),
        },
    )


# Replaying a history through the engine -------------------------------------------------------


def replay(hand: DrawmahaHandHistory) -> Replay[DrawmahaState]:
    """Play the history through the Drawmaha engine with the cards it records; RuleViolation
    (with the rule) at the first action the rules do not allow, ValueError if the history is
    malformed or its cards are not the ones the engine deals."""
    players = len(hand.starting_stacks)
    table, button = _table(hand)
    steps = [_read_step(text, players) for text in hand.actions]
    dealt = _recorded_cards(steps, players, button)
    reshuffles = _reshuffles(hand)
    deck = Deck.stacked(dealt[: len(STANDARD_DECK)], _reshuffle_tops(dealt, reshuffles))
    state, events = drawmaha.start_hand(table, hand.starting_stacks, button, deck)
    history = list(events)
    twists: list[tuple[int, bool, Step]] = []
    shown: dict[int, tuple[Card, ...]] = {}
    for step in steps:
        if step.seat is None:
            continue
        if step.verb == "sm":
            shown[step.seat] = read_cards(step.args[0], step.text) if step.args else ()
            continue
        state, events = _apply(state, _action(state, step.seat, step), step)
        history += events
        if step.verb == "sd" and step.comment:
            twists.append(_twist(step))
        # DM-6: the twist decisions come once everyone has declared, in draw order.
        while state.street == Street.DRAW and len(state.exchanges) == len(state.draw_order):
            if state.to_act is None:
                break
            if not twists or twists[0][0] != state.to_act:
                raise RuleViolation(
                    f"p{state.to_act + 1} exchanged one card and must take or reject the "
                    "twist card shown (a '# twist CARD taken|rejected' comment)",
                    field="actions",
                    rule=DrawmahaRule.ONE_CARD_TWIST,
                )
            seat, taken, _ = twists.pop(0)
            choice = DrawChoice.TAKE if taken else DrawChoice.REJECT
            state, events = _apply(state, DrawAction(seat, choice), step)
            history += events
    if twists:
        raise RuleViolation(
            f"{twists[0][2].text!r}: no twist card is shown for this draw",
            field="actions",
            rule=DrawmahaRule.ONE_CARD_TWIST,
        )
    _check_cards(history, dealt)
    _check_reshuffles(history, reshuffles)
    for seat, cards in shown.items():
        if state.street != Street.OVER or set(cards) != set(state.hands[seat]):
            raise RuleViolation(
                f"p{seat + 1} shows {''.join(map(str, cards))}, not the hand the rules gave",
                field="actions",
                rule=DrawmahaRule.SHOWDOWN,
            )
    return Replay(state, tuple(history))


def _apply(
    state: DrawmahaState, action: Action | DrawAction, step: Step
) -> tuple[DrawmahaState, list[Event]]:
    try:
        return drawmaha.apply(state, action)
    except RuleViolation:
        raise
    except ValueError as error:
        # Only the stacked deck refuses inside the engine: a reshuffle whose recorded cards
        # are not all in the muck the rules reshuffle.
        raise RuleViolation(
            f"{step.text!r} deals from a reshuffle cards the rules do not reshuffle: {error}",
            field="_reshuffles",
            rule=DrawmahaRule.RESHUFFLE,
        ) from None


def _reshuffles(hand: DrawmahaHandHistory) -> tuple[tuple[Card, ...], ...]:
    """DM-7: the cards each reshuffle returned, as the history lists them in ``_reshuffles``."""
    listed = hand.extra.get("_reshuffles", [])
    if not isinstance(listed, list):
        raise ValueError(f"_reshuffles must be a list of card texts, got {listed!r}")
    reshuffles = tuple(
        read_cards(phh.read_text(cards, "_reshuffles"), "_reshuffles") for cards in listed
    )
    if any(not cards or len(set(cards)) != len(cards) for cards in reshuffles):
        raise ValueError("each reshuffle in _reshuffles returns cards, each once")
    return reshuffles


def _reshuffle_tops(
    dealt: tuple[Card, ...], reshuffles: tuple[tuple[Card, ...], ...]
) -> list[tuple[Card, ...]]:
    """The recorded cards each reshuffled deck deals, in order: a deck holds exactly the cards
    it returned, so the next reshuffle comes once they are dealt (DM-7)."""
    rest = dealt[len(STANDARD_DECK) :]
    tops = []
    for number, returned in enumerate(reshuffles, start=1):
        top, rest = rest[: len(returned)], rest[len(returned) :]
        if not set(top) <= set(returned):
            raise ValueError(
                f"reshuffle {number} deals {''.join(map(str, top))}, not all of which it "
                f"returns ({''.join(map(str, returned))} in _reshuffles)"
            )
        tops.append(top)
    if rest:
        raise ValueError(
            f"the hand history deals {len(rest)} card(s) more than the deck and the "
            "reshuffles in _reshuffles hold (DM-7)"
        )
    return tops


def _check_reshuffles(history: Iterable[Event], reshuffles: tuple[tuple[Card, ...], ...]) -> None:
    done = [
        frozenset(parse_cards(" ".join(event.data["returned"])))
        for event in history
        if event.kind == "reshuffle"
    ]
    if done != [frozenset(cards) for cards in reshuffles]:
        listed = ", ".join("".join(map(str, cards)) for cards in reshuffles) or "none"
        muck = ", ".join("".join(map(str, sorted(cards))) for cards in done) or "none"
        raise RuleViolation(
            f"_reshuffles lists {listed}, but the rules reshuffle {muck}",
            field="_reshuffles",
            rule=DrawmahaRule.RESHUFFLE,
        )


def _table(hand: DrawmahaHandHistory) -> tuple[DrawmahaTable, int]:
    players = len(hand.starting_stacks)
    if any(hand.antes) or len(hand.antes) not in (0, players):
        raise RuleViolation("Drawmaha has no antes", field="antes", rule=DrawmahaRule.TABLE)
    button = hand.extra.get("_button", players - 1 if players > 2 else 0)
    button = phh.read_amount(button, "_button")
    if not 0 <= button < players:
        raise RuleViolation(
            f"the button is one of players 0 to {players - 1}",
            field="_button",
            rule=DrawmahaRule.TABLE,
        )
    posted = [b for b in hand.blinds_or_straddles if b]
    if len(hand.blinds_or_straddles) != players or len(posted) != 2:
        raise RuleViolation(
            "a small and a big blind, one per player",
            field="blinds_or_straddles",
            rule=DrawmahaRule.TABLE,
        )
    small = button if players == 2 else (button + 1) % players
    big = (small + 1) % players
    draw_limit = phh.read_flag(hand.extra, "_draw_limit", default=True)
    table = DrawmahaTable(
        hand.blinds_or_straddles[small],
        hand.blinds_or_straddles[big],
        rake=phh.read_rake(hand.extra),
        draw_limit=draw_limit,
    )
    if hand.min_bet != table.big_blind:
        raise RuleViolation(
            "the minimum bet is the big blind", field="min_bet", rule=DrawmahaRule.POT_LIMIT
        )
    return table, button


def _read_step(text: str, players: int) -> Step:
    step = phh.read_step(text, players)
    if step is None:  # every PDM line acts: a comment only follows an action (a twist's answer)
        raise ValueError(f"cannot read the action {text!r}")
    return step


def _twist(step: Step) -> tuple[int, bool, Step]:
    words = step.comment
    answers = {"taken": True, "rejected": False}
    if len(words) != 3 or words[0] != "twist" or words[2] not in answers:
        raise ValueError(f"{step.text!r}: the comment reads '# twist CARD taken|rejected'")
    if len(step.args) != 2 or len(read_cards(step.args[0], step.text)) != 1:
        raise ValueError(f"{step.text!r}: a twist follows a one-card exchange")
    taken = answers[words[2]]
    if taken and words[1] != step.args[1]:
        raise ValueError(f"{step.text!r}: a taken twist card is the replacement")
    if step.seat is None:
        raise ValueError(f"{step.text!r}: the dealer does not draw")
    return step.seat, taken, step


def _recorded_cards(steps: list[Step], players: int, button: int) -> tuple[Card, ...]:
    """Every card the history shows, in the order the engine deals them (DM-2, DM-4..DM-8)."""
    hands: dict[int, tuple[Card, ...]] = {}
    order: list[Card] = []
    for step in steps:
        if step.receiver is not None:
            hands[step.receiver] = read_cards(step.args[0], step.text)
        elif step.verb == "db":
            order += read_cards(step.args[0], step.text)
        elif step.verb == "sd" and len(step.args) == 2:
            if step.comment:
                _, taken, _ = _twist(step)
                if not taken:
                    order += read_cards(step.comment[1], step.text)
            order += read_cards(step.args[1], step.text)
    if set(hands) != set(range(players)) or any(
        len(cards) != drawmaha.HAND_SIZE for cards in hands.values()
    ):
        raise RuleViolation(
            "every player is dealt five cards (d dh pN c1c2c3c4c5)",
            field="actions",
            rule=DrawmahaRule.DEAL,
        )
    small = button if players == 2 else (button + 1) % players
    seats = clockwise(range(players), small, players)
    first = [hands[seat][n] for n in range(drawmaha.HAND_SIZE) for seat in seats]
    dealt = (*first, *order)
    # Only a reshuffle (DM-7), once the 52 cards are dealt, deals a card again.
    first_deck = dealt[: len(STANDARD_DECK)]
    if len(set(first_deck)) != len(first_deck):
        raise ValueError("the hand history deals a card twice before the deck runs out")
    return dealt


def _check_cards(history: Iterable[Event], recorded: tuple[Card, ...]) -> None:
    dealt: list[str] = []
    for event in history:
        if event.kind in ("deal", "board", "replacements"):
            dealt += [card["card"] for card in event.data["cards"]]
        elif event.kind == "twist_shown":
            dealt.append(event.data["card"])
    if dealt != [str(card) for card in recorded]:
        raise ValueError("the hand history's cards are not the ones the engine deals")


def _action(state: DrawmahaState, seat: int, step: Step) -> Action | DrawAction:
    if step.verb == "sd":
        if len(step.args) > 2:
            raise ValueError(f"cannot read the action {step.text!r}")
        discards = read_cards(step.args[0], step.text) if step.args else ()
        return DrawAction(seat, DrawChoice.EXCHANGE, discards)
    legal = {option.kind for option in drawmaha.legal_actions(state)}
    if step.verb == "cbr" and len(step.args) == 1 and step.args[0].isdigit():
        kind = ActionKind.BET if ActionKind.BET in legal else ActionKind.RAISE
        return Action(seat, kind, int(step.args[0]))
    if step.verb == "cc" and not step.args:
        return Action(seat, ActionKind.CHECK if ActionKind.CHECK in legal else ActionKind.CALL)
    if step.verb == "f" and not step.args:
        return Action(seat, ActionKind.FOLD)
    raise ValueError(f"cannot read the action {step.text!r}")
