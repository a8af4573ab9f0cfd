from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CasinoConfig(AppConfig):
    """The project's frame: what every page and request shares (the user's language)."""

    name = "casino"
    verbose_name = _("Casino")

    def ready(self) -> None:
        # Connects the sign-in's language and address (signal receivers).
        import casino.http.sign_ins
        import casino.i18n  # noqa: F401
