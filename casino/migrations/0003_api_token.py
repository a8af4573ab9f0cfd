"""API tokens kept as their SHA-256 only. The tokens of the former table were stored as they
are sent, and a digest of them kept beside them would keep them usable by whoever read a copy
of that table: they are dropped with it, and their holders log in again."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('casino', '0002_sign_in_address'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ApiToken',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('digest', models.CharField(max_length=64, unique=True, verbose_name='digest')),
                ('device', models.CharField(blank=True, max_length=120, verbose_name='device')),
                ('created', models.DateTimeField(verbose_name='issued at')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='api_tokens', to=settings.AUTH_USER_MODEL, verbose_name='user')),
            ],
            options={
                'verbose_name': 'API token',
                'verbose_name_plural': 'API tokens',
            },
        ),
        migrations.RunSQL(
            [
                "DROP TABLE IF EXISTS authtoken_token",
                "DELETE FROM django_migrations WHERE app = 'authtoken'",
            ],
            reverse_sql=migrations.RunSQL.noop,
        ),
    ]
