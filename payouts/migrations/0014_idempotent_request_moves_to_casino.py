"""The idempotent requests' model moves to the frame's app (casino.0004); its table stays."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('payouts', '0013_rtp_against_decisions_taken'),
        ('casino', '0004_idempotent_request'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='IdempotentRequest')],
        ),
    ]
