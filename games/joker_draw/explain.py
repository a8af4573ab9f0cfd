"""A settled joker draw box in words: why each amount moved, by the rule and the paytable
line that moved it (JD-11, JD-12, JD-13), in the reader's language. The numbers come from the
engine's result; this only says them."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from games.engine import joker_draw
from games.engine.hands import HandValue, evaluate
from games.tables.hand_names import hand_name
from payouts.models import PaytableCategory


def line_name(line: str) -> str:
    """A paytable line's name in the active language (JD-14; `royal_flush` is a line of its
    own, HR-10)."""
    return str(PaytableCategory(line).label)


def amount(value: Decimal) -> str:
    """A stake or a win as the reader writes money (two places, no sign)."""
    return number_format(abs(value), 2)


def odds(value: Fraction) -> str:
    """Odds as a paytable prints them: 2:3, 1:1, 100:1."""
    return f"{value.numerator}:{value.denominator}"


def box_lines(
    box: joker_draw.Box, result: joker_draw.BoxResult, state: joker_draw.RoundState
) -> list[str]:
    """One line for the ante and bet, and one for the BONUS when the box placed one."""
    lines = [_main_line(box, result, state)]
    if box.bonus:
        lines.append(_bonus_line(box, result, state))
    return lines


def _main_line(
    box: joker_draw.Box, result: joker_draw.BoxResult, state: joker_draw.RoundState
) -> str:
    if box.status == joker_draw.BoxStatus.FOLDED:  # JD-12
        if box.timed_out:
            return _("Timed out: box folded, ante %(ante)s lost.") % {"ante": amount(box.ante)}
        return _("Folded: ante %(ante)s lost.") % {"ante": amount(box.ante)}
    dealer = state.dealer_value
    assert dealer is not None  # noqa: S101 - a box that bet is settled against the dealer
    value = evaluate(box.cards)
    words = {
        "hand": hand_name(value),
        "dealer": hand_name(dealer),
        "ante": amount(result.ante),
        "bet": amount(result.bet),
    }
    if not joker_draw.dealer_qualifies(dealer):  # JD-10, JD-11
        return _("Dealer does not qualify: ante pays %(odds)s (%(ante)s won), bet returned.") % {
            **words,
            "odds": odds(joker_draw.no_game_odds(dict(state.bet_paytable))),  # JD-11a
        }
    if dealer > value:
        return _("Dealer's %(dealer)s beats your %(hand)s: ante and bet lost.") % words
    if value > dealer:
        if result.bet_line is None:
            return (
                _(
                    "Your %(hand)s beats the dealer's %(dealer)s: ante pays 1:1 (%(ante)s won), "
                    "bet pays 1:1 (%(bet)s won): the paytable does not list this hand."
                )
                % words
            )
        line_odds = dict(state.bet_paytable)[result.bet_line]
        return _(
            "Your %(hand)s beats the dealer's %(dealer)s: ante pays 1:1 (%(ante)s won), "
            "bet pays %(odds)s by the %(line)s line (%(bet)s won)."
        ) % {**words, "odds": odds(line_odds), "line": line_name(result.bet_line)}
    return _("Equal hands, %(hand)s each: ante and bet returned.") % words


def _bonus_line(
    box: joker_draw.Box, result: joker_draw.BoxResult, state: joker_draw.RoundState
) -> str:
    """JD-13: the first five cards as dealt, whatever happened later."""
    first_five: HandValue = evaluate(box.initial_cards)
    if result.bonus_line is None:
        return _("BONUS: your first five cards, %(hand)s, pay nothing: %(stake)s lost.") % {
            "hand": hand_name(first_five),
            "stake": amount(result.bonus),
        }
    return _("BONUS: your first five cards pay %(odds)s by the %(line)s line (%(won)s won).") % {
        "odds": odds(dict(state.bonus_paytable)[result.bonus_line]),
        "line": line_name(result.bonus_line),
        "won": amount(result.bonus),
    }


def voided_line() -> str:
    return _("Round voided by the pit: stakes returned.")
