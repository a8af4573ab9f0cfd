"""What the frame keeps per user: the language the pages and the API answer in."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class LanguagePreference(models.Model):
    """The language a user chose with the switcher: applied at every sign-in, on every page
    and to the API's answers to the user's token."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="language_preference",
        verbose_name=_("user"),
    )
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES)

    class Meta:
        verbose_name = _("language preference")
        verbose_name_plural = _("language preferences")

    def __str__(self) -> str:
        return f"{self.user}: {self.language}"


# An IPv6 address written out in full is 39 characters; a forwarded one may carry a zone.
ADDRESS_LENGTH = 64


class SignInAddress(models.Model):
    """Where a user last signed in from (the site's or the admin's form, or an API token
    login): two accounts from one address may not sit at one peer table."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="sign_in_address",
        verbose_name=_("user"),
    )
    address = models.CharField(_("address"), max_length=ADDRESS_LENGTH)
    signed_in_at = models.DateTimeField(_("signed in at"))

    class Meta:
        verbose_name = _("sign-in address")
        verbose_name_plural = _("sign-in addresses")

    def __str__(self) -> str:
        return f"{self.user}: {self.address}"
