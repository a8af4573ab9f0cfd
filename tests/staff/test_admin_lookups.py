"""The admin is no oracle. Every list of every admin (the project's and the third-party ones
registered on the site) filters only by the lookups its own filters send, and nothing it lists,
searches, orders by or shows reaches a secret of an unfinished round: its server seed and its
engine state (the deck, the dealer's and the down cards), nor the cards of its hand history
(FS-2: secret until the round is over)."""

from __future__ import annotations

import json
from decimal import Decimal
from urllib.parse import urlencode

import pghistory.models
import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.db.models import Model
from django.test import Client
from django.urls import reverse

from casino.admin_site import CasinoAdminSite, secret_fields
from casino.roles import PLAYER
from games.admin import RoundAdmin
from games.joker_draw import services as joker_draw
from games.models import Round, RoundEvent, RoundStatus, SeedPair
from games.stud.tasks import STUD as stud
from games.tables import seeds
from payouts.services import deposit
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import make_user

D = Decimal


@pytest.fixture
def unfinished_rounds(joker_table, pit, pit2, settings) -> list[Round]:
    """A joker draw round waiting for its player's decision and a stud hand in play, beside a
    settled joker draw round."""
    settings.STUD_HAND_PAUSE_SECONDS = 0
    carol, dan, eve = (make_user(name, PLAYER) for name in ("carol", "dan", "eve"))
    for user in (carol, dan, eve):
        deposit(player=user, currency="USD", amount=D("300.00"), reason="cash", by=pit)
    settled = joker_draw.open_round(
        player=dan, table=joker_table, boxes=[joker_draw.BoxRequest(1, D("0.30"))]
    ).round
    joker_draw.act(player=dan, round_id=settled.pk, box=1, action="fold")
    deciding = joker_draw.open_round(
        player=carol, table=joker_table, boxes=[joker_draw.BoxRequest(1, D("0.30"))]
    ).round
    stud_table = make_stud_table(pit, pit2)
    stud.join(player=dan, table=stud_table, seat=1, buy_in=D("100.00"))
    stud.join(player=eve, table=stud_table, seat=2, buy_in=D("100.00"))
    hand = Round.objects.get(table=stud_table, status=RoundStatus.DECIDING)
    assert Round.objects.get(pk=settled.pk).status == RoundStatus.SETTLED
    return [deciding, hand]


def changelist_url(model: type[Model]) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


def listed(client: Client, model: type[Model], params: dict[str, str]) -> tuple[int, list | None]:
    """The status of a list page and the rows it lists (None for a refused page)."""
    page = client.get(f"{changelist_url(model)}?{urlencode(params)}")
    changelist = page.context["cl"] if page.status_code == 200 and page.context else None
    rows = [row.pk for row in changelist.result_list] if changelist else None
    return page.status_code, rows


def registered() -> list[tuple[type[Model], admin.ModelAdmin]]:
    return list(admin.site._registry.items())


# What stays secret until the round is over (FS-2): the seed, the deck and every card dealt.
SECRETS: dict[type[Model], tuple[str, ...]] = {
    Round: ("server_seed", "engine_state"),
    RoundEvent: ("data",),
    SeedPair: ("server_seed",),
}


def test_the_models_name_their_secrets():
    assert {model: secret_fields(model) for model in SECRETS} == SECRETS


def secret_paths(
    model: type[Model], depth: int = 2, prefix: str = ""
) -> list[tuple[str, type[Model], str]]:
    """Every lookup path from ``model`` to a secret field, through up to ``depth`` relations,
    with the secret field's model and name."""
    paths = [(prefix + name, model, name) for name in SECRETS.get(model, ())]
    if depth:
        for field in model._meta.get_fields():
            if field.is_relation and isinstance(field.related_model, type):
                paths += secret_paths(field.related_model, depth - 1, f"{prefix}{field.name}__")
    return paths


def secret_of(round_: Round, model: type[Model], name: str) -> object:
    """What an attacker is after in a secret field of ``model`` for ``round_``: the seed that
    shuffled it (kept in its seed pair), its engine state, its first event's cards."""
    if model is RoundEvent:
        return getattr(round_.events.first(), name)
    if name == "server_seed":
        return round_.secret_server_seed()
    return getattr(round_, name)


def guesses(secret: object, name: str) -> list[tuple[str, str, str]]:
    """(lookup suffix, right value, wrong value) pairs an attacker would try on a secret."""
    if isinstance(secret, str):
        wrong = "zz" if not secret.startswith("zz") else "yy"
        return [
            ("__startswith", secret[:2], wrong),
            ("__exact", secret, wrong),
            ("__gte", secret[:2], "g"),
            ("", secret, wrong),
        ]
    assert isinstance(secret, dict | list), name
    key = next(iter(secret)) if isinstance(secret, dict) else "0"
    text = json.dumps(secret)
    return [
        ("__has_key", key, "no-such-key"),
        (f"__{key}__isnull", "False", "True"),
        ("__icontains", text[1:5], "no-such-text"),
    ]


def test_every_admin_refuses_a_lookup_it_does_not_declare(admin_user, unfinished_rounds):
    """No list filters by a lookup its filters do not send: a regex on any field of any model,
    a password hash's prefix, a round's seed, a hand history's cards."""
    client = Client()
    client.force_login(admin_user)
    answered = {}
    for model, _ in registered():
        for field in model._meta.concrete_fields:
            status, _rows = listed(client, model, {f"{field.name}__regex": "."})
            if status != 400:
                answered[f"{model._meta.label}.{field.name}__regex"] = status
    assert answered == {}


def test_declared_filters_still_filter(admin_user, unfinished_rounds):
    """Every choice every list filter offers (and the date hierarchy) still answers."""
    client = Client()
    client.force_login(admin_user)
    refused = {}
    for model, model_admin in registered():
        page = client.get(changelist_url(model))
        assert page.status_code == 200, model
        changelist: ChangeList = page.context["cl"]
        for spec in changelist.filter_specs:
            for choice in spec.choices(changelist):
                answer = client.get(f"{changelist_url(model)}{choice['query_string']}")
                if answer.status_code != 200:
                    refused[f"{model._meta.label} {choice['query_string']}"] = answer.status_code
        if model_admin.date_hierarchy:
            dates = {f"{model_admin.date_hierarchy}__year": "2026"}
            dates[f"{model_admin.date_hierarchy}__month"] = "12"
            status, _rows = listed(client, model, dates)
            if status != 200:
                refused[f"{model._meta.label} date hierarchy"] = status
    assert refused == {}
    status, rows = listed(client, Round, {"status__exact": "deciding"})
    assert (status, set(rows)) == (200, {r.pk for r in unfinished_rounds})


def test_no_lookup_on_a_secret_field_changes_any_list(admin_user, unfinished_rounds):
    """The right prefix of an unfinished round's server seed, a key of its engine state, a
    piece of its hand history: refused, or the list is the same as with a wrong guess."""
    client = Client()
    client.force_login(admin_user)
    leaks = []
    for model, _ in registered():
        for path, secret_model, name in secret_paths(model):
            for round_ in unfinished_rounds:
                for suffix, right, wrong in guesses(secret_of(round_, secret_model, name), name):
                    hit = listed(client, model, {path + suffix: right})
                    miss = listed(client, model, {path + suffix: wrong})
                    if hit[0] != 400 and hit != miss:
                        leaks.append(f"{model._meta.label} ?{path}{suffix}={right}")
    assert leaks == []


def test_no_search_finds_a_secret(admin_user, unfinished_rounds):
    """Searching every list for an unfinished round's seed finds what a wrong seed finds."""
    client = Client()
    client.force_login(admin_user)
    leaks = []
    for model, model_admin in registered():
        if not model_admin.search_fields:
            continue
        for round_ in unfinished_rounds:
            seed = round_.secret_server_seed()
            for term in (seed, seed[:8]):
                wrong = "0" * len(term) if term != "0" * len(term) else "1" * len(term)
                if listed(client, model, {"q": term}) != listed(client, model, {"q": wrong}):
                    leaks.append(f"{model._meta.label} ?q={term}")
    assert leaks == []


def test_no_list_orders_by_a_secret(admin_user, unfinished_rounds):
    """Every column of every list, sorted either way, sorts by a public value; the site's own
    check finds no list, filter, search or ordering that reaches a secret field."""
    client = Client()
    client.force_login(admin_user)
    for model, model_admin in registered():
        for index in range(len(model_admin.list_display)):
            for order in (str(index), f"-{index}"):
                status, _rows = listed(client, model, {"o": order})
                assert status == 200, (model, order)
    assert [e for e in admin.site.check(None) if e.id == "casino.E001"] == []


@pytest.mark.parametrize(
    "option",
    [
        {"search_fields": ("commitment", "server_seed")},
        {"list_filter": ("status", "engine_state")},
        {"ordering": ("-server_seed",)},
        {"list_display": ("__str__", "server_seed")},
        {"date_hierarchy": "table__rounds__server_seed"},
    ],
)
def test_an_admin_that_would_list_a_secret_fails_the_site_check(option):
    site = CasinoAdminSite(name="probe")
    site.register(Round, type("ProbeRoundAdmin", (RoundAdmin,), dict(option)))
    assert [e.id for e in site.check(None) if e.id == "casino.E001"] == ["casino.E001"]


def test_change_pages_and_history_show_no_secret_of_an_unfinished_round(
    admin_user, unfinished_rounds
):
    """Every object's page of every admin, and the history of changes, shows neither the seed
    nor the deck of a round in play; once it is over its page shows the seed."""
    client = Client()
    client.force_login(admin_user)
    secrets = []
    for round_ in unfinished_rounds:
        secrets.append(round_.secret_server_seed())
        secrets.append(json.dumps(round_.engine_state))
        deck = round_.engine_state.get("deck") or round_.engine_state["state"]["deck"]
        secrets.append(json.dumps(deck))
        secrets.extend(json.dumps(event.data) for event in round_.events.all())
    pages = [
        f"{reverse('admin:pghistory_events_changelist')}?{urlencode({'model': 'games.round'})}"
    ]
    for model, _ in registered():
        pages.append(changelist_url(model))
        for pk in model._default_manager.values_list("pk", flat=True)[:50]:
            pages.append(
                reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[pk])
            )
    shown = []
    for url in pages:
        page = client.get(url)
        assert page.status_code in (200, 302), url
        text = page.content.decode()
        shown += [(url, secret[:20]) for secret in secrets if secret in text]
    assert shown == []
    # A settled joker draw round's seed shows once its player rotates the pair (FS-7).
    settled = Round.objects.filter(status=RoundStatus.SETTLED).get()
    page = client.get(reverse("admin:games_round_change", args=[settled.pk]))
    assert settled.secret_server_seed() not in page.content.decode()
    seeds.rotate(settled.player)
    page = client.get(reverse("admin:games_round_change", args=[settled.pk]))
    assert settled.secret_server_seed() in page.content.decode()


def test_no_history_of_changes_keeps_a_snapshot_of_a_secret():
    """The history of changes (pghistory) copies its tracked rows: none has a secret field."""
    copied = {
        (event_model.pgh_tracked_model, name)
        for event_model in apps.get_models()
        if issubclass(event_model, pghistory.models.Event) and event_model.pgh_tracked_model
        for name in SECRETS.get(event_model.pgh_tracked_model, ())
        if name in {f.name for f in event_model._meta.fields}
    }
    assert copied == set()
