"""Forms of the staff screens: checked here for shape, by the services for the rules."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any, cast

from django import forms
from django.contrib.auth.models import User
from django.forms.models import fields_for_model
from django.utils.translation import gettext_lazy as _

from casino.whole_numbers import whole_number
from games.engine.hands import CATEGORIES
from games.models import BoxSettlement, Game, Table, TableLimits, TableStatus
from games.tables.hand_names import CATEGORY_NAMES
from games.tables.history import label_of
from games.tables.table_game import game_of
from payouts.forms import amount_field
from payouts.models import LedgerEntry, Paytable, PaytableCategory, PaytableKind

REASON_HELP = _("Why (kept in the history).")


def add_refusal(form: forms.Form, errors: Mapping[str, str]) -> None:
    """A service's refusal on the form: under the field it names (a paytable's line
    ``lines.pair`` under its ``pair`` field), else above the form."""
    for field, message in errors.items():
        name = field.removeprefix("lines.")
        form.add_error(name if name in form.fields else None, message)


class PayoutFilterForm(forms.Form):
    """The payouts review's filters; every one optional, each checked on its own."""

    date_from = forms.DateField(
        label=_("Date from"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    date_to = forms.DateField(
        label=_("Date to"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    table = forms.ModelChoiceField(
        Table.objects.filter(game=Game.JOKER_DRAW).order_by("name"),
        label=_("Table"),
        required=False,
    )
    player = forms.CharField(
        label=_("Player"), required=False, max_length=150, help_text=_("A player's username.")
    )
    category = forms.ChoiceField(
        label=_("Category"),
        required=False,
        choices=[("", _("any hand"))] + [(c, CATEGORY_NAMES[c]) for c in CATEGORIES],
    )
    min_amount = amount_field(BoxSettlement, "total_result", label=_("Min amount"), required=False)
    max_amount = amount_field(BoxSettlement, "total_result", label=_("Max amount"), required=False)

    def clean_player(self) -> User | None:
        username = self.cleaned_data["player"].strip()
        if not username:
            return None
        user = User.objects.filter(username=username).first()
        if user is None:
            raise forms.ValidationError(
                _("No player is called %(username)s.") % {"username": repr(username)}
            )
        return user

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("date_from") and data.get("date_to") and data["date_to"] < data["date_from"]:
            self.add_error("date_to", _("date_to must not be before date_from."))
        low, high = data.get("min_amount"), data.get("max_amount")
        if low is not None and high is not None and high < low:
            self.add_error("max_amount", _("max_amount must not be below min_amount."))
        return data

    def filters(self) -> dict[str, Any]:
        """The cleaned filters as the selector's keyword arguments."""
        return {name: self.cleaned_data.get(name) for name in self.fields} | {
            "category": self.cleaned_data.get("category") or ""
        }


class TableStatusForm(forms.Form):
    status = forms.ChoiceField(label=_("Status"), choices=TableStatus.choices)
    reason = forms.CharField(label=_("Reason"), max_length=500, help_text=REASON_HELP)
    # Closing a peer table with players seated: after the hand in play, cash them all out.
    cash_out_seated = forms.BooleanField(
        required=False, label=_("after this hand: cash out the seated players")
    )


class VoidForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=REASON_HELP,
    )


class CorrectionForm(forms.Form):
    """A settlement correction: per settled box what its player gets on top of the settlement
    (negative: gives back); boxes left empty are not corrected."""

    reason = forms.CharField(
        label=_("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=REASON_HELP,
    )

    def __init__(self, boxes: Iterable[int], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for box in boxes:
            # Each box's correction is one ledger entry: the entry column bounds it.
            self.fields[f"box_{box}"] = amount_field(
                LedgerEntry, "amount", label=_("Box %(box)s") % {"box": box}, required=False
            )

    def amounts(self) -> dict[int, Decimal]:
        return {
            int(name.removeprefix("box_")): value
            for name, value in self.cleaned_data.items()
            if name.startswith("box_") and value is not None
        }


def limits_form(table: Table, data: Mapping[str, Any] | None = None) -> forms.Form:
    """A proposal of limits for ``table``: its game's fields, prefilled with those in force."""
    names = game_of(table.game).limit_fields
    form = forms.Form(data=data)
    form.fields.update(
        fields_for_model(TableLimits, fields=names, labels={name: label_of(name) for name in names})
    )
    form.fields["reason"] = forms.CharField(
        label=_("Reason"), max_length=500, help_text=REASON_HELP
    )
    for name, field in list(form.fields.items()):
        # A game's rule switch (ST-5's open pair, DM-5's draw limit) is on or off at a table, never
        # "unknown" as the column's null (the other games' rows) would offer.
        if isinstance(field, forms.NullBooleanField):
            form.fields[name] = forms.BooleanField(
                label=field.label, required=False, help_text=field.help_text
            )
    for name, kind in (("bet_paytable", PaytableKind.BET), ("bonus_paytable", PaytableKind.BONUS)):
        if name in form.fields:
            field = cast(forms.ModelChoiceField, form.fields[name])  # a foreign key's field
            field.queryset = Paytable.objects.filter(kind=kind)
    current = table.active_limits()
    if current is not None:
        form.initial = {name: getattr(current, name) for name in names}
    else:  # a new table's switches start at the game's rule, its amounts blank
        defaults = game_of(table.game).default_limits
        form.initial = {name: value for name, value in defaults.items() if isinstance(value, bool)}
    return form


class PaytableVersionForm(forms.Form):
    """A new paytable version: the odds of each line as "numerator:denominator" (or a whole
    number, N:1); a line left empty is not paid, but for the no-game line of a bet paytable,
    which then pays 2:3 (JD-11a)."""

    reason = forms.CharField(label=_("Reason"), max_length=500, help_text=REASON_HELP)

    def __init__(self, *args: Any, paytable: Paytable, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        current = paytable.active_version()
        odds = current.odds() if current is not None else {}
        # The no-game line prices the ante against the dealer: a BONUS has none (JD-11a).
        self.categories = [
            (category, label)
            for category, label in PaytableCategory.choices
            if paytable.kind == PaytableKind.BET or category != PaytableCategory.NO_GAME
        ]
        for category, label in self.categories:
            ratio = odds.get(category)
            self.fields[category] = forms.CharField(
                label=label,
                required=False,
                max_length=20,
                initial=f"{ratio.numerator}:{ratio.denominator}" if ratio else "",
            )

    def lines(self) -> dict[str, Fraction]:
        return {
            category: self.cleaned_data[category]
            for category, _label in self.categories
            if self.cleaned_data.get(category) is not None
        }

    def _clean_odds(self, category: str) -> Fraction | None:
        text = self.cleaned_data.get(category, "").strip()
        if not text:
            return None
        numerator_text, _colon, denominator_text = text.partition(":")
        numerator, denominator = whole_number(numerator_text), whole_number(denominator_text or "1")
        if numerator is None or denominator is None:
            raise forms.ValidationError(
                _("%(odds)s: odds are written like 5:1 or 3:2 (JD-14).") % {"odds": repr(text)}
            )
        if numerator == 0 or denominator == 0:
            raise forms.ValidationError(_("Odds must be above zero (JD-14)."))
        return Fraction(numerator, denominator)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for category, _label in self.categories:
            try:
                data[category] = self._clean_odds(category)
            except forms.ValidationError as error:
                self.add_error(category, error)
        return data
