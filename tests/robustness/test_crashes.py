"""Crashes: the web server we ship (scripts/serve.sh: uvicorn and its worker processes) or a
Celery worker is killed with SIGKILL in the middle of rounds, decisions and cash-outs. uvicorn
starts a new worker for one that died; a server killed whole is started again. Every round then
goes on where it was, or is already settled, exactly once; every seat is cashed out once; the
ledger checks out and nothing is lost or paid twice.

Fault points (casino.faults) kill the worker process at a named place in the services: after
the opening's ledger posting, before a round's update, after the settlement's ledger posting,
after a cash-out's ledger posting (all inside the transaction), after the commit before the
client hears the answer, and in the decision timer task. Other kills come from outside, at a
random moment of a request: of every uvicorn worker, or of the whole server.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db.models import Sum
from django.utils import timezone

from casino.celery import app as celery_app
from casino.http.tokens import issue_token
from games.engine import joker_draw as engine
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.joker_draw.tasks import expire_joker_draw_decision
from games.models import BoxSettlement, Round, RoundStatus, Seat, SeatStatus, Table
from games.tables import services as table_services
from payouts import services as money
from payouts.models import LedgerTransaction

# The module, not its names: a function named test_... imported here would be collected.
from tests.fixtures import workers
from tests.fixtures.servers import FUNDS, Server, assert_settled_once, funded_player
from tests.fixtures.tables import joker_draw_limits

# Inside the transaction: the client's retry finds nothing done and does it all.
IN_TRANSACTION = ("round.opened", "round.before_update", "round.settled")
# After the commit: the retry is answered from the stored response (idempotency).
COMMITTED = "request.committed"
SERVER_POINTS = (*IN_TRANSACTION, COMMITTED)
CASHED_OUT = "seat.cashed_out"  # inside the cash-out's transaction
# SIGKILL from the test, at a random moment of a request: of the web server's workers (uvicorn
# starts new ones), or of the whole server (the test starts it again).
WORKERS = "workers"
OUTSIDE = "outside"
ROUNDS = 16


def _subprocess_env(marks: Path, points: tuple[str, ...]) -> dict[str, str]:
    """The environment of a server or worker on this test's database, with `points` armed."""
    for point in points:
        (marks / point).touch()  # every point starts quiet; a test removes a mark to arm it
    return workers.worker_env(
        DEBUG="false", CASINO_FAULT_POINTS=",".join(points), CASINO_FAULT_MARKS=str(marks)
    )


class Player:
    """A client that retries a request with the same Idempotency-Key until it gets an answer,
    restarting the server after every crash."""

    def __init__(self, server: Server, token: str, marks: Path, rng: random.Random) -> None:
        self.server, self.token, self.marks, self.rng = server, token, marks, rng
        self.keys = 0
        self.crashes: list[tuple[str, bool]] = []  # (how, was the retry a replay?)

    def post(self, path: str, body: dict[str, Any], fault: str | None) -> dict[str, Any]:
        self.keys += 1
        key = f"crash-{self.keys}"
        killer = None
        if fault in (OUTSIDE, WORKERS):
            kill = self.server.kill if fault == OUTSIDE else self.server.kill_workers
            killer = threading.Timer(self.rng.uniform(0, 0.05), kill)
            killer.start()
        elif fault is not None:
            (self.marks / fault).unlink()  # arm it: the next request that passes there dies
        try:
            status, answer, replayed = self._send(path, body, key)
            crashed = False
        except (OSError, http.client.HTTPException):
            crashed = True
        if killer is not None:
            killer.join()
        if fault == OUTSIDE:
            self.server.restart()
        elif fault is not None:
            # A worker died: the server lives on, and the retry finds a worker of it.
            assert self.server.process is not None
            assert self.server.process.poll() is None, self.server.log.read_text()
        if fault is not None and fault not in (OUTSIDE, WORKERS):
            assert crashed, f"{fault} did not strike"
            assert (self.marks / fault).exists()  # struck once, quiet again
        if crashed:
            status, answer, replayed = self._send(path, body, key)
            self.crashes.append((fault or OUTSIDE, replayed))
        assert status < 300, (status, answer)
        return answer

    def _send(self, path: str, body: dict[str, Any], key: str) -> tuple[int, Any, bool]:
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        try:
            connection.request(
                "POST",
                path,
                json.dumps(body),
                {
                    "Content-Type": "application/json",
                    "Authorization": f"Token {self.token}",
                    "Idempotency-Key": key,
                },
            )
            response = connection.getresponse()
            answer = json.loads(response.read())
            return response.status, answer, response.headers.get("Idempotent-Replayed") == "true"
        finally:
            connection.close()


@pytest.fixture
def marks(tmp_path: Path) -> Path:
    folder = tmp_path / "faults"
    folder.mkdir()
    return folder


@pytest.fixture
def three_box_table(joker_table: Table, default_paytables, pit, pit2) -> Table:
    limits = table_services.propose_limits(
        table=joker_table,
        # Ten minutes to decide: restarts on a busy machine must not time a box out (JD-4).
        values=joker_draw_limits(
            default_paytables, boxes_per_round=3, decision_timeout_seconds=600
        ),
        reason="three boxes",
        by=pit,
    )
    table_services.approve_limits(limits, by=pit2)
    return joker_table


def play_round(player: Player, table: Table, rng: random.Random, faults: list[str]) -> int:
    """Open a round and decide every box at random to the end; `faults` are used up as they fit
    the requests. Returns the round's id."""

    def fault_for(*kinds: str) -> str | None:
        if faults and faults[0] in kinds and rng.random() < 0.4:
            return faults.pop(0)
        return None

    boxes = [
        {"box": n, "ante": "0.60", **({"bonus": "0.30"} if rng.random() < 0.5 else {})}
        for n in range(1, rng.randint(1, 3) + 1)
    ]
    answer = player.post(
        "/api/v1/joker-draw/rounds/",
        {"table": table.pk, "boxes": boxes},
        fault_for("round.opened", COMMITTED, WORKERS, OUTSIDE),
    )
    round_id = int(answer["id"])
    while answer["state"] == RoundStatus.DECIDING:
        box, options = answer["to_act"]["box"], answer["to_act"]["options"]
        action = rng.choice(options)
        body: dict[str, Any] = {"box": box, "action": action}
        if action == "exchange":
            shown = answer["boxes"][box - 1]
            # JD-5: 1 to 5 cards at the first exchange; JD-6: exactly one at the second.
            count = 1 if shown["exchanges"] else rng.randint(1, 5)
            body["cards"] = rng.sample(shown["cards"], count)
        settles = action != "exchange" and box == len(boxes)
        kinds = ["round.before_update", COMMITTED, WORKERS, OUTSIDE]
        if settles:
            kinds.append("round.settled")
        answer = player.post(
            f"/api/v1/joker-draw/rounds/{round_id}/actions/", body, fault_for(*kinds)
        )
    return round_id


@pytest.mark.django_db(transaction=True)
def test_rounds_survive_the_server_killed_anywhere(three_box_table, pit, marks, tmp_path):
    rng = random.Random(20261130)
    user = funded_player("crash-player", pit)
    server = Server(_subprocess_env(marks, SERVER_POINTS), tmp_path / "server.log")
    server.start()
    faults = [*SERVER_POINTS, *SERVER_POINTS, WORKERS, WORKERS, OUTSIDE, OUTSIDE]
    rng.shuffle(faults)
    player = Player(server, issue_token(user, "tests")[0], marks, rng)
    try:
        round_ids = [play_round(player, three_box_table, rng, faults) for _ in range(ROUNDS)]
    finally:
        server.kill()

    assert faults == [], "every planned crash happened"
    assert "died" in server.log.read_text()  # uvicorn replaced the workers that were killed
    # A crash inside the transaction left nothing, so the retry did the work itself; a crash
    # after the commit left the answer, which the retry got back unchanged.
    for how, replayed in player.crashes:
        if how in IN_TRANSACTION:
            assert not replayed, how
        elif how == COMMITTED:
            assert replayed, how
    rounds = Round.objects.filter(player=user)
    assert sorted(rounds.values_list("pk", flat=True)) == sorted(round_ids)
    for round_ in rounds:
        assert round_.status == RoundStatus.SETTLED
        assert_settled_once(round_, user)
        call_command("replay_round", round_.pk, stdout=StringIO())
    results = BoxSettlement.objects.filter(player=user).aggregate(total=Sum("total_result"))
    assert money.wallet(user, "USD").balance == FUNDS + results["total"]
    call_command("ledger_check", stdout=StringIO())


# Cash-outs at a peer table ---------------------------------------------------------------------

SITTINGS = 6


@pytest.mark.django_db(transaction=True)
def test_cash_outs_survive_the_server_killed_anywhere(drawmaha_table, pit, marks, tmp_path):
    """A player sits down at a Drawmaha table and stands up again, SITTINGS times, the server
    killed in the buy-ins and the cash-outs: every seat is cashed out once, and the wallet ends
    where it began."""
    rng = random.Random(20261203)
    user = funded_player("crash-sitter", pit)
    server = Server(_subprocess_env(marks, (CASHED_OUT, COMMITTED)), tmp_path / "server.log")
    server.start()
    base = f"/api/v1/drawmaha/tables/{drawmaha_table.pk}"
    leaving = [CASHED_OUT, CASHED_OUT, COMMITTED, WORKERS, OUTSIDE, None]
    joining = [COMMITTED, WORKERS, OUTSIDE, None, None, None]
    player = Player(server, issue_token(user, "tests")[0], marks, rng)
    try:
        for _ in range(SITTINGS):
            body = {"seat": 1, "buy_in": "100.00"}
            player.post(f"{base}/seats/", body, joining.pop(rng.randrange(len(joining))))
            player.post(f"{base}/leave/", {}, leaving.pop(rng.randrange(len(leaving))))
    finally:
        server.kill()

    seats = Seat.objects.filter(table=drawmaha_table, player=user)
    assert seats.count() == SITTINGS
    assert set(seats.values_list("status", flat=True)) == {SeatStatus.LEFT}
    for seat in seats:
        assert LedgerTransaction.objects.filter(reference=f"seat:{seat.pk}:cash-out").count() == 1
    assert money.wallet(user, "USD").balance == FUNDS
    call_command("ledger_check", stdout=StringIO())


# The decision timer in a Celery worker ---------------------------------------------------------

WORKER_POINTS = ("timer.started", "round.settled", "timer.committed")
# Short, so that a task of a worker killed outright comes back within the test (see settings).
VISIBILITY_SECONDS = 2
SETTLE_SECONDS = 60.0


@pytest.fixture
def armed_worker(request, marks: Path, monkeypatch) -> workers.WorkerProcess:
    """The suite's Celery worker, started with the timer's fault points armed."""
    env = _subprocess_env(marks, WORKER_POINTS)
    for name in ("CASINO_FAULT_POINTS", "CASINO_FAULT_MARKS"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.setenv("CELERY_VISIBILITY_TIMEOUT", str(VISIBILITY_SECONDS))
    return request.getfixturevalue("celery_worker")


def overdue_round(table: Table, pit: User, name: str) -> tuple[Round, User]:
    """A one-box round whose decision time ran out long ago (JD-4)."""
    player = funded_player(name, pit)
    round_ = joker_draw.open_round(
        player=player, table=table, boxes=[BoxRequest(1, Decimal("0.60"))]
    ).round
    Round.objects.filter(pk=round_.pk).update(decision_deadline=timezone.now() - timedelta(days=1))
    return round_, player


def wait_for(condition: Callable[[], bool], worker: workers.WorkerProcess) -> None:
    deadline = time.monotonic() + SETTLE_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"waited in vain; the worker said:\n{worker.output()}"
        time.sleep(0.1)


def settled(round_: Round) -> bool:
    round_.refresh_from_db()
    return round_.status == RoundStatus.SETTLED


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("point", WORKER_POINTS)
def test_a_timer_whose_worker_process_dies_is_run_again_and_settles_once(
    point, armed_worker, joker_table, pit, marks
):
    round_, player = overdue_round(joker_table, pit, "late-player")
    (marks / point).unlink()
    task = expire_joker_draw_decision.delay(round_.pk)

    # The pool process died at the point; the worker requeued the task (reject on worker lost)
    # and another pool process ran it to the end, or found it done.
    wait_for(lambda: f"{task.id}] succeeded" in armed_worker.output(), armed_worker)
    assert (marks / point).exists(), f"{point} did not strike"
    assert "signal 9 (SIGKILL)" in armed_worker.output()
    round_.refresh_from_db()
    assert round_.status == RoundStatus.SETTLED
    assert armed_worker.process.poll() is None  # the worker itself lived on
    folded = engine.from_json(round_.engine_state).boxes[0]
    assert folded.status == engine.BoxStatus.FOLDED
    assert_settled_once(round_, player)
    call_command("ledger_check", stdout=StringIO())


@pytest.mark.django_db(transaction=True)
def test_a_timer_of_a_worker_killed_outright_is_delivered_again(
    armed_worker, joker_table, pit, tmp_path
):
    round_, player = overdue_round(joker_table, pit, "late-player")
    # Due in a few seconds: the worker takes the message at once and holds it, unacknowledged.
    expire_joker_draw_decision.apply_async((round_.pk,), countdown=3)
    with celery_app.connection_for_write() as connection:
        broker = connection.default_channel.client
        deadline = time.monotonic() + SETTLE_SECONDS
        while not broker.hlen("unacked"):
            assert time.monotonic() < deadline, armed_worker.output()
            time.sleep(0.05)
    for child in armed_worker.pool_processes():
        child.kill()
    armed_worker.process.kill()  # the fixture reaps it

    round_.refresh_from_db()
    assert round_.status == RoundStatus.DECIDING  # the timer had not run
    time.sleep(VISIBILITY_SECONDS)
    replacement = workers.start_worker(tmp_path / "replacement-worker.log", workers.worker_env())
    try:
        # The new worker finds the message unacknowledged past the visibility timeout and
        # takes it again.
        wait_for(lambda: settled(round_), replacement)
    finally:
        workers.stop_worker(replacement)
    assert_settled_once(round_, player)
    call_command("ledger_check", stdout=StringIO())
