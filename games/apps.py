from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_migrate
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games and tables")

    def ready(self) -> None:
        # Connects the token's revocation at logout (a signal receiver).
        import casino.http.tokens  # noqa: F401
        from casino.roles import sync_role_groups

        post_migrate.connect(sync_role_groups, dispatch_uid="sync_role_groups")

        from django.contrib.auth.models import User

        from games.tables.seeds import commit_new_players_pair

        m2m_changed.connect(
            commit_new_players_pair,
            sender=User.groups.through,
            dispatch_uid="commit_new_players_pair",
        )

        # The games register themselves with the shared code, and the ledger's check of its
        # sub-ledgers against the game state with the ledger.
        import games.registry  # noqa: F401
        from games.tables.reconciliation import sub_ledger_findings
        from payouts.selectors import register_sub_ledger_checks

        register_sub_ledger_checks(sub_ledger_findings)

        # A play session's net result counts the chips the player holds at peer tables.
        from games.peer.selectors import chips_at_tables
        from payouts.protection.conduct import register_chips_at_tables

        register_chips_at_tables(chips_at_tables)
