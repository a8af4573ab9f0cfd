"""Two nodes on one machine, as a casino runs several behind its load balancer: each node a web
server (scripts/serve.sh), a Celery worker and a Celery beat, on 127.0.0.2 and 127.0.0.3, both
on one PostgreSQL and one Redis. A round opened through one node is decided through the other;
a live stream on one hears a change made through the other; node A killed outright in the
middle of rounds loses nothing: node B's beat takes the lead, its worker folds what is overdue
(JD-4), every round settles once and the ledger checks out."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from decimal import Decimal
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import redis
from django.contrib.auth.models import User
from django.core.management import call_command

from casino.beat import LOCK_NAME
from casino.http.tokens import issue_token
from casino.roles import PLAYER
from games.models import Round, RoundStatus, Table
from games.tables import services as table_services
from payouts.services import deposit
from tests.fixtures import workers
from tests.fixtures.servers import (
    ROOT,
    Server,
    assert_settled_once,
    funded_player,
    open_stream,
    read_more,
    session_cookie,
)
from tests.fixtures.tables import joker_draw_limits, make_stud_table
from tests.fixtures.users import make_user

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

HOSTS = ("127.0.0.2", "127.0.0.3")
DECISION_SECONDS = 5  # the shortest decision time a table may set
LEAD_SECONDS = 3  # how soon a beat takes the lead of one that died
FOLDED_WITHIN = DECISION_SECONDS + LEAD_SECONDS + 10  # the deadline, the takeover, a busy machine


class Node:
    """One machine's processes: the web server, a worker and a beat."""

    def __init__(self, host: str, env: dict[str, str], folder: Path) -> None:
        self.host, self.env, self.folder = host, env, folder
        self.server = Server(env, folder / f"server-{host}.log", host=host)
        self.worker: workers.WorkerProcess | None = None
        self.beat: subprocess.Popen[bytes] | None = None
        self.beat_log = folder / f"beat-{host}.log"

    def start(self) -> None:
        self.server.start()
        self.worker = workers.start_worker(self.folder / f"worker-{self.host}.log", self.env)
        with self.beat_log.open("ab") as sink:
            self.beat = subprocess.Popen(  # noqa: S603 - our own venv's celery, fixed arguments
                [str(Path(sys.executable).with_name("celery")), "-A", "casino", "beat"],
                cwd=ROOT,
                env=self.env,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def leads(self) -> bool:
        return "leading the schedule" in self.beat_log.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL all of it, as a machine lost would; a no-op for what is not running."""
        if self.server.process is not None:
            self.server.kill()
        if self.worker is not None:
            workers.stop_worker(self.worker)
            self.worker = None
        if self.beat is not None and self.beat.poll() is None:
            os.killpg(self.beat.pid, signal.SIGKILL)
            self.beat.wait(timeout=30)

    def post(self, token: str, path: str, body: dict[str, Any], key: str) -> dict[str, Any]:
        connection = http.client.HTTPConnection(self.host, self.server.port, timeout=30)
        try:
            connection.request(
                "POST",
                path,
                json.dumps(body),
                {
                    "Content-Type": "application/json",
                    "Authorization": f"Token {token}",
                    "Idempotency-Key": key,
                },
            )
            response = connection.getresponse()
            answer = json.loads(response.read())
            assert response.status < 300, (response.status, answer)
            return dict(answer)
        finally:
            connection.close()


def wait_until(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


@pytest.fixture
def short_decisions(joker_table: Table, default_paytables, pit, pit2) -> Table:
    limits = table_services.propose_limits(
        table=joker_table,
        values=joker_draw_limits(default_paytables, decision_timeout_seconds=DECISION_SECONDS),
        reason="short decisions",
        by=pit,
    )
    table_services.approve_limits(limits, by=pit2)
    return joker_table


@pytest.fixture
def nodes(tmp_path: Path) -> Any:
    env = workers.worker_env(
        DEBUG="false",
        ALLOWED_HOSTS=",".join([*HOSTS, "testserver", "127.0.0.1", "localhost"]),
        BEAT_LEADER_LOCK_SECONDS=str(LEAD_SECONDS),
    )
    broker = redis.Redis.from_url(workers.private_broker_url())
    broker.flushdb()  # no task or beat lock left by an earlier test
    started = [Node(host, env, tmp_path) for host in HOSTS]
    try:
        yield started
    finally:
        for node in started:
            node.kill()
        broker.delete(LOCK_NAME)


def open_round(node: Node, token: str, table: Table, key: str) -> int:
    answer = node.post(
        token,
        "/api/v1/joker-draw/rounds/",
        {"table": table.pk, "boxes": [{"box": 1, "ante": "0.60"}]},
        key,
    )
    return int(answer["id"])


def test_two_nodes_share_the_tables_and_one_carries_on_when_the_other_is_lost(
    nodes, short_decisions, pit, pit2
):
    node_a, node_b = nodes
    node_a.start()
    wait_until(node_a.leads, 30, "node A's beat never led")  # the beat to be taken over
    node_b.start()
    player = funded_player("two-nodes", pit)
    token = issue_token(player, "tests")[0]

    # Opened through A, decided through B.
    first = open_round(node_a, token, short_decisions, "open-1")
    answer = node_b.post(
        token, f"/api/v1/joker-draw/rounds/{first}/actions/", {"box": 1, "action": "bet"}, "bet-1"
    )
    assert answer["state"] == RoundStatus.SETTLED

    # A stream on B hears a seat taken through A.
    stud_table = make_stud_table(pit, pit2)
    watcher = make_user("watcher", PLAYER)
    status, stream, _first = open_stream(
        f"http://{node_b.host}:{node_b.server.port}", stud_table.pk, session_cookie(watcher)
    )
    assert status == 200
    sitter: User = make_user("sitter", PLAYER)
    deposit(player=sitter, currency="USD", amount=Decimal("200.00"), reason="cash", by=pit)
    try:
        node_a.post(
            issue_token(sitter, "tests")[0],
            f"/api/v1/stud/tables/{stud_table.pk}/seats/",
            {"seat": 1, "buy_in": "60.00"},
            "sit-1",
        )
        assert b"event: changed" in read_more(stream, b"event: changed")
    finally:
        stream.close()

    # Rounds opened through A, then A lost whole before anyone decides: B folds them.
    others = [funded_player(f"left-{n}", pit) for n in range(3)]
    pending = [
        open_round(node_a, issue_token(other, "tests")[0], short_decisions, "open")
        for other in others
    ]
    node_a.kill()
    lost_at = time.monotonic()

    def all_settled() -> bool:
        return Round.objects.filter(pk__in=pending, status=RoundStatus.SETTLED).count() == 3

    wait_until(all_settled, FOLDED_WITHIN, "node B did not fold the rounds node A left")
    assert time.monotonic() - lost_at < FOLDED_WITHIN
    assert node_b.leads()
    for someone in (player, *others):
        for round_ in Round.objects.filter(player=someone):
            assert round_.status == RoundStatus.SETTLED
            assert_settled_once(round_, someone)
    call_command("ledger_check", stdout=StringIO())
