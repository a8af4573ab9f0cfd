"""Forms of the pit's table lifecycle: checked here for shape, by the services for the rules."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from games.models import Game, Table
from payouts.models import Currency

REASON_HELP = _("Why (kept in the history).")


class CreateTableForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=Table._meta.get_field("name").max_length)
    game = forms.ChoiceField(label=_("Game"), choices=Game.choices)
    currency = forms.ChoiceField(label=_("Currency"), choices=Currency.choices)
    reason = forms.CharField(label=_("Reason"), max_length=500, help_text=REASON_HELP)
