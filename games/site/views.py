"""The players' pages. They render what the selectors and the API's own serializers give; the
tables themselves play through the JSON API from the page's script, so the page refuses
exactly what the API refuses."""

from __future__ import annotations

from typing import Any, cast

from asgiref.sync import sync_to_async
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser, User
from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.utils.translation import gettext as _

from casino.http.permissions import acting_user
from games import registry
from games.joker_draw import explain
from games.joker_draw.selectors import dealt_cards, paytables_in_force
from games.joker_draw.serializers import round_json
from games.models import Game, Table, TableLimits
from games.peer.game import PeerTableGame
from games.peer.selectors import peer_dealt_cards
from games.tables import live, selectors
from games.tables.serializers import TableSerializer
from payouts import selectors as money
from payouts.models import Currency

# The peer games by the name they have in page addresses and in the API's.
PEER_GAMES: dict[str, PeerTableGame] = {
    game.slug: game for game in registry.GAMES if isinstance(game, PeerTableGame)
}
RECALL_SIZE = 20
WALLET_ENTRIES = 50


def _limits_in_force(table: Table | None) -> TableLimits | None:
    """The table's latest approved limits, from what `tables_for` prefetched (newest first)."""
    return next(iter(getattr(table, "approved_limits", [])), None)


def _table(request: HttpRequest, pk: int, game: str) -> tuple[Table, TableLimits]:
    table = selectors.tables_for(request.user, game=game).filter(pk=pk).first()
    limits = _limits_in_force(table)
    if table is None or limits is None:
        raise Http404("No such table.")
    return table, limits


def _limits_shown(table: Table) -> list[tuple[str, Any]]:
    """The limits in force as the API shows them, labelled for people."""
    limits = TableSerializer(table).data["limits"]
    return [(name.replace("_", " "), value) for name, value in limits.items()]


@login_required
def lobby(request: HttpRequest) -> HttpResponse:
    """Tables by game with their stakes in words and who is at them, and the player's balance.
    The house's settings (RTP bands, timers, paytable names) are not a player's business."""
    tables = list(selectors.tables_for(request.user))
    players = selectors.players_at_tables()
    games = [
        {
            "label": label,
            "game": game,
            "rules": RULES_SLUGS[game],
            "tables": [
                {
                    "table": table,
                    "limits": _limits_in_force(table),
                    "players": players.get(table.pk, 0),
                }
                for table in tables
                if table.game == game
            ],
        }
        for game, label in Game.choices
    ]
    return render(
        request,
        "play/lobby.html",
        {"games": games, "wallets": money.wallets_of(acting_user(request))},
    )


# The rules pages by the name they have in page addresses, and the game each explains.
RULES: dict[str, str] = {
    "joker-draw": Game.JOKER_DRAW,
    "stud": Game.SEVEN_CARD_STUD,
    "drawmaha": Game.DRAWMAHA,
}
RULES_SLUGS: dict[str, str] = {game: slug for slug, game in RULES.items()}


def rules(request: HttpRequest, game: str) -> HttpResponse:
    """A game's rules in our own words, open to anyone: nothing on them is secret."""
    if game not in RULES:
        raise Http404("No such game.")
    return render(
        request,
        f"play/rules/{RULES[game]}.html",
        {"label": Game(RULES[game]).label, "rules": RULES_SLUGS},
    )


@login_required
def wallet(request: HttpRequest) -> HttpResponse:
    user = acting_user(request)
    currency = request.GET.get("currency", Currency.USD)
    if currency not in Currency.values:
        raise Http404(f"No wallet currency {currency!r}.")
    return render(
        request,
        "play/wallet.html",
        {
            "wallets": money.wallets_of(user),
            "currency": currency,
            "entries": money.wallet_entries(user, currency)[:WALLET_ENTRIES],
        },
    )


@login_required
def recall(request: HttpRequest) -> HttpResponse:
    """The player's last rounds and hands (staff and auditors: everyone's)."""
    return render(
        request,
        "play/recall.html",
        {
            "rounds": selectors.rounds_for(request.user, game=Game.JOKER_DRAW)[:RECALL_SIZE],
            "stud_hands": selectors.rounds_for(request.user, game=Game.SEVEN_CARD_STUD)[
                :RECALL_SIZE
            ],
            "drawmaha_hands": selectors.rounds_for(request.user, game=Game.DRAWMAHA)[:RECALL_SIZE],
        },
    )


@login_required
def recall_round(request: HttpRequest, pk: int) -> HttpResponse:
    """One joker draw round with every card and amount; once settled, its seeds and the cards'
    deck positions for the page to verify the shuffle (FS-7)."""
    round_ = selectors.rounds_for(request.user, game=Game.JOKER_DRAW).filter(pk=pk).first()
    if round_ is None:
        raise Http404("No such round.")
    dealt = [{"position": p, "card": c} for p, c in dealt_cards(round_)]
    return render(
        request,
        "play/recall_round.html",
        {
            "round": round_,
            "round_json": round_json(round_, request.user),
            "dealt": dealt,
            "reshuffles": [],  # a joker draw round is dealt from one shuffle (JD-1)
        },
    )


@login_required
def recall_hand(request: HttpRequest, game: str, pk: int) -> HttpResponse:
    """One stud or Drawmaha hand: what the commitment publishes while it is played; once it is
    over, its whole history and every card's shuffle and deck position, to verify (FS-7)."""
    if game not in PEER_GAMES:
        raise Http404("No such game.")
    peer = PEER_GAMES[game]
    hand = selectors.rounds_for(request.user, game=peer.code).filter(pk=pk).first()
    if hand is None:
        raise Http404("No such hand.")
    shown, visible = peer.recall(hand, request.user)
    dealt, reshuffles = peer_dealt_cards(hand, visible)
    return render(
        request,
        "play/recall_hand.html",
        {
            "hand": hand,
            "hand_json": shown,
            "game": game,
            "label": Game(peer.code).label,
            "dealt": dealt,
            "reshuffles": reshuffles,
        },
    )


@login_required
def joker_draw_table(request: HttpRequest, pk: int) -> HttpResponse:
    """The joker draw table: the felt the script deals on, the stakes' limits, the paytables
    in force beside it and the seed pair's commitment (FS-2)."""
    table, limits = _table(request, pk, Game.JOKER_DRAW)
    return render(
        request,
        "play/joker_draw.html",
        {
            "table": table,
            "limits": limits,
            "boxes": range(1, (limits.boxes_per_round or 1) + 1),
            "paytables": [
                {
                    "kind": paytable.kind,
                    "version": paytable.version.number,
                    "lines": [
                        (explain.line_name(line), explain.odds(odds))
                        for line, odds in paytable.lines
                    ],
                }
                for paytable in paytables_in_force(limits)
            ],
        },
    )


@login_required
def peer_table(request: HttpRequest, game: str, pk: int) -> HttpResponse:
    if game not in PEER_GAMES:
        raise Http404("No such game.")
    table, limits = _table(request, pk, PEER_GAMES[game].code)
    return render(
        request,
        "play/peer_table.html",
        {
            "table": table,
            "limits": limits,
            "limits_shown": _limits_shown(table),
            "game": game,
            "label": table.get_game_display(),
        },
    )


@login_required
async def table_events(request: HttpRequest, pk: int) -> HttpResponseBase:
    """Server-sent events: a notice each time the table changes; the page then re-fetches the
    table from the API, which decides what this viewer may see. A notice names the table and
    nothing else. Served asynchronously (``scripts/serve.sh``): an open stream holds no request
    thread (under a WSGI server, as the tests' live server, it holds one), and a user holds at
    most ``LIVE_STREAMS_PER_USER`` at once (429 beyond)."""
    user = cast(User, await request.auser())  # signed in: login_required
    if not await sync_to_async(_may_watch)(user, pk):
        raise Http404("No such table.")
    if not await live.open_stream(user.pk):
        return HttpResponse(
            _("Too many live tables open at once: close one and reload this page."),
            status=429,
            content_type="text/plain; charset=utf-8",
        )
    events = live.counted(user.pk, live.stream(pk))
    response = StreamingHttpResponse(
        events if isinstance(request, ASGIRequest) else live.blocking(events),
        content_type="text/event-stream",
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy in front must not hold the notices back
    return response


def _may_watch(user: User | AnonymousUser, pk: int) -> bool:
    """Whether the table is one the user may see. A stream lasts minutes and needs no database:
    the connection is given back here, on the thread that holds it (inside a transaction, as in
    a test, it is kept)."""
    visible = selectors.tables_for(user).filter(pk=pk).exists()
    if not connection.in_atomic_block:
        connection.close()
    return visible


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "site/home.html")
