"""Demo data for a developer's machine: the demo users with their roles."""

from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from casino.roles import ADMIN, AUDITOR, PIT_STAFF, PLAYER

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


class Command(BaseCommand):
    help = "Create the demo users (password '<username>-demo'). Refuses to run with DEBUG off."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("seed_demo creates known passwords; it runs only with DEBUG on.")
        with transaction.atomic():
            for username, role in DEMO_USERS:
                user, created = User.objects.get_or_create(username=username)
                if created:
                    user.set_password(f"{username}-demo")
                user.is_staff = role in {PIT_STAFF, AUDITOR, ADMIN}
                user.is_superuser = role == ADMIN
                user.save()
                user.groups.add(Group.objects.get(name=role))
        self.stdout.write(self.style.SUCCESS(f"Demo users ready: {len(DEMO_USERS)}."))
