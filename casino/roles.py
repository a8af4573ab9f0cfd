"""The casino's roles, kept as Django groups so pit managers see and assign them in the admin.

What each role may do is declared here and written to the groups after every migration, so
the permissions in the database never drift from this table.
"""

from __future__ import annotations

from typing import Any

PLAYER = "player"
PIT_STAFF = "pit_staff"
AUDITOR = "auditor"
ADMIN = "admin"

ALL_ROLES = (PLAYER, PIT_STAFF, AUDITOR, ADMIN)
STAFF_ROLES = frozenset({PIT_STAFF, AUDITOR, ADMIN})

# Auditors read everything the back office records, and change nothing.
_AUDITED_MODELS = (
    "games.table",
    "games.tablelimits",
    "games.round",
    "games.roundevent",
    "games.boxsettlement",
    "games.boxplay",
    "games.seat",
    "games.settlementcorrection",
    "games.collusionalert",
    "payouts.account",
    "payouts.ledgertransaction",
    "payouts.ledgerentry",
    "payouts.paytable",
    "payouts.paytableversion",
    "payouts.paytableline",
    "payouts.rtprun",
    "payouts.rtpobservation",
    "payouts.reconciliationreport",
    "payouts.reversalproposal",
    "protection.playerlimit",
    "protection.limitchange",
    "pghistory.events",
    "pghistory.context",
)

# Permissions no model declares (one in a model's Meta would need a migration): created
# with the groups. Voiding a round returns its stakes (games.tables.voids).
EXTRA_PERMISSIONS = {"games.round.void_round": "Can void a round in progress"}

ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    PLAYER: (),
    # Auditors also close the collusion alerts they reviewed (and raise them on demand): the
    # pit, whose tables the alerts are about, reads them only.
    AUDITOR: (
        *(f"{model}.view" for model in _AUDITED_MODELS),
        "games.collusionalert.review_collusionalert",
    ),
    PIT_STAFF: (
        *(f"{model}.view" for model in _AUDITED_MODELS),
        "games.table.add",
        "games.table.open_close_table",
        "games.round.void_round",
        "games.tablelimits.add",
        "games.tablelimits.approve_tablelimits",
        "payouts.paytable.add",
        "payouts.paytableversion.add",
        "payouts.paytableversion.approve_paytableversion",
        "payouts.rtprun.add",
        "payouts.paytableline.add",
        "payouts.paytableline.change",
        "payouts.paytableline.delete",
        "payouts.ledgertransaction.cage_transaction",
        "payouts.ledgertransaction.reverse_transaction",
        "payouts.reversalproposal.approve_reversalproposal",
        "games.settlementcorrection.add",
        "games.settlementcorrection.approve_settlementcorrection",
    ),
    ADMIN: (),  # administrators are superusers
}


def _codename(spec: str) -> tuple[str, str]:
    app_label, model, action = spec.split(".")
    if action in {"view", "add", "change", "delete"}:
        return app_label, f"{action}_{model}"
    return app_label, action


def sync_role_groups(sender: Any, **_: Any) -> None:
    """Create the role groups and give each exactly the permissions of ROLE_PERMISSIONS.

    Runs on post_migrate, once: for the last app, when every app's permissions exist.
    """
    from django.apps import apps
    from django.contrib.auth.models import Group, Permission
    from django.contrib.contenttypes.models import ContentType

    apps_with_models = [config for config in apps.get_app_configs() if config.models_module]
    if sender is not apps_with_models[-1]:
        return

    for spec, name in EXTRA_PERMISSIONS.items():
        app_label, model, codename = spec.split(".")
        Permission.objects.get_or_create(
            content_type=ContentType.objects.get_by_natural_key(app_label, model),
            codename=codename,
            defaults={"name": name},
        )
    for role in ALL_ROLES:
        group = Group.objects.get_or_create(name=role)[0]
        wanted = [_codename(spec) for spec in ROLE_PERMISSIONS[role]]
        permissions = [
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
            for app_label, codename in wanted
        ]
        group.permissions.set(permissions)
