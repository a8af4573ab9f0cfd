"""What a load balancer's health checks cost: ``GET /healthz`` and ``GET /readyz`` against the
framework's floor, in the same run.

Run as ``python benchmarks/bench_health.py`` (``make bench``). Starts its own PostgreSQL and
Redis (or uses ``DATABASE_URL`` and ``REDIS_URL``), writes a worker's heartbeat so that
readiness passes, then requests each path ``BENCH_HEALTH_REQUESTS`` times (1,000) with Django's
test client, the paths taking turns so that a machine busy with other work slows them alike.
The floor is the cheapest page there is: a view that returns a few bytes, through every
middleware, for a caller not signed in. ``/healthz`` is answered before most of the middleware
and should cost less than the floor; ``/readyz`` adds its checks (three small statements on the
checks' own connection and one round trip to Redis, each side on a thread of its own).

Prints a table of medians, 99th percentiles and their ratios to the floor, saves
``benchmarks/results/health.json`` and exits non-zero when a check's median exceeds its target.
"""

from __future__ import annotations

import os
import statistics
import sys
import types
from dataclasses import asdict, dataclass
from time import perf_counter

from support import machine, save_results, services

REQUESTS = int(os.environ.get("BENCH_HEALTH_REQUESTS", "1000"))
WARM_UP = 20
FLOOR = "framework floor"
# Medians against the floor's. Liveness touches nothing and skips most of the middleware;
# readiness waits on PostgreSQL and Redis, each on its own thread, which a load balancer asking
# every second must still find cheap: at most a few pages' worth.
TARGETS = {"/healthz": 1.0, "/readyz": 5.0}


@dataclass(frozen=True)
class Row:
    path: str
    median_ms: float
    p99_ms: float
    vs_floor: float
    target: str
    result: str


def install_floor() -> None:
    """The project's URLs plus the floor view, as the URLconf the requests go through."""
    from django.http import HttpRequest, HttpResponse
    from django.urls import path

    from casino import urls

    def floor(request: HttpRequest) -> HttpResponse:
        return HttpResponse(b'{"status": "ok"}', content_type="application/json")

    module = types.ModuleType("bench_health_urls")
    module.urlpatterns = [path("bench/floor/", floor), *urls.urlpatterns]  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module


def time_paths(paths: dict[str, str]) -> dict[str, list[float]]:
    from django.conf import settings
    from django.test import Client
    from django.test.utils import override_settings

    from casino import workers

    workers.stamp_heartbeat(settings.CELERY_BROKER_URL, "bench@localhost")
    client = Client(HTTP_HOST="localhost")
    timings: dict[str, list[float]] = {name: [] for name in paths}
    with override_settings(ROOT_URLCONF="bench_health_urls"):
        for url in paths.values():
            response = client.get(url)
            if response.status_code != 200:
                raise RuntimeError(f"{url}: {response.status_code} {response.content[:300]!r}")
        for turn in range(WARM_UP + REQUESTS):
            for name, url in paths.items():
                start = perf_counter()
                client.get(url)
                if turn >= WARM_UP:
                    timings[name].append((perf_counter() - start) * 1000)
    return timings


def main() -> int:
    paths = {FLOOR: "/bench/floor/", "/healthz": "/healthz", "/readyz": "/readyz"}
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    with services():
        install_floor()
        timings = time_paths(paths)
    floor = statistics.median(timings[FLOOR])
    rows = []
    for name, samples in timings.items():
        median = statistics.median(samples)
        ratio = median / floor
        limit = TARGETS.get(name)
        rows.append(
            Row(
                path=name,
                median_ms=round(median, 3),
                p99_ms=round(statistics.quantiles(samples, n=100)[-1], 3),
                vs_floor=round(ratio, 2),
                target=f"<= {limit:.1f}" if limit else "",
                result="" if limit is None else ("PASS" if ratio <= limit else "FAIL"),
            )
        )
    width = max(len(row.path) for row in rows)
    print(f"{REQUESTS} requests per path, Django's test client, PostgreSQL and Redis")
    print(f"{'path':<{width}}  {'median ms':>9}  {'p99 ms':>7}  {'x floor':>7}  target   result")
    for row in rows:
        print(
            f"{row.path:<{width}}  {row.median_ms:>9.3f}  {row.p99_ms:>7.3f}  "
            f"{row.vs_floor:>7.2f}  {row.target:<7}  {row.result}"
        )
    print(f"(load average {load_at_start} at the start; {machine()['cpus']} CPUs)")
    save_results(
        "health",
        {
            "machine": {**machine(), "load_average_at_start": load_at_start},
            "requests_per_path": REQUESTS,
            "rows": [asdict(row) for row in rows],
        },
    )
    return 0 if all(row.result != "FAIL" for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
