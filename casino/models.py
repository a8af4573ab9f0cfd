"""What the frame keeps per user: the language the pages and the API answer in, where the user
last signed in from, the API tokens issued to the user's devices, and the first response to
each of the user's money-moving requests (casino.http.idempotency)."""

from datetime import datetime, timedelta

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


# What a login may call its device (its `device` field, else the User-Agent), cut to this.
DEVICE_LENGTH = 120

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


def token_expires(issued: datetime) -> datetime:
    return issued + timedelta(seconds=settings.API_TOKEN_TTL)


class ApiToken(models.Model):
    """An API token a login issued to one of the user's devices. Only the SHA-256 of the token
    is kept: whoever reads this table (a backup, a replica) cannot sign in with what is here.
    The token is 160 random bits, so a plain hash is as hard to reverse as a slow one."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        verbose_name=_("user"),
    )
    digest = models.CharField(_("digest"), max_length=64, unique=True)
    device = models.CharField(_("device"), max_length=DEVICE_LENGTH, blank=True)
    created = models.DateTimeField(_("issued at"))

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.user}: {self.device}"

    @property
    def expires(self) -> datetime:
        return token_expires(self.created)


class IdempotentRequest(models.Model):
    """The first response to a money-moving request, replayed for every retry of its key."""

    # Indexed by (user, key).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
    )
    key = models.CharField(verbose_name=_("idempotency key"), max_length=255)
    fingerprint = models.CharField(verbose_name=_("request fingerprint"), max_length=64)
    status_code = models.PositiveSmallIntegerField(verbose_name=_("response status"))
    # The rendered bytes, so a replay is identical to the first response, key order included.
    response_body = models.TextField(verbose_name=_("response"))
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        # The table as the ledger's app created it: the model moved here, its rows did not.
        db_table = "payouts_idempotentrequest"
        verbose_name = _("idempotent request")
        verbose_name_plural = _("idempotent requests")
        constraints = [models.UniqueConstraint(fields=("user", "key"), name="one_response_per_key")]

    def __str__(self) -> str:
        return f"{self.user} {self.key}"
