"""The staff's player pages: the players, searched by user name and paged, and one player's
page (the account, wallets, the statement of the last twelve months with its CSV, seats at peer
tables now, the latest rounds linked to their replay). Pit staff and auditors read; nobody
changes a player here, and players get 403."""

from __future__ import annotations

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from casino.csv_export import csv_response
from casino.reports_database import reports_source, said
from games.staff.players import last_twelve_months, player, player_file, players
from games.staff.views import READ_LEDGER, READ_ROUNDS, requires
from payouts.protection.statement import CSV_COLUMNS, csv_name, csv_rows, statement
from payouts.protection.statement_forms import StatementPeriodForm

PLAYERS_PER_PAGE = 50
READ_PLAYERS = (*READ_LEDGER, *READ_ROUNDS)


@require_GET
@requires(*READ_PLAYERS)
def player_list(request: HttpRequest) -> HttpResponse:
    search = request.GET.get("q", "")[:150]
    page = Paginator(players(search), PLAYERS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "staff/players.html",
        {"search": search, "page": page, "query": urlencode({"q": search}) if search else ""},
    )


@require_GET
@requires(*READ_PLAYERS)
def player_page(request: HttpRequest, pk: int) -> HttpResponse:
    source = reports_source()
    found = player_file(player(pk), reports=source.alias)
    first, last = last_twelve_months()
    period = urlencode({"from": first.isoformat(), "to": last.isoformat()})
    page = render(
        request,
        "staff/player.html",
        {
            "file": found,
            "statement": found.statement,
            "conduct": found.conduct,
            "csv_url": f"{reverse('staff:player-statement-csv', args=[pk])}?{period}",
            "reports_source": source,
        },
    )
    return said(page, source)


@require_GET
@requires(*READ_PLAYERS)
def player_statement_csv(request: HttpRequest, pk: int) -> HttpResponseBase:
    """The player's statement over ``from`` to ``to`` (the last 30 gaming days by default), as
    the player downloads it; a bad period is 400 naming the field."""
    user = player(pk)
    form = StatementPeriodForm(request.GET)
    if not form.is_valid():
        field, code, message = form.refusal()
        return HttpResponse(
            f"{field}: {message} ({code})", status=400, content_type="text/plain; charset=utf-8"
        )
    first, last = form.period()
    source = reports_source()
    found = statement(user, first, last, using=source.alias)
    name = csv_name(first, last, slugify(user.username) or str(user.pk))
    return said(csv_response(name, CSV_COLUMNS, csv_rows(found, user)), source)
