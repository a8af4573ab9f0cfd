"""The limits page's form: one field per limit, blank for none."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django import forms
from django.utils.translation import gettext_lazy as _

from payouts.protection import limits
from payouts.protection.limits import MAX_SESSION_MINUTES, LimitState
from payouts.protection.models import LimitKind

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def field_name(state: LimitState) -> str:
    return f"{state.kind}-{state.currency}" if state.currency else state.kind


def asked_for(state: LimitState) -> Decimal | None:
    """What the player last asked for: the pending value while one waits, else the value."""
    return state.pending_value if state.pending else state.value


class LimitsForm(forms.Form):
    def __init__(self, *args: Any, states: list[LimitState], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.states = states
        for state in states:
            session = state.kind == LimitKind.SESSION_TIME
            asked = asked_for(state)
            self.fields[field_name(state)] = forms.DecimalField(
                label=f"{state.label} ({state.currency})" if state.currency else state.label,
                required=False,
                min_value=Decimal(0),
                max_value=Decimal(MAX_SESSION_MINUTES) if session else limits.LARGEST,
                decimal_places=0 if session else 2,
                localize=True,
                initial=None if asked is None else (int(asked) if session else asked),
                help_text=_("minutes") if session else state.currency,
                widget=forms.TextInput(attrs={"inputmode": "numeric" if session else "decimal"}),
            )

    def rows(self) -> list[tuple[LimitState, forms.BoundField]]:
        return [(state, self[field_name(state)]) for state in self.states]

    def save(self, player: User) -> int:
        """Ask for every limit the player changed; how many."""
        changed = 0
        for state in self.states:
            value = self.cleaned_data[field_name(state)]
            if value == asked_for(state):
                continue
            limits.set_limit(player=player, kind=state.kind, currency=state.currency, value=value)
            changed += 1
        return changed
