"""What the players' pages read of the peer hands and the wallet, in the player's words: a
finished stud or Drawmaha hand as its viewer may see it (their own cards, folded ones too;
others' cards only where the hand showed them), its actions in order and every settlement line
explained; the recall's pages; the wallet's entries with the rounds and hands they belong to."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, cast

from django.contrib.auth.models import AnonymousUser, User
from django.core.paginator import Page, Paginator
from django.db.models import QuerySet, Sum
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_lazy

from games import registry
from games.engine.betting import PeerEvent
from games.engine.drawmaha import FLOP_SIZE, HAND_SIZE, DrawmahaEvent, DrawmahaState
from games.engine.stud import StudState
from games.models import Game, Round, RoundStatus, Seat
from games.peer.game import PeerTableGame
from games.peer.hands import HouseEvent, PeerHand, PeerState, from_cents
from games.peer.selectors import (
    awarded_hand,
    peer_dealt_cards,
    pot_name,
    pot_part_name,
    shown_server_seed,
)
from games.stud.serializers import withheld_seats
from games.tables import selectors
from games.tables.event_words import MaySee, SeenEvent
from games.tables.hand_names import hand_name
from games.tables.voids import PitEvent
from payouts.models import LedgerEntry

# The peer games by the name they have in page addresses and in the API's.
PEER_GAMES: dict[str, PeerTableGame] = {
    game.slug: game for game in registry.GAMES if isinstance(game, PeerTableGame)
}
RECALL_PAGE_SIZE = 20
WALLET_PAGE_SIZE = 25


def amount(minor_units: int | Decimal) -> str:
    """Chips in the viewer's locale's number format, with two places."""
    value = from_cents(minor_units) if isinstance(minor_units, int) else minor_units
    return number_format(value, 2)


# A finished hand ------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandSeat:
    """A seat of a hand as its viewer sees it: the cards (None: a card the viewer may not see),
    which of them are face up (stud), what became of it, and the hand it made, named."""

    seat: int
    player: str
    mine: bool
    cards: list[tuple[str | None, bool]]
    folded: bool
    hands: list[str]
    note: str
    starting: str
    finishing: str
    net: Decimal


@dataclass(frozen=True)
class FinishedHand:
    round: Round
    game: str
    label: str
    board: list[str]
    seats: list[HandSeat]
    settlement: list[str]
    actions: list[str]
    viewer_net: Decimal | None
    void_reason: str = ""
    dealt: list[dict[str, Any]] = field(default_factory=list)
    reshuffles: list[dict[str, Any]] = field(default_factory=list)
    server_seed: str | None = None  # as far as the viewer may have it (FS-7b)

    @property
    def dealt_in(self) -> bool:
        """Whether the viewer played the hand."""
        return any(seat.mine for seat in self.seats)

    @property
    def seeds(self) -> dict[str, Any]:
        """What "Verify shuffle" recomputes the deck from (FS-7)."""
        return {
            "server_seed": self.server_seed,
            "commitment": self.round.commitment,
            "client_seed": self.round.client_seed,
            "nonce": self.round.nonce,
        }


def _hidden_seats(
    game: PeerTableGame, round_: Round, hand: PeerHand[PeerState], viewer: Any
) -> frozenset[int]:
    """The engine seats whose unshown cards the viewer may not see: stud's rule (ST-10); at
    Drawmaha every hand still in at the showdown is shown (DM-11), and nothing else is."""
    if game.code == Game.SEVEN_CARD_STUD:
        return withheld_seats(round_, hand, viewer)  # type: ignore[arg-type]
    if selectors.is_staff_member(viewer):
        return frozenset()
    shown = {
        data["seat"]
        for kind, data in round_.events.values_list("kind", "data")
        if kind == PeerEvent.SHOW
    }
    return frozenset(
        seat
        for seat, player in enumerate(hand.players)
        if player != viewer.pk and seat not in shown
    )


def _seat_cards(state: PeerState, seat: int, hidden: bool) -> list[tuple[str | None, bool]]:
    """The seat's cards in dealing order, each with whether it is face up (stud's up cards);
    None for a card the viewer may not see."""
    if isinstance(state, StudState):
        held = state.hands[seat]
        down = [(None if hidden else str(c), False) for c in held.down]
        return down + [(str(c), True) for c in held.up]
    held_cards = cast(DrawmahaState, state).hands[seat]
    return [(None if hidden else str(c), False) for c in held_cards]


def _hand_names(state: PeerState, seat: int) -> list[str]:
    """The seat's final hand, named by the engine's evaluators: stud's best five (HR-3);
    Drawmaha's draw and Omaha readings (DM-11)."""
    if isinstance(state, StudState):
        held = state.hands[seat]
        return [hand_name(state.value(seat))] if len(held.cards) >= HAND_SIZE else []
    drawmaha = cast(DrawmahaState, state)
    if len(drawmaha.hands[seat]) != HAND_SIZE:
        return []
    names = [gettext("Draw: %(hand)s") % {"hand": hand_name(drawmaha.draw_value(seat))}]
    if len(drawmaha.board) >= FLOP_SIZE:
        names.append(gettext("Omaha: %(hand)s") % {"hand": hand_name(drawmaha.omaha_value(seat))})
    return names


def _showdown_note(state: PeerState, seat: int, shown_after: bool) -> str:
    """ST-10: a stud hand mucked at the showdown, or an uncalled winner's shown afterwards."""
    if shown_after:
        return gettext("shown after winning")
    if isinstance(state, StudState) and state.hands[seat].shown is False:
        return gettext("mucked at the showdown")
    return ""


def finished_hand(game: PeerTableGame, round_: Round, viewer: User | AnonymousUser) -> FinishedHand:
    """A stud or Drawmaha hand as ``viewer`` may see it; its settlement and history once it is
    over (while it is played, nothing but its frame: FS-7)."""
    hand = game.load_hand(round_.engine_state)
    state = hand.state
    names = dict(User.objects.filter(pk__in=hand.players).values_list("pk", "username"))
    hidden = _hidden_seats(game, round_, hand, viewer)
    shown_after = set(round_.shown_hands.values_list("seat", flat=True))
    finishing = state.finishing_stacks or tuple(c.stack for c in state.chips)
    seats = []
    for index, (number, player) in enumerate(zip(hand.seats, hand.players, strict=True)):
        seats.append(
            HandSeat(
                seat=number,
                player=names.get(player, ""),
                mine=player == viewer.pk,
                cards=_seat_cards(state, index, index in hidden),
                folded=state.chips[index].folded,
                hands=[] if index in hidden else _hand_names(state, index),
                note=_showdown_note(state, index, number in shown_after),
                starting=amount(state.starting_stacks[index]),
                finishing=amount(finishing[index]),
                net=from_cents(finishing[index] - state.starting_stacks[index]),
            )
        )
    mine = [s.net for s in seats if s.mine]
    over = round_.status != RoundStatus.DECIDING
    events = list(round_.events.order_by("sequence").values_list("kind", "data")) if over else []
    who = _namer(seats)
    dealt: list[dict[str, Any]] = []
    reshuffles: list[dict[str, Any]] = []
    own = _own(hand, viewer)
    may_see = _may_see(state, hidden, own, staff=selectors.is_staff_member(viewer))
    if round_.status == RoundStatus.SETTLED:
        visible = [(kind, _withheld(kind, data, may_see)) for kind, data in events]
        dealt, reshuffles = peer_dealt_cards(round_, visible)
    board = [str(c) for c in state.board] if isinstance(state, DrawmahaState) else []
    if isinstance(state, StudState) and state.common is not None:
        board = [str(state.common)]
    return FinishedHand(
        round=round_,
        game=game.slug,
        label=str(Game(game.code).label),
        board=board,
        seats=seats,
        settlement=settlement_lines(state, events, who) if over else [],
        actions=action_lines(game, events, who, may_see, viewer_seats=own),
        viewer_net=sum(mine, Decimal(0)) if mine and round_.status == RoundStatus.SETTLED else None,
        void_reason=round_.void_reason if round_.status == RoundStatus.VOIDED else "",
        dealt=dealt,
        reshuffles=reshuffles,
        server_seed=shown_server_seed(round_, viewer),
    )


def _may_see(
    state: PeerState, hidden: frozenset[int], own: frozenset[int], *, staff: bool
) -> MaySee:
    """Whether the viewer may see a card dealt to an engine seat (face: stud's "up" or "down").
    Staff see every card. At stud: every face-up card, and the down cards of the seats not
    ``hidden`` (ST-10). At Drawmaha a player shows only the five cards held at the showdown
    (DM-11): the cards exchanged away and folded hands stay unseen."""
    if staff:
        return lambda seat, card, face: True
    if isinstance(state, DrawmahaState):
        shown = {
            seat: {str(c) for c in held}
            for seat, held in enumerate(state.hands)
            if seat not in hidden
        }
        return lambda seat, card, face: seat in own or card in shown.get(seat, ())
    return lambda seat, card, face: face == "up" or seat in own or seat not in hidden


def _withheld(kind: str, data: Any, may_see: MaySee) -> Any:
    """An event without the cards dealt to a seat that the viewer may not see (the board, the
    burns, a common card and a twist card shown face up are everyone's)."""
    if kind == PeerEvent.DEAL:
        cards = [c for c in data["cards"] if may_see(c["seat"], c["card"], c.get("face"))]
        return {**data, "cards": cards}
    if kind == DrawmahaEvent.REPLACEMENTS:
        cards = [c for c in data["cards"] if may_see(data["seat"], c["card"], None)]
        return {**data, "cards": cards}
    return data


def _own(hand: PeerHand[PeerState], viewer: Any) -> frozenset[int]:
    return frozenset(seat for seat, player in enumerate(hand.players) if player == viewer.pk)


def _namer(seats: Sequence[HandSeat]) -> Callable[[int], str]:
    """A player by engine seat, as the pages name them: "Seat 3 (alice)"."""

    def who(index: int) -> str:
        seat = seats[index]
        return gettext("Seat %(seat)s (%(player)s)") % {"seat": seat.seat, "player": seat.player}

    return who


def settlement_lines(
    state: PeerState, events: Iterable[tuple[str, dict[str, Any]]], who: Callable[[int], str]
) -> list[str]:
    """Why every chip moved at the end of the hand, one sentence each: a void, a player out of
    time or gone, an uncalled bet, each pot (or half of one, DM-11) to whom and with what, and
    each pot's rake once (ST-13, DM-12)."""
    lines = []
    timed_out: set[int] = set()
    for kind, data in events:
        if kind == PitEvent.VOIDED:
            lines.append(
                gettext("Voided by the pit: stakes returned (%(reason)s).")
                % {"reason": data["reason"]}
            )
        elif kind == HouseEvent.TIMED_OUT:
            timed_out.add(data["seat"])
        elif kind == PeerEvent.FOLD and data["seat"] in timed_out:
            lines.append(gettext("%(who)s timed out: hand folded.") % {"who": who(data["seat"])})
        elif kind == HouseEvent.LEFT_TABLE:
            lines.append(
                gettext("%(who)s left the table: hand folded.") % {"who": who(data["seat"])}
            )
        elif kind == PeerEvent.UNCALLED_BET_RETURNED:
            lines.append(
                gettext("Uncalled bet of %(amount)s returned to %(who)s.")
                % {"amount": amount(data["amount"]), "who": who(data["seat"])}
            )
        elif kind == PeerEvent.RAKE:
            lines.append(
                gettext("Rake (%(pot)s): %(amount)s.")
                % {"pot": pot_name(data["pot"]), "amount": amount(data["amount"])}
            )
        elif kind == PeerEvent.POT_AWARDED:
            lines += _award_lines(state, data, who)
    return lines


def _award_lines(state: PeerState, data: dict[str, Any], who: Callable[[int], str]) -> list[str]:
    part = data.get("part")
    pot = pot_part_name(data["pot"], part)
    shares = {int(seat): share for seat, share in data["shares"].items()}
    split = len(shares) > 1
    lines = []
    for seat, share in shares.items():
        values = {"pot": pot, "who": who(seat), "amount": amount(share)}
        if data["hand"] is None:
            lines.append(gettext("%(pot)s: %(who)s wins %(amount)s uncontested.") % values)
            continue
        values["hand"] = hand_name(awarded_hand(state, part, seat))
        if split:
            lines.append(
                gettext("%(pot)s: %(who)s wins %(amount)s with %(hand)s (split pot).") % values
            )
        else:
            lines.append(gettext("%(pot)s: %(who)s wins %(amount)s with %(hand)s.") % values)
    return lines


def action_lines(
    game: PeerTableGame,
    events: Iterable[tuple[str, dict[str, Any]]],
    who: Callable[[int], str],
    may_see: MaySee,
    *,
    viewer_seats: frozenset[int],
) -> list[str]:
    """The hand's history in order, in words, with the cards the viewer may see: their own, the
    face-up ones, the board and the hands shown."""
    lines = []
    for kind, data in events:
        seat = data.get("seat") if isinstance(data, dict) else None
        values = {"who": who(seat) if isinstance(seat, int) else "", **_amounts(data)}
        line = _action_line(game, kind, SeenEvent(data, values, seat, may_see, viewer_seats))
        if line:
            lines.append(line)
    return lines


def _amounts(data: Any) -> dict[str, str]:
    if not isinstance(data, dict):
        return {}
    return {key: amount(data[key]) for key in ("amount", "added") if isinstance(data.get(key), int)}


def _action_line(game: PeerTableGame, kind: str, event: SeenEvent) -> str | None:
    """The event in the words its game gives its kind; None for a kind the history keeps quiet."""
    words = game.event_words.get(kind)
    return words(event) if words is not None else None


# Game recall ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecallRow:
    """One round or hand in the recall's list: where and when, how it ended for the viewer, and
    the viewer's own cards."""

    round: Round
    url: str
    title: str
    net: Decimal | None
    cards: list[str]


def recall_page(
    user: User | AnonymousUser, game: str, number: Any, *, sitting: int | None = None
) -> Page[Round]:
    """One page of the user's rounds or hands of a game (its slug), newest first; ``sitting``:
    only the hands of that seat's sitting (one of the user's own)."""
    code = Game.JOKER_DRAW if game == "joker-draw" else PEER_GAMES[game].code
    rounds: QuerySet[Round] = selectors.rounds_for(user, game=code)
    if code == Game.JOKER_DRAW:
        rounds = rounds.annotate(net=Sum("box_settlements__total_result"))
    elif sitting is not None:
        rounds = rounds.filter(engine_state__contains={"seat_ids": [sitting]})
    return Paginator(rounds, RECALL_PAGE_SIZE).get_page(number)


def recall_rows(user: User | AnonymousUser, game: str, rounds: Iterable[Round]) -> list[RecallRow]:
    rows = []
    for round_ in rounds:
        if game == "joker-draw":
            rows.append(
                RecallRow(
                    round_,
                    reverse("play:recall-round", args=[round_.pk]),
                    gettext("Round %(number)s at %(table)s")
                    % {"number": round_.pk, "table": round_.table.name},
                    getattr(round_, "net", None),
                    [],
                )
            )
            continue
        peer = PEER_GAMES[game]
        hand = peer.load_hand(round_.engine_state)
        state = hand.state
        mine = [seat for seat, player in enumerate(hand.players) if player == user.pk]
        finishing = state.finishing_stacks
        net = (
            sum((from_cents(finishing[s] - state.starting_stacks[s]) for s in mine), Decimal(0))
            if finishing is not None and mine
            else None
        )
        cards = [c for seat in mine for c, _ in _seat_cards(state, seat, hidden=False) if c]
        rows.append(
            RecallRow(
                round_,
                reverse("play:recall-hand", args=[game, round_.pk]),
                gettext("Hand %(number)s at %(table)s")
                % {"number": round_.nonce, "table": round_.table.name},
                net,
                cards if round_.status != RoundStatus.DECIDING else [],
            )
        )
    return rows


# The wallet -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class WalletLine:
    entry: LedgerEntry
    url: str | None
    what: str  # the transaction in the viewer's language


# What a round's or a sitting's transaction is, by the last part of its reference.
_ROUND_STEPS = {
    "open": gettext_lazy("antes and BONUS, top payout held"),
    "event": gettext_lazy("during play"),
    "settle": gettext_lazy("settlement"),
    "correction": gettext_lazy("settlement corrected"),
    "void": gettext_lazy("voided"),
}
_SITTING_STEPS = {
    "buy-in": gettext_lazy("buy-in"),
    "rebuy": gettext_lazy("rebuy"),
    "cash-out": gettext_lazy("cash-out"),
}


def wallet_lines(user: User, entries: Iterable[LedgerEntry]) -> list[WalletLine]:
    """The entries with a link to what each belongs to: a joker draw round's stakes and payout
    to the round; a peer table's buy-in, rebuy or cash-out to the hands of that sitting. Each
    says what it is in the viewer's language from its reference (the stored reason is the
    English of the ledger's audit trail); a cage transaction shows the cashier's own reason."""
    entries = list(entries)
    refs = {e.pk: (e.transaction.reference or "").split(":") for e in entries}
    round_ids = {int(r[1]) for r in refs.values() if len(r) > 1 and r[0] == "round"}
    seat_ids = {int(r[1]) for r in refs.values() if len(r) > 1 and r[0] == "seat"}
    rounds = {
        pk: (game, table, nonce, player)
        for pk, game, table, nonce, player in Round.objects.filter(pk__in=round_ids).values_list(
            "pk", "table__game", "table__name", "nonce", "player_id"
        )
    }
    sittings = {
        pk: (game, table, number)
        for pk, game, table, number in Seat.objects.filter(
            pk__in=seat_ids, player=user
        ).values_list("pk", "table__game", "table__name", "number")
    }
    slugs = {peer.code: slug for slug, peer in PEER_GAMES.items()}
    lines = []
    for entry in entries:
        kind, number, step = (refs[entry.pk] + ["", "", ""])[:3]
        url = None
        what = entry.transaction.reason
        if kind == "round" and int(number) in rounds:
            game, table, nonce, player = rounds[int(number)]
            if game == Game.JOKER_DRAW:
                url = reverse("play:recall-round", args=[int(number)])
            elif game in slugs:
                url = reverse("play:recall-hand", args=[slugs[game], int(number)])
            what = gettext("%(table)s, %(round)s: %(step)s") % {
                "table": table,
                "round": (
                    gettext("round %(number)s") % {"number": number}
                    if player
                    else gettext("hand %(number)s") % {"number": nonce}
                ),
                "step": _ROUND_STEPS.get(step, step),
            }
        elif kind == "seat" and int(number) in sittings:
            game, table, seat = sittings[int(number)]
            if game in slugs:
                url = reverse("play:recall") + f"?game={slugs[game]}&sitting={int(number)}"
            what = gettext("%(table)s, seat %(seat)s: %(step)s") % {
                "table": table,
                "seat": seat,
                "step": _SITTING_STEPS.get(step, step),
            }
        lines.append(WalletLine(entry, url, what))
    return lines
