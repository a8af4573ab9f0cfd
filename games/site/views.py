"""The players' pages. They render what the selectors and the API's own serializers give; the
tables themselves play through the JSON API from the page's script, so the page refuses
exactly what the API refuses."""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import urlencode

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser, User
from django.core.handlers.asgi import ASGIRequest
from django.core.paginator import Paginator
from django.db import connection, transaction
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from casino.frame import plays_at_tables
from casino.http import tokens
from casino.http.permissions import acting_user
from casino.reports_database import reports_source, said
from casino.whole_numbers import whole_number
from games.joker_draw import explain, strategy_card
from games.joker_draw.selectors import dealt_cards, no_game_odds_in_force, paytables_in_force
from games.joker_draw.serializers import round_json
from games.models import Game, Round, Table, TableLimits
from games.peer.game import PeerTableGame
from games.peer.selectors import own_sitting
from games.site import selectors as pages
from games.site.selectors import PEER_GAMES, WALLET_PAGE_SIZE
from games.tables import live, selectors
from games.tables.serializers import TableSerializer
from payouts import selectors as money
from payouts.models import Currency
from payouts.protection import conduct
from payouts.protection import limits as protection
from payouts.protection.forms import LimitsForm
from payouts.protection.limits import LimitRequestRefused
from payouts.protection.statement import statement as account_statement
from payouts.protection.statement_forms import StatementPeriodForm


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
        {
            "games": games,
            "wallets": money.wallets_of(acting_user(request)),
            "on_break": conduct.exclusion_in_force(acting_user(request)),
        },
    )


# The rules pages by the name they have in page addresses, and the game each explains.
RULES: dict[str, str] = {
    "joker-draw": Game.JOKER_DRAW,
    "stud": Game.SEVEN_CARD_STUD,
    "drawmaha": Game.DRAWMAHA,
}
RULES_SLUGS: dict[str, str] = {game: slug for slug, game in RULES.items()}


def rules(request: HttpRequest, game: str) -> HttpResponse:
    """A game's rules in our own words, open to anyone: nothing on them is secret. Joker draw's
    page adds the strategy card of the bet paytable in force at each table the visitor may
    see, or at the one table of ``?table=``."""
    if game not in RULES:
        raise Http404("No such game.")
    context: dict[str, Any] = {"label": Game(RULES[game]).label, "rules": RULES_SLUGS}
    if RULES[game] == Game.JOKER_DRAW:
        # JD-11a: the house prices the no-game payment; say what the tables pay now.
        no_game = no_game_odds_in_force()
        context["no_game"] = no_game[0] if len(no_game) == 1 else None
        context["no_game_odds"] = ", ".join(explain.odds(odds) for odds in no_game)
        tables = selectors.tables_for(request.user, game=Game.JOKER_DRAW)
        if "table" in request.GET:
            tables = tables.filter(pk=whole_number(request.GET["table"]) or 0)
            if not tables:
                raise Http404("No such table.")
        context["cards"] = strategy_card.cards_in_force(
            (table.name, limits)
            for table in tables
            if (limits := _limits_in_force(table)) is not None
        )
    return render(request, f"play/rules/{RULES[game]}.html", context)


@login_required
def limits(request: HttpRequest) -> HttpResponse:
    """The player's own limits: what binds now, what waits out the cooling-off and until when,
    how much of each is used (with the notice at 80%), and a form to change them. Staff and
    auditors set no limits, for themselves or for a player."""
    user = acting_user(request)
    if not plays_at_tables(user):
        return render(request, "play/limits.html", {"form": None})
    form = LimitsForm(request.POST or None, states=protection.limits_of(user))
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                changed = form.save(user)
        except LimitRequestRefused as refused:
            form.add_error(None, refused.message)
        else:
            if changed:
                messages.success(request, _("Your limits are saved."))
            return redirect("play:limits")
    return render(
        request,
        "play/limits.html",
        {
            "form": form,
            "cooling_off_hours": settings.PROTECTION_COOLING_OFF_HOURS,
            "zone": settings.CASINO_TIME_ZONE,
        },
    )


@login_required
def devices(request: HttpRequest) -> HttpResponse:
    """The API tokens in force on the user's devices, each with a button that revokes it. A
    token of another user is not the user's to revoke: 404."""
    user = acting_user(request)
    if request.method == "POST":
        pk = request.POST.get("token", "")
        if not pk.isdigit() or not tokens.tokens_in_force(user).filter(pk=pk).delete()[0]:
            raise Http404("No such token.")
        messages.success(request, _("The device is signed out of the API."))
        return redirect("play:devices")
    return render(request, "play/devices.html", {"tokens": tokens.tokens_in_force(user)})


@login_required
def wallet(request: HttpRequest) -> HttpResponse:
    """The player's balances and, paged, the entries of one currency, each linked to the round
    or the hands it belongs to."""
    user = acting_user(request)
    currency = request.GET.get("currency", Currency.USD)
    if currency not in Currency.values:
        raise Http404(f"No wallet currency {currency!r}.")
    entries = Paginator(money.wallet_entries(user, currency), WALLET_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "play/wallet.html",
        {
            "wallets": money.wallets_of(user),
            "currency": currency,
            "entries": entries,
            "lines": pages.wallet_lines(user, entries),
            "query": urlencode({"currency": currency}),
        },
    )


@login_required
def statement(request: HttpRequest) -> HttpResponse:
    """The player's own account statement for a chosen period of gaming days: per currency the
    totals and a row per day (per month over longer periods), and the same as CSV (the API's)."""
    form = StatementPeriodForm(request.GET)
    day = {"starts_at": settings.GAMING_DAY_STARTS_AT}
    if not form.is_valid():
        return render(request, "play/statement.html", {"form": form, **day}, status=400)
    first, last = form.period()
    period = urlencode({"from": first.isoformat(), "to": last.isoformat()})
    source = reports_source()
    page = render(
        request,
        "play/statement.html",
        {
            **day,
            "form": StatementPeriodForm(initial={"from": first, "to": last}),
            "statement": account_statement(acting_user(request), first, last, using=source.alias),
            "csv_url": f"{reverse('own-statement')}?{period}&format=csv",
            "reports_source": source,
        },
    )
    return said(page, source)


RECALL_GAMES = ("joker-draw", *PEER_GAMES)


@login_required
def recall(request: HttpRequest) -> HttpResponse:
    """The player's rounds or hands of one game, paged, newest first (staff and auditors:
    everyone's); ``sitting`` narrows a peer game to the hands of one of the player's seats."""
    game = request.GET.get("game", RECALL_GAMES[0])
    if game not in RECALL_GAMES:
        raise Http404("No such game.")
    sitting = whole_number(request.GET.get("sitting"))
    page = pages.recall_page(request.user, game, request.GET.get("page"), sitting=sitting)
    labels = {"joker-draw": Game.JOKER_DRAW.label} | {
        slug: Game(peer.code).label for slug, peer in PEER_GAMES.items()
    }
    return render(
        request,
        "play/recall.html",
        {
            "game": game,
            "games": [(slug, labels[slug]) for slug in RECALL_GAMES],
            "page": page,
            "rows": pages.recall_rows(request.user, game, page),
            "sitting": "" if sitting is None else sitting,
            "query": urlencode({"game": game, **({} if sitting is None else {"sitting": sitting})}),
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


def _peer_hand(request: HttpRequest, game: str, pk: int) -> tuple[PeerTableGame, Round]:
    if game not in PEER_GAMES:
        raise Http404("No such game.")
    peer = PEER_GAMES[game]
    hand = selectors.rounds_for(request.user, game=peer.code).filter(pk=pk).first()
    if hand is None:
        raise Http404("No such hand.")
    return peer, hand


@login_required
def recall_hand(request: HttpRequest, game: str, pk: int) -> HttpResponse:
    """One stud or Drawmaha hand: what the commitment publishes while it is played; once it is
    over, the cards the player may see, its actions, its settlement, and every card's shuffle
    and deck position, to verify (FS-7)."""
    peer, hand = _peer_hand(request, game, pk)
    return render(
        request,
        "play/recall_hand.html",
        {"hand": pages.finished_hand(peer, hand, request.user), "game": game},
    )


@login_required
def hand_summary(request: HttpRequest, game: str, pk: int) -> HttpResponse:
    """A finished hand's cards and settlement, as a piece of the table's page."""
    peer, hand = _peer_hand(request, game, pk)
    return render(
        request,
        "play/_hand_summary.html",
        {"hand": pages.finished_hand(peer, hand, request.user), "game": game},
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
            "on_break": conduct.exclusion_in_force(acting_user(request)),
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
            "on_break": conduct.exclusion_in_force(acting_user(request)),
            "game": game,
            "label": table.get_game_display(),
            # The player's own seat state (templates/play/_seat_status.html).
            "sitting": own_sitting(table, request.user),
            "table_url": reverse(f"{game}-table", args=[table.pk]),
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
