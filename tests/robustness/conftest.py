"""A casino in mid-play for the robustness tests: funded players, an unfinished joker draw round,
a settled one, and running seven-card stud and Drawmaha hands, with the secrets each hides."""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token

from games.drawmaha import services as drawmaha
from games.engine import fairness
from games.engine import joker_draw as joker_engine
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import Round, RoundStatus, Table
from games.stud import services as stud
from payouts import services as money
from payouts.models import PaytableVersion

D = Decimal


@dataclass
class World:
    """Who and what is in play, and the text no one else may see."""

    player: User
    other_player: User
    pit: User
    pit2: User
    auditor: User
    admin_user: User
    joker_table: Table
    stud_table: Table
    drawmaha_table: Table
    open_round: Round  # the player's unfinished joker draw round
    settled_round: Round  # the other player's finished joker draw round
    stud_hand: Round
    drawmaha_hand: Round
    secrets: dict[str, Secrets] = field(default_factory=dict)  # by viewer

    def token(self, user: User) -> str:
        return Token.objects.get_or_create(user=user)[0].key


@dataclass(frozen=True)
class Secrets:
    """What one viewer must never see: seeds as text, hidden cards as runs of cards."""

    words: tuple[str, ...]
    runs: tuple[tuple[str, ...], ...]

    def __add__(self, other: Secrets) -> Secrets:
        return Secrets(self.words + other.words, self.runs + other.runs)


_CARD = re.compile(r"JK|[2-9TJQKA][cdhs]")
# What may stand between two cards written out one after another: JSON or Python list
# punctuation, spaces, or the HTML tags around each card on a page.
_BETWEEN_CARDS = re.compile(r"""(?:[\s,'"]|<[^<>]{0,60}>)*""")


def card_runs(text: str) -> list[tuple[str, ...]]:
    """The cards a text writes out one after another, as runs."""
    runs: list[tuple[str, ...]] = []
    run: list[str] = []
    end = 0
    for card in _CARD.finditer(text):
        if run and not _BETWEEN_CARDS.fullmatch(text, end, card.start()):
            runs.append(tuple(run))
            run = []
        run.append(card.group())
        end = card.end()
    if run:
        runs.append(tuple(run))
    return runs


def leaks(text: str, secrets: Secrets) -> list[str]:
    """The secrets a text gives away: a seed, or a hidden run of cards in order.

    A run of five cards or more (a hand, a stretch of the deck) counts wherever it is written;
    a shorter one (stud's two down cards) only written alone, since two given cards follow
    each other by chance in the public cards of finished rounds.
    """
    found = [word for word in secrets.words if word in text]
    written = card_runs(text)
    whole = set(written)
    lengths = {len(run) for run in secrets.runs if len(run) >= 5}
    within = {run[i : i + n] for run in written for n in lengths for i in range(len(run) - n + 1)}
    return found + [
        " ".join(run) for run in secrets.runs if run in (within if len(run) >= 5 else whole)
    ]


def cards(values: Iterable[object]) -> tuple[str, ...]:
    return tuple(str(card) for card in values)


def deck_windows(round_: Round, *, jokers: int) -> tuple[tuple[str, ...], ...]:
    """Every run of five cards in the round's deck order (FS-5)."""
    order = cards(
        fairness.deck_order(
            round_.secret_server_seed(), round_.client_seed, round_.nonce, jokers=jokers
        )
    )
    return tuple(order[i : i + 5] for i in range(len(order) - 4))


def _secrets(world: World) -> dict[str, Secrets]:
    """Per viewer: what that viewer must never see (their own cards are theirs)."""
    player, other = world.player, world.other_player
    joker_state = joker_engine.from_json(world.open_round.engine_state)
    box_cards = Secrets((), tuple(cards(box.cards) for box in joker_state.boxes))
    stud_hand = stud.Hand.from_json(world.stud_hand.engine_state)
    dm_hand = drawmaha.Hand.from_json(world.drawmaha_hand.engine_state)

    def down_cards(user: User) -> Secrets:
        stud_down = stud_hand.state.hands[stud_hand.players.index(user.pk)].down
        dm_cards = dm_hand.state.hands[dm_hand.players.index(user.pk)]
        return Secrets((), (cards(stud_down), cards(dm_cards)))

    rounds = (world.open_round, world.stud_hand, world.drawmaha_hand)
    seeds_and_decks = Secrets(
        tuple(r.secret_server_seed() for r in rounds),
        deck_windows(world.open_round, jokers=1)
        + deck_windows(world.stud_hand, jokers=0)
        + deck_windows(world.drawmaha_hand, jokers=0),
    )
    return {
        # The owner sees their own cards but never the seed or the deck before the end (FS-7).
        player.username: seeds_and_decks + down_cards(other),
        other.username: seeds_and_decks + box_cards + down_cards(player),
        "staff": seeds_and_decks + box_cards + down_cards(player) + down_cards(other),
    }


@pytest.fixture
def world(
    player,
    other_player,
    pit,
    pit2,
    auditor,
    admin_user,
    joker_table,
    stud_table,
    drawmaha_table,
    monkeypatch,
) -> World:
    # Fixed shuffles: the leak checks then see the same cards on every run, never a chance match.
    seeds = (hashlib.sha256(f"world {n}".encode()).hexdigest() for n in itertools.count())
    monkeypatch.setattr(fairness, "new_server_seed", lambda: next(seeds))
    for user in (player, other_player):
        money.deposit(player=user, currency="USD", amount=D("500.00"), reason="cash", by=pit)
    settled = joker_draw.open_round(
        player=other_player, table=joker_table, boxes=[BoxRequest(box=1, ante=D("0.30"))]
    ).round
    joker_draw.act(player=other_player, round_id=settled.pk, box=1, action="fold")
    settled.refresh_from_db()
    open_round = joker_draw.open_round(
        player=player,
        table=joker_table,
        boxes=[BoxRequest(box=1, ante=D("0.60"), bonus=D("0.30"))],
    ).round
    for service, table in ((stud, stud_table), (drawmaha, drawmaha_table)):
        service.join(player=player, table=table, seat=1, buy_in=D("100.00"))
        service.join(player=other_player, table=table, seat=2, buy_in=D("100.00"))
    hands = {r.table_id: r for r in Round.objects.filter(status=RoundStatus.DECIDING, player=None)}
    built = World(
        player=player,
        other_player=other_player,
        pit=pit,
        pit2=pit2,
        auditor=auditor,
        admin_user=admin_user,
        joker_table=joker_table,
        stud_table=stud_table,
        drawmaha_table=drawmaha_table,
        open_round=open_round,
        settled_round=settled,
        stud_hand=hands[stud_table.pk],
        drawmaha_hand=hands[drawmaha_table.pk],
    )
    built.secrets = _secrets(built)
    return built


@pytest.fixture
def sample_ids(world) -> dict[str, int]:
    """Real ids for the URL patterns' parameters, by what the route names."""
    limits = world.stud_table.active_limits()
    assert limits is not None
    version = PaytableVersion.objects.order_by("pk").first()
    assert version is not None
    return {
        "joker-draw-round": world.open_round.pk,
        "joker-draw-table": world.joker_table.pk,
        "stud-table": world.stud_table.pk,
        "drawmaha-table": world.drawmaha_table.pk,
        "stud-hand": world.stud_hand.pk,
        "drawmaha-hand": world.drawmaha_hand.pk,
        "limits": limits.pk,
        "paytable": version.paytable_id,
        "paytable-version": version.pk,
    }
