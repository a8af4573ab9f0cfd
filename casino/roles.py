"""The casino's roles, kept as Django groups so pit managers see and assign them in the admin."""

PLAYER = "player"
PIT_STAFF = "pit_staff"
AUDITOR = "auditor"
ADMIN = "admin"

ALL_ROLES = (PLAYER, PIT_STAFF, AUDITOR, ADMIN)
