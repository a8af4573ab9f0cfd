from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PayoutsConfig(AppConfig):
    name = "payouts"
    verbose_name = _("Wallets, ledger and paytables")
