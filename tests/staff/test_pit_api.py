"""The pit's staff API (/api/v1/staff/): a table's lifecycle, limits and paytables under
maker-checker, RTP runs, voids; and what a dishonest player, a curious auditor, a pit boss
approving their own change or a careless integrator replaying a key get."""

from __future__ import annotations

from decimal import Decimal

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator

from games.joker_draw import rtp_lab
from games.joker_draw import services as joker_draw
from games.joker_draw.paytable_selectors import RANK_ORDER
from games.models import Round, RoundStatus, Table, TableLimits, TableStatus
from games.stud.hand import engine_table
from games.tables.table_game import game_of
from payouts.approvals import ChangeStatus
from payouts.models import LedgerTransaction, PaytableVersion, RtpRun
from tests.fixtures.users import api_client

D = Decimal
API = "/api/v1/staff"
STUD_LIMITS = {
    "ante": "0.50", "bring_in": "1.00", "small_bet": "5.00", "big_bet": "10.00", "seats": 8,
    "rake_percent": "5.00", "rake_cap": "3.00", "buy_in_min": "50.00", "buy_in_max": "500.00",
    "action_timeout_seconds": 30,
}  # fmt: skip


def post(user, url, body=None, key="k-1"):
    return api_client(user).post(f"{API}{url}", body or {}, format="json", HTTP_IDEMPOTENCY_KEY=key)


def get(user, url):
    return api_client(user).get(f"{API}{url}")


def new_stud_table(pit, name="Stud API"):
    body = {"name": name, "game": "seven_card_stud", "currency": "USD", "reason": "new pit"}
    response = post(pit, "/tables/", body, key=f"create-{name}")
    assert response.status_code == 201, response.content
    return response.json()


def test_a_table_is_created_given_limits_approved_by_another_and_opened(pit, pit2):
    table = new_stud_table(pit)
    assert (table["status"], get(pit, f"/tables/{table['id']}/").json()["next_step"]) == (
        "closed",
        "propose_limits",
    )
    proposed = post(
        pit, f"/tables/{table['id']}/limits/", {"limits": STUD_LIMITS, "reason": "opening"}
    )
    assert proposed.status_code == 201, proposed.content
    draft = proposed.json()
    assert (draft["status"], draft["proposed_by"], draft["limits"]["small_bet"]) == (
        "draft",
        pit.username,
        "5.00",
    )
    assert get(pit, f"/tables/{table['id']}/").json()["next_step"] == "approve_limits"
    approved = post(pit2, f"/limits/{draft['id']}/approve/", key="approve")
    assert approved.status_code == 200, approved.content
    assert (approved.json()["status"], approved.json()["approved_by"]) == (
        "approved",
        pit2.username,
    )
    opened = post(pit2, f"/tables/{table['id']}/open/", {"reason": "evening shift"}, key="open")
    assert (opened.status_code, opened.json()["status"]) == (200, "open")
    closed = post(pit, f"/tables/{table['id']}/close/", {"reason": "night"}, key="close")
    assert (closed.status_code, closed.json()["status"]) == (200, "closed")

    history = get(pit, f"/tables/{table['id']}/history/").json()
    reasons = {(entry["subject"], entry["action"]): entry["reason"] for entry in history}
    assert reasons[("table Stud API", "open")] == "evening shift"
    assert reasons[("table Stud API", "closed")] == "night"
    assert reasons[("limits v1", "proposed")] == "opening"
    opening = next(e for e in history if e["action"] == "open")
    assert opening["who"] == pit2.username
    assert opening["changes"] == [{"label": "status", "old": "closed", "new": "open"}]
    listed = get(pit, f"/tables/{table['id']}/limits/").json()
    assert [(v["number"], v["status"]) for v in listed] == [(1, "approved")]


def test_the_maker_may_not_approve_their_own_limits(pit):
    table = new_stud_table(pit)
    draft = post(
        pit, f"/tables/{table['id']}/limits/", {"limits": STUD_LIMITS, "reason": "opening"}
    ).json()
    own = post(pit, f"/limits/{draft['id']}/approve/", key="own")
    assert own.status_code == 403
    assert own.json()["code"] == "separation_of_duties"
    assert "approved_by" in own.json()["errors"]
    assert TableLimits.objects.get(pk=draft["id"]).status == ChangeStatus.DRAFT


def test_a_table_without_approved_limits_does_not_open(pit):
    table = new_stud_table(pit)
    response = post(pit, f"/tables/{table['id']}/open/", {"reason": "go"})
    assert response.status_code == 409
    assert (response.json()["code"], list(response.json()["errors"])) == (
        "wrong_status",
        ["status"],
    )
    assert Table.objects.get(pk=table["id"]).status == TableStatus.CLOSED


def table_body(**changes):
    return {"name": "T", "game": "drawmaha", "currency": "USD", "reason": "r", **changes}


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        (table_body(name=""), "name", "blank"),
        (table_body(game="roulette"), "game", "invalid_choice"),
        (table_body(currency="XYZ"), "currency", "invalid_choice"),
        (table_body(reason="  "), "reason", "blank"),
        ({"name": "T", "game": "drawmaha", "currency": "USD"}, "reason", "required"),
    ],
)
def test_a_bad_table_is_refused_naming_the_field(pit, body, field, code):
    response = post(pit, "/tables/", body)
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert response.json()["code"] == code
    assert not Table.objects.exists()


def test_a_second_table_of_the_same_name_is_refused(pit):
    new_stud_table(pit, "Twin")
    response = post(pit, "/tables/", {"name": "Twin", "game": "drawmaha", "currency": "USD",
                                      "reason": "again"}, key="twin-2")  # fmt: skip
    assert (response.status_code, list(response.json()["errors"])) == (400, ["name"])
    assert Table.objects.count() == 1


@pytest.mark.parametrize(
    ("limits", "field"),
    [
        ({**STUD_LIMITS, "small_bet": 5.0}, "small_bet"),  # a JSON number, not a string
        ({**STUD_LIMITS, "small_bet": "1e3"}, "small_bet"),
        ({**STUD_LIMITS, "bring_in": "6.00"}, "bring_in"),  # ST-1: less than the small bet
        ({**STUD_LIMITS, "min_ante": "0.30"}, "min_ante"),  # another game's limit
        ({**STUD_LIMITS, "open_pair_big_bet": "perhaps"}, "open_pair_big_bet"),  # ST-5
    ],
)
def test_bad_limits_are_refused_naming_the_field_and_change_nothing(pit, limits, field):
    table = new_stud_table(pit)
    response = post(pit, f"/tables/{table['id']}/limits/", {"limits": limits, "reason": "x"})
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]
    assert not TableLimits.objects.filter(table_id=table["id"]).exists()


@pytest.mark.parametrize("setting", [False, True, None])
def test_st5_open_pair_big_bet_is_a_stud_limit(pit, setting):
    """ST-5's big bet is the table's choice, proposed and shown with the other limits; left out
    (None) the table follows the source, which allows it."""
    table = new_stud_table(pit)
    limits = {**STUD_LIMITS, **({} if setting is None else {"open_pair_big_bet": setting})}
    proposed = post(pit, f"/tables/{table['id']}/limits/", {"limits": limits, "reason": "ST-5"})
    assert proposed.status_code == 201, proposed.content
    assert proposed.json()["limits"]["open_pair_big_bet"] is setting
    draft = TableLimits.objects.get(table_id=table["id"])
    assert engine_table(draft).open_pair_big_bet is (setting is not False)


def test_a_player_reaches_nothing_of_the_staff_api(player, joker_table):
    for url in ("/tables/", f"/tables/{joker_table.pk}/history/", "/paytable-versions/"):
        assert get(player, url).status_code == 403
    body = {"name": "Mine", "game": "drawmaha", "currency": "USD", "reason": "mine"}
    assert post(player, "/tables/", body).status_code == 403
    assert post(player, f"/tables/{joker_table.pk}/close/", {"reason": "mine"}).status_code == 403
    assert Table.objects.get(pk=joker_table.pk).status == TableStatus.OPEN


def test_an_auditor_reads_but_writes_nothing(auditor, joker_table, default_paytables):
    assert get(auditor, "/tables/").status_code == 200
    assert get(auditor, f"/tables/{joker_table.pk}/limits/").status_code == 200
    version = default_paytables["bet"].active_version()
    assert get(auditor, f"/paytable-versions/{version.pk}/diff/").status_code == 200
    for url, body in (
        ("/tables/", {"name": "A", "game": "drawmaha", "currency": "USD", "reason": "r"}),
        (f"/tables/{joker_table.pk}/close/", {"reason": "r"}),
        (f"/paytable-versions/{version.pk}/rtp-runs/", {}),
    ):
        assert post(auditor, url, body).status_code == 403, url
    assert Table.objects.count() == 1
    assert not RtpRun.objects.filter(requested_by=auditor).exists()


def test_a_replayed_key_answers_the_same_and_another_body_under_it_is_refused(pit):
    body = {"name": "Once", "game": "drawmaha", "currency": "USD", "reason": "r"}
    first = post(pit, "/tables/", body, key="same")
    again = post(pit, "/tables/", body, key="same")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    other = post(pit, "/tables/", {**body, "name": "Twice"}, key="same")
    assert other.status_code == 409
    assert Table.objects.count() == 1


def test_a_paytable_version_is_proposed_compared_computed_and_approved(
    default_paytables, pit, pit2
):
    bonus = default_paytables["bonus"]
    in_force = bonus.active_version()
    lines = {c: f"{o.numerator}:{o.denominator}" for c, o in in_force.odds().items()}
    top = max(in_force.odds(), key=lambda c: in_force.odds()[c])
    lines[top] = "1000:1"
    body = {"paytable": bonus.name, "lines": lines, "reason": "jackpot"}
    proposed = post(pit, "/paytable-versions/", body)
    assert proposed.status_code == 201, proposed.content
    version = proposed.json()
    assert list(version["lines"]) == [c for c in RANK_ORDER if c in lines]  # highest hand first

    diff = get(pit2, f"/paytable-versions/{version['id']}/diff/").json()
    assert diff["in_force"] == in_force.pk
    changed = [line for line in diff["lines"] if line["change"] != "same"]
    was = lines_of(in_force)[top]
    assert changed == [
        {"category": top, "in_force": was, "proposed": "1000:1", "change": "changed"}
    ]
    assert diff["rtp_in_force"] is not None
    assert diff["rtp_proposed"] is None  # not computed yet

    refused = post(pit2, f"/paytable-versions/{version['id']}/approve/", key="early")
    assert (refused.status_code, refused.json()["code"]) == (409, "rtp_not_in_band")

    started = post(pit2, f"/paytable-versions/{version['id']}/rtp-runs/", key="run")
    assert started.status_code == 201, started.content
    run = started.json()
    assert (run["status"], run["chunks_done"], run["percent"]) == ("running", 0, 0)
    rtp_lab.run_in_process(RtpRun.objects.get(pk=run["id"]))  # what the workers do
    done = get(pit, f"/rtp-runs/{run['id']}/").json()
    assert (done["status"], done["percent"], done["chunks_done"]) == ("done", 100, run["chunks"])
    assert done["rtp"] == done["result"]["bonus_exact_rtp"]

    own = post(pit, f"/paytable-versions/{version['id']}/approve/", key="own")
    assert (own.status_code, own.json()["code"]) == (403, "separation_of_duties")
    approved = post(pit2, f"/paytable-versions/{version['id']}/approve/", key="approve")
    assert (approved.status_code, approved.json()["status"]) == (200, "approved"), approved.content
    listed = get(pit, f"/paytable-versions/?paytable={bonus.name}").json()
    assert [v["status"] for v in listed][:2] == ["approved", "approved"]


def lines_of(version: PaytableVersion) -> dict[str, str]:
    return {c: f"{o.numerator}:{o.denominator}" for c, o in version.odds().items()}


@pytest.mark.parametrize(
    ("lines", "code"),
    [({}, "no_lines"), ({"pair": "0:1"}, "odds"), ({"pair": "-1"}, "odds"),
     ({"pair": "1.5"}, "odds"), ({"jackpot": "1:1"}, "unknown_category")],
)  # fmt: skip
def test_bad_paytable_lines_are_refused_with_their_code(default_paytables, pit, lines, code):
    before = PaytableVersion.objects.count()
    body = {"paytable": default_paytables["bet"].name, "lines": lines, "reason": "x"}
    response = post(pit, "/paytable-versions/", body)
    assert response.status_code == 400
    assert (list(response.json()["errors"]), response.json()["code"]) == (["lines"], code)
    assert PaytableVersion.objects.count() == before


def test_a_no_game_line_paying_fractions_of_a_cent_is_refused_with_its_code(joker_table, pit):
    """JD-2, JD-11a: antes in steps of 0.30; a no-game line of 1:7 would pay 0.30 a fraction
    of a cent, so the proposal is refused with a code of its own and nothing is saved."""
    bet = joker_table.active_limits().bet_paytable
    lines = lines_of(bet.active_version())
    before = PaytableVersion.objects.count()
    body = {"paytable": bet.name, "lines": {**lines, "no_game": "1:7"}, "reason": "odd"}
    refused = post(pit, "/paytable-versions/", body)
    assert refused.status_code == 400
    answer = refused.json()
    assert (answer["code"], list(answer["errors"])) == (
        "no_game_not_whole_cents",
        ["lines.no_game"],
    )
    assert (
        "1:7 would pay a fraction of a cent (JD-2, JD-11a)" in answer["errors"]["lines.no_game"][0]
    )
    assert PaytableVersion.objects.count() == before
    body["lines"]["no_game"] = "1:2"
    proposed = post(pit, "/paytable-versions/", body, key="k-2")
    assert proposed.status_code == 201, proposed.content
    assert proposed.json()["lines"]["no_game"] == "1:2"
    assert list(proposed.json()["lines"])[-1] == "no_game"  # printed below every hand


def test_a_bonus_paytable_version_with_a_no_game_line_is_refused(default_paytables, pit):
    bonus = default_paytables["bonus"]  # JD-11a, JD-13
    body = {"paytable": bonus.name, "lines": {"straight": "40:1", "no_game": "1:1"}, "reason": "x"}
    refused = post(pit, "/paytable-versions/", body)
    assert refused.status_code == 400
    assert list(refused.json()["errors"]) == ["lines.no_game"]
    assert bonus.versions.count() == 1


def test_a_round_in_play_is_voided_once_over_the_api(joker_table, funded_player, pit, auditor):
    boxes = [joker_draw.BoxRequest(1, D("0.30"))]
    round_ = joker_draw.open_round(player=funded_player, table=joker_table, boxes=boxes).round
    assert post(auditor, f"/rounds/{round_.pk}/void/", {"reason": "peek"}).status_code == 403
    assert post(pit, f"/rounds/{round_.pk}/void/", {}).status_code == 400
    voided = post(pit, f"/rounds/{round_.pk}/void/", {"reason": "dealer error"}, key="void")
    assert voided.json() == {"round": round_.pk, "status": "voided", "reason": "dealer error"}
    transactions = LedgerTransaction.objects.count()
    again = post(pit, f"/rounds/{round_.pk}/void/", {"reason": "twice"}, key="void-2")
    assert (again.status_code, again.json()["code"]) == (409, "round_not_in_play")
    assert LedgerTransaction.objects.count() == transactions
    assert Round.objects.get(pk=round_.pk).status == RoundStatus.VOIDED


def test_limits_of_a_banked_table_name_their_paytables(joker_table, pit):
    versions = get(pit, f"/tables/{joker_table.pk}/limits/").json()
    limits = versions[0]["limits"]
    assert set(limits) == set(game_of("joker_draw").limit_fields)
    assert limits["bet_paytable"] == "joker-draw-bet-default"


def test_a_refusal_of_limits_of_several_parts_matches_the_refusal_in_the_schema(pit):
    """A field made of parts (the limits) is refused part by part: its errors are an object,
    which the schema the casino's other systems build their clients from allows."""
    table = new_stud_table(pit)
    response = post(
        pit, f"/tables/{table['id']}/limits/", {"limits": {"ante": None}, "reason": "x"}
    )
    assert response.status_code == 400, response.content
    body = response.json()
    schema = SchemaGenerator().get_schema(request=None, public=True)
    refusal = schema["components"]["schemas"]["Refusal"]
    jsonschema.validate(body, refusal)
    assert body["errors"]["limits"] == {"ante": ["This field may not be null."]}
