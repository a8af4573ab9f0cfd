"""The round a transaction was posted for, as an index: the auditors' reports sum a set of
rounds' postings (games.tables.gaming_day, games.staff.review) through it instead of reading
every transaction. The expression is the one their queries use, word for word."""

from django.db import migrations

ROUND_OF_REFERENCE = (
    "(CASE WHEN reference LIKE 'round:%' THEN split_part(reference, ':', 2)::bigint END)"
)


class Migration(migrations.Migration):
    dependencies = [("payouts", "0007_verbose_names")]

    operations = [
        migrations.RunSQL(
            "CREATE INDEX ledger_transaction_round ON payouts_ledgertransaction "
            f"({ROUND_OF_REFERENCE}) WHERE reference LIKE 'round:%'",
            "DROP INDEX ledger_transaction_round",
        )
    ]
