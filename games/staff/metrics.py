"""``GET /metrics``: the casino's series in Prometheus's text format, for the operators' scraper.

Who may read it: a caller from ``METRICS_ALLOWED_ADDRESSES`` (loopback by default), or one that
sends ``Authorization: Bearer <METRICS_TOKEN>`` (compared in constant time; with no token set
there is no bearer access). The address is the one the sign-in throttles read
(``casino.http.throttling.client_address``): the connection's own, or, with ``NUM_PROXIES``
proxies of ours in front, the one they saw, so a client that writes ``X-Forwarded-For``
itself gains nothing, and a proxy on loopback does not make every caller local. Anyone else
gets 404, the answer of an address the site does not serve: the endpoint is not advertised to
scanners, and a scraper that was refused shows as down in Prometheus either way.

What the processes keep (requests, rounds, timed-out decisions, live streams, Celery tasks) is
in ``casino.metrics``; what is read from the database at each scrape is collected here
(``ScrapeTimeCollector``) and never stored: the timers' lag and the tables whose timers are
stuck, the house bankroll, and the last ledger check.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
from collections.abc import Iterator
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from casino import metrics as process_metrics
from casino.http.throttling import client_address
from games.tables import selectors
from payouts.models import ReconciliationReport
from payouts.selectors import bankrolls

logger = logging.getLogger(__name__)


def _address_allowed(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # an IPv4 client of a dual-stack socket
    return any(
        ip in ipaddress.ip_network(network, strict=False)
        for network in settings.METRICS_ALLOWED_ADDRESSES
    )


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def _token_given(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if not token or scheme.lower() != "bearer":
        return False
    # Digests of equal length: the comparison's time tells nothing of the token, its length
    # included.
    return hmac.compare_digest(_digest(given.strip()), _digest(token))


def may_read_metrics(request: HttpRequest) -> bool:
    return _address_allowed(client_address(request)) or _token_given(request)


class ScrapeTimeCollector:
    """The gauges read from the database at each scrape: a few indexed reads."""

    def collect(self) -> Iterator[Metric]:
        database = GaugeMetricFamily(
            "casino_metrics_database_up",
            "Whether this scrape could read the database (the gauges below come from it).",
        )
        try:
            found = list(self._from_database())
        except DatabaseError:
            logger.warning("/metrics could not read the database", exc_info=True)
            database.add_metric([], 0)
            yield database
            return
        database.add_metric([], 1)
        yield database
        yield from found

    def _from_database(self) -> Iterator[Metric]:
        now = timezone.now()
        oldest = selectors.oldest_overdue_deadline(now)
        yield GaugeMetricFamily(
            "casino_decision_timer_lag_seconds",
            "How long the decision longest out of time, at any table, has been overdue "
            "(0: the timers are keeping up).",
            value=(now - oldest).total_seconds() if oldest is not None else 0.0,
        )
        stuck_after = settings.METRICS_TIMER_STUCK_SECONDS
        yield GaugeMetricFamily(
            "casino_tables_timers_stuck",
            f"Tables with a decision more than {stuck_after} s overdue "
            "(METRICS_TIMER_STUCK_SECONDS): the timers and the sweeper did not catch them up.",
            value=selectors.tables_overdue_since(now - timedelta(seconds=stuck_after)),
        )
        available = GaugeMetricFamily(
            "casino_bankroll_available",
            "The house bankroll still available to cover rounds' top payouts, by currency.",
            labels=["currency"],
        )
        reserved = GaugeMetricFamily(
            "casino_bankroll_reserved",
            "The house bankroll held for the top payouts of the rounds in play, by currency.",
            labels=["currency"],
        )
        for currency, bankroll in bankrolls().items():
            available.add_metric([currency], float(bankroll.available))
            reserved.add_metric([currency], float(bankroll.reserved))
        yield available
        yield reserved
        last = (
            ReconciliationReport.objects.order_by("-created_at")
            .values_list("ok", "created_at")
            .first()
        )
        if last is not None:  # never checked yet: no sample, rather than a false one
            ok, checked_at = last
            yield GaugeMetricFamily(
                "casino_ledger_check_ok",
                "1 if the last ledger check (ledger_check, or the nightly report) passed, else 0.",
                value=1 if ok else 0,
            )
            yield GaugeMetricFamily(
                "casino_ledger_check_timestamp_seconds",
                "When the last ledger check ran (Unix time).",
                value=checked_at.timestamp(),
            )


# Exempt so that a stranger's POST gets the same 404 as a GET, not a CSRF refusal that would
# tell the path exists; the view changes nothing, whoever calls it.
@csrf_exempt
def metrics(request: HttpRequest) -> HttpResponse:
    """The series, for the allowed; 404 for anyone else (the module's docstring says why)."""
    if not may_read_metrics(request):
        raise Http404("No such page.")
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD"])
    shown = process_metrics.registry(ScrapeTimeCollector())
    return HttpResponse(generate_latest(shown), content_type=CONTENT_TYPE_PLAIN_0_0_4)
