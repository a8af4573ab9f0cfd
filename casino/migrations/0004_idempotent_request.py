"""The idempotent requests' model moves here from the ledger's app (it belongs to the HTTP
layer); its table stays as it is, so only Django's state changes."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('casino', '0003_api_token'),
        ('payouts', '0013_rtp_against_decisions_taken'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='IdempotentRequest',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('key', models.CharField(max_length=255, verbose_name='idempotency key')),
                        ('fingerprint', models.CharField(max_length=64, verbose_name='request fingerprint')),
                        ('status_code', models.PositiveSmallIntegerField(verbose_name='response status')),
                        ('response_body', models.TextField(verbose_name='response')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created at')),
                        ('user', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='user')),
                    ],
                    options={
                        'verbose_name': 'idempotent request',
                        'verbose_name_plural': 'idempotent requests',
                        'db_table': 'payouts_idempotentrequest',
                        'constraints': [models.UniqueConstraint(fields=('user', 'key'), name='one_response_per_key')],
                    },
                ),
            ],
        ),
    ]
