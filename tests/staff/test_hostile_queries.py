"""Query strings a careless integrator or a curious auditor writes: a gaming day at either end
of the calendar, a page number in superscript digits or five thousand digits long. Each is
refused with 400 naming the parameter, never answered with a server error."""

from __future__ import annotations

import io
from datetime import date

import pytest
from django.core.management import CommandError, call_command

from games.tables import gaming_day
from tests.fixtures.users import api_client, logged_in

LAST_CALENDAR_DAY = "9999-12-31"

# Every audit page, CSV and endpoint that reads a gaming day, with the parameters it reads.
DAY_FILTERS = {
    "/staff/payouts/rounds/": ("date_from", "date_to"),
    "/staff/payouts/rounds.csv": ("date_from", "date_to"),
    "/staff/gaming-day/": ("date", "to"),
    "/staff/gaming-day.csv": ("date", "to"),
    "/staff/gaming-day/chart.png": ("date",),
    "/staff/ledger/accounts/": ("as_of",),
    "/staff/ledger/accounts.csv": ("as_of",),
    "/staff/ledger/trial-balance.csv": ("as_of",),
    "/api/v1/staff/payouts/rounds/": ("date_from", "date_to"),
    "/api/v1/staff/ledger/trial-balance/": ("as_of",),
    "/api/v1/staff/ledger/accounts/": ("as_of",),
    "/api/v1/staff/gaming-day/": ("date", "to"),
}
HOSTILE_PAGES = ("²", "1" * 5000, "0", "-1", "1.5", "")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "field"), [(url, field) for url, fields in DAY_FILTERS.items() for field in fields]
)
def test_the_calendars_last_day_is_refused_naming_the_field(auditor, url, field):
    """The last day of the calendar has no end for a gaming day to reach (it would run into
    the year 10000): refused, not a server error."""
    query = {field: LAST_CALENDAR_DAY}
    if field == "to":
        query["date"] = "9999-12-30"
    if url.startswith("/api/"):
        response = api_client(auditor).get(url, query)
        assert response.status_code == 400, response.content
        assert field in response.json()["errors"]
    else:
        response = logged_in(auditor).get(url, query)
        assert response.status_code == 400
        if url.endswith("/"):  # the page shows the error beside the field
            assert field in response.context["form"].errors
        else:
            assert field in response.content.decode()


@pytest.mark.django_db
def test_the_last_gaming_day_the_calendar_holds_is_read(auditor):
    response = api_client(auditor).get("/api/v1/staff/gaming-day/", {"date": "9999-12-30"})
    assert response.status_code == 200, response.content


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/v1/staff/payouts/rounds/", "/api/v1/staff/ledger/accounts/"])
@pytest.mark.parametrize("page", HOSTILE_PAGES)
def test_a_page_that_is_no_page_number_is_refused(auditor, url, page):
    response = api_client(auditor).get(url, {"page": page})
    assert response.status_code == 400, response.content
    assert "page" in response.json()["errors"]


@pytest.mark.django_db
def test_the_command_refuses_the_calendars_last_day():
    with pytest.raises(CommandError, match="date"):
        call_command("gaming_day_report", date=LAST_CALENDAR_DAY, stdout=io.StringIO())
    with pytest.raises(CommandError, match="to"):
        call_command(
            "gaming_day_report", date="9999-12-30", to=LAST_CALENDAR_DAY, stdout=io.StringIO()
        )


@pytest.mark.django_db
@pytest.mark.parametrize("odds", ["²:1", "1:²", "1" * 19 + ":1", "٣:1"])
def test_odds_other_than_a_few_ascii_digits_are_refused_beside_the_line(
    pit, default_paytables, odds
):
    paytable = default_paytables["bet"]
    response = logged_in(pit).post(
        f"/staff/paytables/{paytable.pk}/propose/", {"reason": "new odds", "pair": odds}
    )
    assert response.status_code == 400  # the form again, with the error beside the line
    assert "pair" in response.context["form"].errors
    assert not paytable.versions.filter(status="draft").exists()


@pytest.mark.django_db
def test_the_hold_chart_draws_one_gaming_day_however_long_the_range_asked(auditor, monkeypatch):
    """A year of days for every table would keep a web worker drawing for minutes: the chart
    reads the one gaming day the report's page shows."""
    read = []
    monkeypatch.setattr(
        gaming_day, "daily_rows", lambda first, last, **_: read.append((first, last)) or []
    )
    response = logged_in(auditor).get(
        "/staff/gaming-day/chart.png", {"date": "2026-01-01", "to": "2026-12-31"}
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert read == [(date(2026, 1, 1), date(2026, 1, 1))]
