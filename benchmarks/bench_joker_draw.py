"""Joker draw throughput: complete rounds per second through the service layer, and over HTTP
with 16 concurrent clients against gunicorn, on PostgreSQL.

Run as ``python benchmarks/bench_joker_draw.py``. It starts its own PostgreSQL and Redis in a
throwaway folder (scripts/services.py) unless DATABASE_URL and REDIS_URL are set, prints a
table, saves ``benchmarks/results/joker_draw.json`` and exits non-zero if a target is missed.
A round is an opening (ante) and a bet: the shortest complete round, dealer draw and
settlement included.
"""

from __future__ import annotations

import http.client
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "joker_draw.json"
SERVICE_ROUNDS = 300
HTTP_CLIENTS = 16
HTTP_SECONDS = 20.0
HTTP_PORT = 8765
TARGET_ROUNDS_PER_SECOND = 100.0
TARGET_P99_MS = 250.0


@dataclass(frozen=True)
class Measure:
    measure: str
    value: float
    unit: str
    target: str
    result: str


def start_services(scratch: Path) -> None:
    if os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"):
        return
    exports = subprocess.run(  # noqa: S603 - our own launcher
        [sys.executable, str(ROOT / "scripts" / "services.py"), "start", str(scratch)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for assignment in exports.removeprefix("export ").split():
        name, value = assignment.split("=", 1)
        os.environ[name] = value.strip("'")


def prepare_database() -> list[str]:
    """Migrate and create a funded, open joker draw table and one player per client."""
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command

    from casino.roles import PIT_STAFF, PLAYER
    from games.limits import DEFAULT_LIMITS
    from games.models import Game
    from games.services import tables
    from payouts import services as money
    from payouts.models import ChangeStatus, Paytable, PaytableVersion

    call_command("migrate", verbosity=0)
    maker = User.objects.create_user("bench-pit1", password="x")  # noqa: S106
    checker = User.objects.create_user("bench-pit2", password="x")  # noqa: S106
    for user in (maker, checker):
        user.groups.add(Group.objects.get(name=PIT_STAFF))
    call_command("load_paytables", verbosity=0)
    for version in PaytableVersion.objects.filter(status=ChangeStatus.DRAFT):
        tables.approve_paytable_version(version, by=checker)
    table = tables.create_table(
        name="Bench", game=Game.JOKER_DRAW, currency="USD", by=maker, reason="bench"
    )
    values = dict(DEFAULT_LIMITS[Game.JOKER_DRAW])
    values["bet_paytable"] = Paytable.objects.get(kind="bet")
    values["bonus_paytable"] = Paytable.objects.get(kind="bonus")
    limits = tables.propose_limits(table=table, values=values, reason="bench", by=maker)
    tables.approve_limits(limits, by=checker)
    tables.set_table_status(table, status="open", by=checker, reason="bench")
    money.fund_house(currency="USD", amount=Decimal("1000000.00"), reason="bench", by=maker)
    names = []
    for n in range(HTTP_CLIENTS + 1):
        player = User.objects.create_user(f"bench-player{n}", password="bench-pw")  # noqa: S106
        player.groups.add(Group.objects.get(name=PLAYER))
        money.deposit(
            player=player, currency="USD", amount=Decimal("100000.00"), reason="bench", by=maker
        )
        names.append(player.username)
    os.environ["BENCH_TABLE"] = str(table.pk)
    return names


def service_rounds_per_second(username: str) -> float:
    from django.contrib.auth.models import User

    from games.models import Table
    from games.services import joker_draw

    player = User.objects.get(username=username)
    table = Table.objects.get(pk=int(os.environ["BENCH_TABLE"]))
    stake = [joker_draw.BoxRequest(1, Decimal("0.30"))]
    start = time.perf_counter()
    for _ in range(SERVICE_ROUNDS):
        round_ = joker_draw.open_round(player=player, table=table, boxes=stake)
        joker_draw.act(player=player, round_id=round_.pk, box=1, action="bet")
    return SERVICE_ROUNDS / (time.perf_counter() - start)


class Client:
    def __init__(self, username: str) -> None:
        self.username = username
        self.keys = 0
        self.token = ""
        self.token = self.call(
            "/api/v1/auth/token/", {"username": username, "password": "bench-pw"}
        )["token"]

    def call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """POST `body` (with a fresh Idempotency-Key), or GET when there is no body."""
        connection = http.client.HTTPConnection("127.0.0.1", HTTP_PORT, timeout=30)
        self.keys += 1
        headers = {
            "Content-Type": "application/json",
            "Idempotency-Key": f"{self.username}-{self.keys}",
        }
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if body is None:
            connection.request("GET", path, headers=headers)
        else:
            connection.request("POST", path, json.dumps(body), headers)
        response = connection.getresponse()
        payload = json.loads(response.read())
        connection.close()
        if response.status >= 300:
            raise RuntimeError(f"{path}: {response.status} {payload}")
        return payload


@dataclass(frozen=True)
class Load:
    per_second: float
    latencies: list[float]
    count: int


def drive(clients: list[Client], step: Callable[[Client], list[float]]) -> Load:
    """Run `step` in a loop on every client at once for HTTP_SECONDS; `step` returns the
    latencies of the requests it made."""
    latencies: list[float] = []
    done = [0]
    lock = threading.Lock()
    stop_at = time.monotonic() + HTTP_SECONDS

    def loop(client: Client) -> None:
        while time.monotonic() < stop_at:
            times = step(client)
            with lock:
                latencies.extend(times)
                done[0] += 1

    begun = time.perf_counter()
    threads = [threading.Thread(target=loop, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return Load(done[0] / (time.perf_counter() - begun), latencies, done[0])


def timed(call: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = call()
    return result, time.perf_counter() - started


def http_load(usernames: list[str]) -> tuple[Load, Load]:
    """The wallet read (the framework's floor: auth, one query, JSON) and complete rounds."""
    env = {**os.environ, "DEBUG": "false"}
    server = subprocess.Popen(  # noqa: S603 - the project's own server
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "casino.wsgi",
            "--bind",
            f"127.0.0.1:{HTTP_PORT}",
            "--workers",
            "4",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                http.client.HTTPConnection("127.0.0.1", HTTP_PORT, timeout=1).connect()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        clients = [Client(name) for name in usernames]
        table = int(os.environ["BENCH_TABLE"])

        def read_wallet(client: Client) -> list[float]:
            return [timed(lambda: client.call("/api/v1/wallets/"))[1]]

        def play_round(client: Client) -> list[float]:
            opened, first = timed(
                lambda: client.call(
                    "/api/v1/joker-draw/rounds/",
                    {"table": table, "boxes": [{"box": 1, "ante": "0.30"}]},
                )
            )
            _, second = timed(
                lambda: client.call(
                    f"/api/v1/joker-draw/rounds/{opened['id']}/actions/",
                    {"box": 1, "action": "bet"},
                )
            )
            return [first, second]

        return drive(clients, read_wallet), drive(clients, play_round)
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> int:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key")
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")
    with tempfile.TemporaryDirectory() as scratch:
        started_here = not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"))
        start_services(Path(scratch))
        try:
            usernames = prepare_database()
            service_rate = service_rounds_per_second(usernames[-1])
            wallet_reads, rounds = http_load(usernames[:HTTP_CLIENTS])
        finally:
            if started_here:
                subprocess.run(  # noqa: S603
                    [sys.executable, str(ROOT / "scripts" / "services.py"), "stop", scratch],
                    check=False,
                )
    quantiles = statistics.quantiles(rounds.latencies, n=100)
    p50, p99 = quantiles[49] * 1000, quantiles[98] * 1000
    http_rate = rounds.per_second
    measures = [
        Measure(
            f"HTTP, {HTTP_CLIENTS} clients, wallet reads/s (framework floor)",
            round(wallet_reads.per_second, 1),
            "reads/s",
            "",
            "",
        ),
        Measure(
            "service layer, rounds/s (one client, no HTTP)",
            round(service_rate, 1),
            "rounds/s",
            "",
            "",
        ),
        Measure(
            f"HTTP, {HTTP_CLIENTS} clients, rounds/s",
            round(http_rate, 1),
            "rounds/s",
            f">= {TARGET_ROUNDS_PER_SECOND:.0f}",
            "PASS" if http_rate >= TARGET_ROUNDS_PER_SECOND else "FAIL",
        ),
        Measure("HTTP request latency p50", round(p50, 1), "ms", "", ""),
        Measure(
            "HTTP request latency p99",
            round(p99, 1),
            "ms",
            f"< {TARGET_P99_MS:.0f}",
            "PASS" if p99 < TARGET_P99_MS else "FAIL",
        ),
    ]
    width = max(len(m.measure) for m in measures)
    print(f"{'measure':<{width}}  {'value':>10}  {'unit':<8}  {'target':<8}  result")
    for m in measures:
        print(f"{m.measure:<{width}}  {m.value:>10}  {m.unit:<8}  {m.target:<8}  {m.result}")
    print(f"({rounds.count} rounds over HTTP in {HTTP_SECONDS:.0f} s; {SERVICE_ROUNDS} in-process)")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "date": datetime.now(UTC).isoformat(timespec="seconds"),
                "python": platform.python_version(),
                "cpu_count": os.cpu_count(),
                "http_clients": HTTP_CLIENTS,
                "http_seconds": HTTP_SECONDS,
                "measures": [asdict(m) for m in measures],
            },
            indent=2,
        )
        + "\n"
    )
    return 0 if all(m.result != "FAIL" for m in measures) else 1


if __name__ == "__main__":
    sys.exit(main())
