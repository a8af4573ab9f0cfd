"""The sample Prometheus alert rules and configuration and the Grafana dashboard in deploy/: each
parses, and every expression names only series GET /metrics exports (a renamed series breaks
this test, not a night's alerting), with Celery task names the workers know."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from casino.celery import app as celery_app
from games.joker_draw import tasks as _joker_draw_tasks  # noqa: F401 - registers the tasks
from payouts.models import ReconciliationReport
from tests.fixtures.workers import ROOT

DEPLOY = ROOT / "deploy"
_SUFFIXES = ("", "_total", "_bucket", "_sum", "_count")
# PromQL's words that are neither series nor functions.
_KEYWORDS = frozenset(
    {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or",
     "unless", "offset", "inf", "nan"}
)  # fmt: skip


@pytest.fixture
def families(db) -> list[str]:
    """The names of the series families /metrics shows, a ledger check having run (so that
    its gauges are there too)."""
    ReconciliationReport.objects.create(ok=True, trial_balance={}, problems={})
    text = Client().get("/metrics").content.decode()
    return [family.name for family in text_string_to_metric_families(text)]


@pytest.fixture
def exported(families) -> set[str]:
    """Every series name /metrics shows: each family's with its samples' suffixes."""
    return {name + suffix for name in families for suffix in _SUFFIXES}


def series_named(expr: str) -> set[str]:
    """The series names in a PromQL expression: what is left once strings, label matchers,
    ranges, groupings, functions, keywords and numbers are taken out."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', "", expr)
    text = re.sub(r"\{[^}]*\}", "", text)
    text = re.sub(r"\[[^\]]*\]", "", text)
    text = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)
    names = set()
    for found in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        rest = text[found.end() :].lstrip()
        if rest.startswith("(") or found.group().lower() in _KEYWORDS:
            continue
        if text[max(0, found.start() - 1)].isdigit():  # 26e3, 5m
            continue
        names.add(found.group())
    return names


def tasks_named(expr: str) -> set[str]:
    return set(re.findall(r'task\s*=\s*"([^"]+)"', expr))


def test_the_parser_of_expressions_finds_what_it_should():
    expr = 'sum by (le, view) (rate(casino_x_bucket{status="5xx"}[5m])) / casino_y > 2 * 3600'
    assert series_named(expr) == {"casino_x_bucket", "casino_y"}
    assert series_named("time() - casino_z > 26 * 3600") == {"casino_z"}
    assert series_named("(sum(increase(casino_a[2m])) or vector(0)) == 0") == {"casino_a"}


def test_the_alert_rules_parse_and_name_only_exported_series(exported):
    rules = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text())
    alerts = [rule for group in rules["groups"] for rule in group["rules"]]
    names = {rule["alert"] for rule in alerts}
    for wanted in ("TimerLag", "LedgerCheckFailing", "BankrollLow", "Http5xxRate", "NoWorker"):
        assert any(wanted in name for name in names), wanted
    celery_app.loader.import_default_modules()
    for rule in alerts:
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule["alert"]
        assert rule["labels"]["severity"] in ("page", "ticket")
        assert rule["annotations"]["summary"]
        named = series_named(rule["expr"])
        assert named, rule["alert"]
        assert named <= exported, (rule["alert"], named - exported)
        assert tasks_named(rule["expr"]) <= set(celery_app.tasks), rule["alert"]


def test_the_prometheus_configuration_loads_the_rules():
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    assert config["rule_files"] == ["alerts.yml"]
    (job,) = config["scrape_configs"]
    assert job["metrics_path"] == "/metrics"


def test_the_dashboard_parses_and_names_only_exported_series(families, exported):
    dashboard = json.loads((DEPLOY / "grafana" / "casino.json").read_text())
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    assert len(exprs) >= 10
    shown = set()
    for expr in exprs:
        named = series_named(expr)
        assert named <= exported, (expr, named - exported)
        shown |= named
    # Every family of the application's own is on the dashboard.
    for family in families:
        if family.startswith("casino_"):
            assert any(name.startswith(family) for name in shown), family
