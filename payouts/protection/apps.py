from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ProtectionConfig(AppConfig):
    name = "payouts.protection"
    label = "protection"
    verbose_name = _("Player protection")
