"""Demo data for a developer's machine: users and roles, approved default paytables, a table of
each game in USD and FUN, funded players and house. Running it again changes nothing."""

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from casino.roles import ADMIN, AUDITOR, PIT_STAFF, PLAYER, STAFF_ROLES
from games import registry
from games.joker_draw import rtp_lab
from games.joker_draw.paytables import approve_paytable_version
from games.models import Game, Table, TableStatus
from games.tables import services as table_services
from games.tables.table_game import TableGame
from payouts import services as money
from payouts.approvals import ChangeStatus
from payouts.models import Currency, LedgerTransaction, PaytableVersion

DEMO_USERS = (
    ("player1", PLAYER),
    ("player2", PLAYER),
    ("player3", PLAYER),
    ("player4", PLAYER),
    ("pit1", PIT_STAFF),
    ("pit2", PIT_STAFF),
    ("auditor1", AUDITOR),
    ("admin", ADMIN),
)
PLAYER_FUNDS = Decimal("1000.00")
HOUSE_FUNDS = Decimal("100000.00")
DEMO_REASON = "demo data"


class Command(BaseCommand):
    help = "Create the demo data (passwords '<username>-demo'). Refuses to run with DEBUG off."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("seed_demo creates known passwords; it runs only with DEBUG on.")
        with transaction.atomic():
            users = {name: self._user(name, role) for name, role in DEMO_USERS}
            maker, checker = users["pit1"], users["pit2"]
            call_command("load_paytables", stdout=self.stdout)
            for version in PaytableVersion.objects.filter(status=ChangeStatus.DRAFT, number=1):
                # Approval needs the version's computed RTP (JD-14); no workers run yet.
                self.stdout.write(f"computing the RTP of {version} ...")
                rtp_lab.compute_now(version)
                approve_paytable_version(version, by=checker)
            for game in registry.GAMES:
                for currency in Currency:
                    self._table(game, currency, maker, checker)
            if not LedgerTransaction.objects.filter(reason=DEMO_REASON).exists():
                for currency in Currency:
                    money.fund_house(
                        currency=currency, amount=HOUSE_FUNDS, reason=DEMO_REASON, by=maker
                    )
                    for name, role in DEMO_USERS:
                        if role == PLAYER:
                            money.deposit(
                                player=users[name],
                                currency=currency,
                                amount=PLAYER_FUNDS,
                                reason=DEMO_REASON,
                                by=maker,
                            )
        self.stdout.write(self.style.SUCCESS("Demo data ready."))

    def _user(self, username: str, role: str) -> User:
        user, created = User.objects.get_or_create(username=username)
        if created:
            user.set_password(f"{username}-demo")
        user.is_staff = role in STAFF_ROLES
        user.is_superuser = role == ADMIN
        user.save()
        user.groups.add(Group.objects.get(name=role))
        return user

    def _table(self, game: TableGame, currency: str, maker: User, checker: User) -> None:
        name = f"{Game(game.code).label} {currency}"
        if Table.objects.filter(name=name).exists():
            return
        table = table_services.create_table(
            name=name, game=game.code, currency=currency, by=maker, reason=DEMO_REASON
        )
        values = game.demo_limits()
        limits = table_services.propose_limits(
            table=table, values=values, reason=DEMO_REASON, by=maker
        )
        table_services.approve_limits(limits, by=checker)
        table_services.set_table_status(
            table, status=TableStatus.OPEN, by=checker, reason=DEMO_REASON
        )
