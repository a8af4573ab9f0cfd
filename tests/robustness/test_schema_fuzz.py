"""Hostile input over the whole OpenAPI schema (schemathesis): valid and invalid requests to every
operation, as a player and as pit staff, against a casino in mid-play. No answer is a 5xx,
every refusal is JSON with a ``detail`` saying what was wrong, and every answer the schema
describes has the shape it says (the fields, their types, nulls and values), which the
casino's other systems generate their clients from.

Examples per operation: ``FUZZ_EXAMPLES`` (default 8), derandomized so every run sends the same
requests. Path ids are replaced by the ids of the sample tables, rounds and hands, so requests
reach the game code instead of stopping at a 404.

Beside the generated cases, the values a generator rarely finds go to every operation once: a
NUL character in every query parameter, body field and text path parameter, the calendar's
ends (0001-01-01 ... 9999-12-31) in every date, and forged pagination cursors to every read.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
from urllib.parse import urlencode, urlsplit

import requests
import schemathesis
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from schemathesis.core.transport import Response
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.fixtures.routes import sample_kind

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "8"))

schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
# The coverage phase sends every boundary value of every field, unbounded by FUZZ_EXAMPLES:
# too slow for every run; the malformed amounts and cards are tested one by one instead.
schema.config.phases.update(phases=["examples", "fuzzing"])

FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
_keys = itertools.count()


def send(case, token: str, ids: dict[str, int]):
    """Send a generated case through Django's test client, inside the test's transaction."""
    if "id" in (case.path_parameters or {}):
        case.path_parameters["id"] = ids[sample_kind(case.path)]
    sent = case.as_transport_kwargs(base_url="http://testserver")
    headers = {k: str(v) for k, v in sent["headers"].items() if k.lower() != "content-type"}
    headers["Authorization"] = f"Token {token}"
    headers["Idempotency-Key"] = f"fuzz-{next(_keys)}"
    if "json" in sent:
        body, content_type = json.dumps(sent["json"]), "application/json"
    else:
        body = sent.get("data") or ""
        content_type = sent["headers"].get("Content-Type", "application/octet-stream")
    return Client().generic(
        case.method,
        urlsplit(sent["url"]).path,
        data=body,
        content_type=content_type,
        headers=headers,
        QUERY_STRING=urlencode(sent.get("params") or {}, doseq=True),
    )


def assert_answered_well(case, response) -> None:
    where = f"{case.method} {case.formatted_path} {case.query} {case.body!r:.300}"
    assert response.status_code < 500, where
    if response.status_code >= 400:
        assert response["Content-Type"].startswith("application/json"), where
        assert response.json()["detail"], where
    assert_described_by_the_schema(case, response)


def assert_described_by_the_schema(case, response) -> None:
    """The body of an answer whose status the schema documents validates against the schema
    given for it (schemathesis's response_schema_conformance)."""
    answer = Response(
        status_code=response.status_code,
        headers={name: [value] for name, value in response.headers.items()},
        content=response.content,
        request=requests.Request(case.method, f"http://testserver{case.formatted_path}").prepare(),
        elapsed=0.0,
        verify=True,
    )
    case.validate_response(answer, checks=[response_schema_conformance])


@schema.parametrize()
@FUZZ
def test_as_a_player(case, world, sample_ids):
    response = send(case, world.token(world.player), sample_ids)
    assert_answered_well(case, response)


@schema.parametrize()
@FUZZ
def test_as_pit_staff(case, world, sample_ids):
    response = send(case, world.token(world.pit), sample_ids)
    assert_answered_well(case, response)


# The hostile values a generator rarely finds, sent to every operation -----------------------------

NUL = "a\x00b"
# The calendar's ends and the days beside them: a day counted back or on from them leaves it.
CALENDAR_ENDS = ["0001-01-01", "0001-01-02", "9999-12-30", "9999-12-31"]
MOMENTS = [*CALENDAR_ENDS, "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"]
# A cursor a client wrote itself: DRF's format, with a position that is no id.
FORGED_CURSOR = base64.b64encode(b"p=abc").decode()
DATE_NAMES = {"from", "to", "date", "as_of", "date_from", "date_to", "until", "at"}
STAFF_PATHS = ("/api/v1/staff/", "/api/v1/accounts/", "/api/v1/cage/")


def _resolve(node: dict) -> dict:
    while "$ref" in node:
        node = schema.raw_schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _plain(node: dict) -> object:
    """A valid-looking value of a body field, so that the hostile one is what is refused."""
    node = _resolve(node)
    if "enum" in node:
        return next(value for value in node["enum"] if value not in ("", None))
    return {"integer": 1, "boolean": False, "array": [], "object": {}}.get(
        node.get("type", "string"), "1"
    )


def hostile_requests(path: str, method: str, operation: dict):
    """(query, body) pairs: NUL in every query parameter at once and in every body field at
    once (the edge refuses the request whichever it reads first), the calendar's ends in each
    date, and a forged cursor to every read (the cursor lists get every forgery in
    test_input_edges.py)."""
    query = [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
    if query:
        yield dict.fromkeys(query, NUL), None
    for name in query:
        if name in DATE_NAMES:
            for day in CALENDAR_ENDS:
                yield {name: day}, None
    if method == "get":
        yield {"cursor": FORGED_CURSOR}, None
    content = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if content:
        fields = _resolve(content["schema"]).get("properties", {})
        plain = {name: _plain(field) for name, field in fields.items()}
        yield {}, dict.fromkeys(fields, NUL)
        for name in fields:
            if name in DATE_NAMES:
                for moment in MOMENTS:
                    yield {}, plain | {name: moment}


def test_hostile_values_to_every_operation(world, sample_ids):
    """Each operation as the role that uses it (the staff API as pit staff, the rest as a
    player): NUL in every text (the path's too), the calendar's ends in every date, forged
    cursors to every list. No answer is a 5xx; every refusal is the one error shape."""
    tokens = {True: world.token(world.pit), False: world.token(world.player)}
    sent = 0
    for path, item in schema.raw_schema["paths"].items():
        token = tokens[path.startswith(STAFF_PATHS)]
        if "{id}" in path:
            path = path.replace("{id}", str(sample_ids[sample_kind(path)]))
        url = path.replace("{currency}", "USD").replace("{task_id}", "x")
        nul_path = path.replace("{currency}", "%00").replace("{task_id}", "%00")
        for method, operation in item.items():
            requests = [
                (url, query, body) for query, body in hostile_requests(path, method, operation)
            ]
            if nul_path != url:
                requests.append((nul_path, {}, None))
            for target, query, body in requests:
                response = Client().generic(
                    method.upper(),
                    target,
                    data=json.dumps(body) if body is not None else "",
                    content_type="application/json",
                    headers={
                        "Authorization": f"Token {token}",
                        "Idempotency-Key": f"hostile-{next(_keys)}",
                    },
                    QUERY_STRING=urlencode(query),
                )
                sent += 1
                where = f"{method.upper()} {target} {query!r} {body!r}"
                assert response.status_code < 500, where
                if response.status_code >= 400:
                    assert response["Content-Type"].startswith("application/json"), where
                    assert response.json()["detail"], where
    assert sent > 100  # every operation was reached
