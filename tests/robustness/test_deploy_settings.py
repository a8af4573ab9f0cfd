"""The production settings pass Django's deployment checks: HTTPS with HSTS, secure cookies,
a strong secret key, named hosts (README, Configuration)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "casino.example",
    "SECURE_SSL_REDIRECT": "true",
}


def check_deploy(**env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        # The production environment, not this test process's: the browser tests allow the ORM
        # beside Playwright's event loop, which no deployment may.
        env={
            **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_production_settings_pass_the_deployment_checks():
    result = check_deploy(**PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_production_environment_of_the_readme_gives_no_warning_at_all():
    """As README's "Running in production" sets a web process: JSON logs, behind a TLS proxy,
    the health checks' settings given; nothing silenced."""
    result = check_deploy(
        **PRODUCTION,
        LOG_FORMAT="json",
        SECURE_PROXY_SSL_HEADER="true",
        NUM_PROXIES="1",
        HEALTH_CHECK_TIMEOUT="1",
        HEALTH_OVERDUE_SECONDS="60",
        HEALTH_WORKER_MAX_AGE="60",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert "WARNING" not in result.stdout + result.stderr
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("change", "warning"),
    [
        ({"SECURE_SSL_REDIRECT": "false"}, "security.W008"),
        ({"SECRET_KEY": "short"}, "security.W009"),
        ({"SECURE_HSTS_SECONDS": "0"}, "security.W004"),
        ({"SESSION_COOKIE_SECURE": "false"}, "security.W012"),
    ],
)
def test_each_weakened_setting_is_caught(change, warning):
    result = check_deploy(**{**PRODUCTION, **change})
    assert result.returncode != 0
    assert warning in result.stdout + result.stderr
