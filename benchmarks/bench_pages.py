"""The players' pages: how long each takes to render, against the framework's floor.

Run as ``python benchmarks/bench_pages.py``. Starts its own PostgreSQL and Redis (or uses
``DATABASE_URL`` and ``REDIS_URL``), loads the demo data, plays a few rounds and hands so that
the recall and the wallet have rows, then requests each page ``BENCH_PAGES_REQUESTS`` times
(200) with Django's test client as a signed-in player, the pages taking turns so that a machine
busy with other work slows them alike. The floor is a view that renders a one-line template
through the same middleware, session and sign-in: what any page costs before it does its own
work. Prints a table of medians and their ratios to the floor, saves
``benchmarks/results/pages.json`` and exits non-zero if a page's median is more than
``TARGET_VS_FLOOR`` floors.
"""

from __future__ import annotations

import os
import statistics
import sys
import types
from dataclasses import asdict, dataclass
from decimal import Decimal
from time import perf_counter

from support import save_results, services

REQUESTS = int(os.environ.get("BENCH_PAGES_REQUESTS", "200"))
WARM_UP = 10
# A page's median against the floor's, which the machine's load moves alike: the slowest player
# page before the tables were dressed, the game recall, took 9 to 10 floors.
TARGET_VS_FLOOR = 10.0
FLOOR = "framework floor"


@dataclass(frozen=True)
class Page:
    page: str
    url: str
    median_ms: float
    p90_ms: float
    vs_floor: float
    result: str


def install_floor() -> None:
    """The project's URLs plus the floor view, as the URLconf the requests go through."""
    from django.contrib.auth.decorators import login_required
    from django.http import HttpRequest, HttpResponse
    from django.template import engines
    from django.urls import path

    from casino import urls

    template = engines["django"].from_string("<p>{{ request.user.get_username }}</p>")

    @login_required
    def floor(request: HttpRequest) -> HttpResponse:
        return HttpResponse(template.render({}, request))

    module = types.ModuleType("bench_page_urls")
    module.urlpatterns = [path("bench/floor/", floor), *urls.urlpatterns]  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module


def prepare() -> tuple[object, dict[str, str]]:
    """The demo data, rounds and hands for player1's recall and wallet; the pages to time."""
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from games.joker_draw import services as joker_draw
    from games.joker_draw.services import BoxRequest
    from games.models import Game, Table

    settings.DEBUG = True  # seed_demo refuses to run without it; nothing else reads it here
    call_command("seed_demo", verbosity=0)
    settings.DEBUG = False
    player = User.objects.get(username="player1")
    joker = Table.objects.get(game=Game.JOKER_DRAW, currency="USD")
    stud = Table.objects.get(game=Game.SEVEN_CARD_STUD, currency="USD")
    for _ in range(25):
        round_ = joker_draw.open_round(
            player=player, table=joker, boxes=[BoxRequest(1, Decimal("0.30"), Decimal("0.30"))]
        ).round
        joker_draw.act(player=player, round_id=round_.pk, box=1, action="bet")
    pages = {
        FLOOR: "/bench/floor/",
        "lobby": "/play/",
        "joker draw table": f"/play/joker-draw/{joker.pk}/",
        "stud table": f"/play/stud/{stud.pk}/",
        "game recall": "/play/recall/",
        "wallet": "/play/wallet/",
        "rules": "/play/rules/joker-draw/",
    }
    return player, pages


def time_pages(player: object, pages: dict[str, str]) -> dict[str, list[float]]:
    from django.conf import settings
    from django.test import Client
    from django.test.utils import override_settings

    client = Client(HTTP_HOST="localhost")
    client.force_login(player)  # type: ignore[arg-type]
    timings: dict[str, list[float]] = {name: [] for name in pages}
    # Static files by their own names: a benchmark does not collect and fingerprint them.
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    with override_settings(ROOT_URLCONF="bench_page_urls", STORAGES=storages):
        for name, url in list(pages.items()):
            status = client.get(url).status_code
            if status != 200:  # a page this code does not have
                print(f"{name}: {url} answers {status}; left out")
                del pages[name], timings[name]
        for turn in range(WARM_UP + REQUESTS):
            for name, url in pages.items():
                start = perf_counter()
                client.get(url)
                if turn >= WARM_UP:
                    timings[name].append((perf_counter() - start) * 1000)
    return timings


def main() -> int:
    # A short RTP run is enough to approve the shipped paytables for a benchmark.
    os.environ.setdefault("RTP_APPROVAL_MIN_ROUNDS", "5000")
    with services():
        install_floor()
        player, pages = prepare()
        timings = time_pages(player, pages)
    floor = statistics.median(timings[FLOOR])
    rows = []
    for name, samples in timings.items():
        median = statistics.median(samples)
        target = name == FLOOR or median / floor <= TARGET_VS_FLOOR
        rows.append(
            Page(
                page=name,
                url=pages[name],
                median_ms=round(median, 2),
                p90_ms=round(statistics.quantiles(samples, n=10)[-1], 2),
                vs_floor=round(median / floor, 2),
                result="" if name == FLOOR else ("PASS" if target else "FAIL"),
            )
        )
    width = max(len(row.page) for row in rows)
    print(f"{REQUESTS} requests per page, Django's test client, PostgreSQL")
    print(f"{'page':<{width}}  {'median ms':>9}  {'p90 ms':>7}  {'x floor':>7}  result")
    for row in rows:
        print(
            f"{row.page:<{width}}  {row.median_ms:>9.2f}  {row.p90_ms:>7.2f}  "
            f"{row.vs_floor:>7.2f}  {row.result}"
        )
    save_results(
        "pages",
        {
            "requests_per_page": REQUESTS,
            "target_vs_floor": TARGET_VS_FLOOR,
            "pages": [asdict(row) for row in rows],
        },
    )
    return 0 if all(row.result != "FAIL" for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
