"""Live table streams against the real web server, started by scripts/serve.sh as `make run`
starts it: many open streams leave the site answering, each user holds only so many, a stream
says nothing the polling endpoints would not, and the sign-in throttle counts across the
server's worker processes whatever X-Forwarded-For claims."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from casino.http.tokens import issue_token
from casino.roles import PLAYER
from games.stud.tasks import STUD as stud
from payouts.services import deposit
from tests.fixtures.servers import open_stream, read_more, session_cookie
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import make_user
from tests.fixtures.workers import ROOT, private_broker_url, worker_env

READY_SECONDS = 60.0
PLAYERS = 4
STREAMS_EACH = 8  # LIVE_STREAMS_PER_USER's default: 32 streams in all


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """scripts/serve.sh on this test's database, with Redis as `make run` gives it (REDIS_URL,
    no CACHE_URL); yields its base URL."""
    port = _free_port()
    env = {
        key: value
        for key, value in worker_env(
            DEBUG="false", PORT=str(port), REDIS_URL=private_broker_url()
        ).items()
        if key not in ("CACHE_URL", "DB_CONN_MAX_AGE")
    }
    log = tmp_path / "server.log"
    with log.open("ab") as sink:
        process = subprocess.Popen(  # noqa: S603 - the project's own script
            [str(ROOT / "scripts" / "serve.sh")],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + READY_SECONDS
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@pytest.mark.django_db(transaction=True)
def test_32_open_streams_leave_the_site_answering(server, pit, pit2):
    port = int(server.rsplit(":", 1)[1])
    table = make_stud_table(pit, pit2)
    players = [make_user(f"watcher{n}", PLAYER) for n in range(1, PLAYERS + 1)]
    cookies = [session_cookie(user) for user in players]
    token = issue_token(players[0], "tests")[0]

    streams = []
    try:
        for cookie in cookies:
            for _ in range(STREAMS_EACH):
                status, sock, _first = open_stream(server, table.pk, cookie)
                streams.append(sock)
                assert status == 200
        assert len(streams) == 32

        # Every stream is still open, and the site answers at once.
        for _ in range(5):
            started = time.monotonic()
            wallets = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            wallets.request("GET", "/api/v1/wallets/", headers={"Authorization": f"Token {token}"})
            answer = wallets.getresponse()
            assert answer.status == 200, answer.read()
            answer.read()
            wallets.close()
            assert time.monotonic() - started < 2
        # One more of a player's streams is refused, whichever worker process takes it.
        status, extra, _ = open_stream(server, table.pk, cookies[0])
        extra.close()
        assert status == 429

        # A hand is dealt: the watchers hear that the table changed, and nothing else (the
        # cards are the API's to show, to each viewer their own).
        seated = [make_user(name, PLAYER) for name in ("ann", "ben")]
        for number, user in enumerate(seated, start=1):
            deposit(player=user, currency="USD", amount=Decimal("200.00"), reason="cash", by=pit)
            stud.join(player=user, table=table, seat=number, buy_in=Decimal("100.00"))
        heard = read_more(streams[0], b"event: changed")
        events = [line for line in heard.split(b"\n") if line.startswith(b"data:")]
        assert events
        assert {line.strip() for line in events} == {f'data: {{"table": {table.pk}}}'.encode()}
    finally:
        for sock in streams:
            sock.close()

    # Pages that went away gave their places back.
    deadline = time.monotonic() + 10
    while True:
        status, sock, _ = open_stream(server, table.pk, cookies[0])
        sock.close()
        if status == 200:
            break
        assert time.monotonic() < deadline, "closed streams still counted"
        time.sleep(0.2)


@pytest.mark.django_db(transaction=True)
def test_the_real_server_counts_sign_ins_whatever_x_forwarded_for_claims(server, player):
    """Two worker processes behind one port, and a client that writes a fresh X-Forwarded-For
    each time: the tenth wrong password is the last one tried (LOGIN_THROTTLE_RATE, 10/min)."""
    port = int(server.rsplit(":", 1)[1])
    codes = []
    for attempt in range(14):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        body = b'{"username": "alice", "password": "guess"}'
        forged = f"X-Forwarded-For: 203.0.113.{attempt}\r\n".encode()
        sock.sendall(
            b"POST /api/v1/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nConnection: close\r\n"
            + forged
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        codes.append(int(read_more(sock, b"\r\n").split(b" ", 2)[1]))
        sock.close()
    assert codes == [400] * 10 + [429] * 4
