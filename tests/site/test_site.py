"""The site answers: home page, admin login, API schema and docs."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings
from drf_spectacular.generators import SchemaGenerator


@pytest.mark.django_db
def test_home_page_links_admin_and_api_docs(client):
    response = client.get("/")
    assert response.status_code == 200
    assert b'href="/admin/"' in response.content
    assert b'href="/api/docs/"' in response.content


@pytest.mark.django_db
def test_admin_asks_for_login(client):
    response = client.get("/admin/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


@pytest.mark.django_db
def test_api_schema_and_docs_are_served_without_a_cdn(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    assert schema.json()["info"]["title"] == "Casino back office API"
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"cdn" not in docs.content.lower()


@pytest.mark.django_db
def test_seed_demo_refuses_with_debug_off():
    with override_settings(DEBUG=False), pytest.raises(CommandError, match="DEBUG"):
        call_command("seed_demo")


@pytest.mark.django_db
def test_seed_demo_creates_users_with_roles_and_is_repeatable(django_user_model):
    with override_settings(DEBUG=True):
        call_command("seed_demo")
        call_command("seed_demo")
    pit = django_user_model.objects.get(username="pit1")
    assert pit.check_password("pit1-demo")
    assert list(pit.groups.values_list("name", flat=True)) == ["pit_staff"]
    assert django_user_model.objects.filter(groups__name="player").count() == 4


@pytest.mark.django_db
def test_models_and_migrations_agree():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_the_openapi_schema_is_valid_and_free_of_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yml"))
    assert "/api/v1/joker-draw/rounds/{id}/actions/" in (tmp_path / "s.yml").read_text()


def _untyped(node: dict, components: dict) -> bool:
    """Whether a response's schema leaves its shape open: an object with no properties, or a
    list, or a page of a list, of such objects."""
    while "$ref" in node:
        node = components[node["$ref"].rsplit("/", 1)[1]]
    if node.get("type") == "array":
        return _untyped(node.get("items", {}), components)
    properties = node.get("properties")
    if properties:
        return "results" in properties and _untyped(properties["results"], components)
    return node.get("type", "object") == "object" and not node.get("allOf")


def test_every_answer_of_the_api_has_a_typed_schema():
    """The casino's other systems generate their clients from the schema: no successful JSON
    answer of any operation is a free-form object there, nor a list or a page of them."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    untyped = [
        f"{method.upper()} {path} {status}"
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        for status, response in operation["responses"].items()
        if str(status).startswith("2")
        for media_type, content in response.get("content", {}).items()
        if "json" in media_type and _untyped(content.get("schema", {}), components)
    ]
    assert untyped == []
