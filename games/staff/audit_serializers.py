"""The shapes of the audit room's JSON answers (``audit_api``, ``fair_play_api``) for the schema
the casino's other systems generate their clients from. The views build the answers; these
describe them."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.models import AlertKind, Game, RoundStatus
from games.tables.gaming_day import Flag
from payouts.models import AccountKind, Currency, PaytableKind, TransactionKind
from payouts.serializers import MoneyField


class PeriodSerializer(serializers.Serializer[None]):
    """A report's first and last day, under the names its query string gives them."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        # ``from`` is a Python keyword: no class attribute can declare it.
        return {
            "from": serializers.DateField(),
            "to": serializers.DateField(),
            **super().get_fields(),
        }


class SignalHandSerializer(serializers.Serializer[None]):
    """A hand behind a signal, with its replay page and its PHH file."""

    round = serializers.IntegerField()
    game = serializers.ChoiceField(choices=Game.choices)
    table = serializers.CharField()
    number = serializers.IntegerField()
    replay = serializers.CharField()
    phh = serializers.CharField()


class SignalSerializer(serializers.Serializer[None]):
    """One collusion signal of a pair: its z-score, the score that counts, the player it is
    about and the rates compared (null for the chip flow), and the hands behind it."""

    score = serializers.FloatField()
    z = serializers.FloatField()
    player = serializers.CharField(allow_null=True)
    rate_with_other = serializers.FloatField(allow_null=True)
    rate_with_others = serializers.FloatField(allow_null=True)
    hands = SignalHandSerializer(many=True)


class PlayerPairSerializer(serializers.Serializer[None]):
    """Two players who shared peer hands in the period, with each signal of their play."""

    currency = serializers.ChoiceField(choices=Currency.choices)
    players = serializers.ListField(child=serializers.CharField(), min_length=2, max_length=2)
    hands = serializers.IntegerField()
    net_chips = MoneyField(help_text="From the first player to the second.")
    score = serializers.FloatField()
    flagged = serializers.BooleanField()
    chip_flow = SignalSerializer()
    soft_play = SignalSerializer()
    strong_folds = SignalSerializer()


class CollusionAlertSerializer(PeriodSerializer):
    """An alert not yet reviewed."""

    id = serializers.IntegerField()
    raised_at = serializers.DateTimeField()
    kind = serializers.ChoiceField(choices=AlertKind.choices)
    table = serializers.IntegerField(allow_null=True)
    currency = serializers.ChoiceField(choices=Currency.choices)
    players = serializers.ListField(child=serializers.CharField(), min_length=2, max_length=2)
    hands = serializers.IntegerField()
    chip_flow = serializers.DecimalField(max_digits=8, decimal_places=2)
    soft_play = serializers.DecimalField(max_digits=8, decimal_places=2)
    strong_folds = serializers.DecimalField(max_digits=8, decimal_places=2)
    net_chips = MoneyField()


class FairPlayReportSerializer(PeriodSerializer):
    """Every pair of players who shared peer hands in the period, the most suspicious first,
    and the alerts not yet reviewed."""

    threshold = serializers.FloatField(help_text="The score from which a pair is flagged.")
    pairs = PlayerPairSerializer(many=True)
    open_alerts = CollusionAlertSerializer(many=True)


def percent_field() -> serializers.CharField:
    return serializers.CharField(
        allow_null=True, help_text="A percent with two places; null without a base."
    )


class RoundMoneySerializer(serializers.Serializer[None]):
    """Rounds' money: staked, paid, the house's result, the rake, and the hold."""

    staked = MoneyField()
    paid = MoneyField()
    house_result = MoneyField()
    rake = MoneyField()
    hold_percent = percent_field()


class RoundWinnerSerializer(serializers.Serializer[None]):
    """Who a settled round paid: a joker draw box, or a peer pot's share."""

    what = serializers.CharField()
    player = serializers.CharField()
    amount = MoneyField()
    hand = serializers.CharField()


class ReviewedRoundSerializer(RoundMoneySerializer):
    """A finished round of any game with its money, players and winners."""

    round = serializers.IntegerField()
    number = serializers.IntegerField(help_text="A joker draw round's id, a hand's at its table.")
    game = serializers.ChoiceField(choices=Game.choices)
    table = serializers.CharField()
    currency = serializers.ChoiceField(choices=Currency.choices)
    status = serializers.ChoiceField(choices=RoundStatus.choices)
    void_reason = serializers.CharField()
    settled_at = serializers.DateTimeField(allow_null=True)
    players = serializers.ListField(child=serializers.CharField())
    winners = RoundWinnerSerializer(many=True)


class PagedSerializer(serializers.Serializer[None]):
    """A page of a report: how many rows in all, this page's number and how many pages."""

    count = serializers.IntegerField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()


class RoundsReviewSerializer(PagedSerializer):
    totals = RoundMoneySerializer(help_text="The whole filtered set's money.")
    results = ReviewedRoundSerializer(many=True)


class LedgerAccountSerializer(serializers.Serializer[None]):
    """An account with its balance at the moment asked for."""

    id = serializers.IntegerField()
    currency = serializers.ChoiceField(choices=Currency.choices)
    kind = serializers.ChoiceField(choices=AccountKind.choices)
    owner = serializers.CharField(allow_null=True)
    balance = MoneyField()


class LedgerAccountsSerializer(PagedSerializer):
    results = LedgerAccountSerializer(many=True)


class AccountEntrySerializer(serializers.Serializer[None]):
    """An entry of one account, with the account's balance after it."""

    id = serializers.IntegerField()
    transaction = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=TransactionKind.choices)
    reference = serializers.CharField(allow_null=True)
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()
    amount = MoneyField()
    balance_after = MoneyField()


class AccountEntriesSerializer(PagedSerializer):
    results = AccountEntrySerializer(many=True)


class GamingDayRowSerializer(serializers.Serializer[None]):
    """One table's figures over a gaming day, or over a period ending on it."""

    gaming_day = serializers.DateField()
    table = serializers.CharField()
    table_id = serializers.IntegerField()
    game = serializers.ChoiceField(choices=Game.choices)
    currency = serializers.ChoiceField(choices=Currency.choices)
    rounds = serializers.IntegerField()
    players = serializers.IntegerField()
    handle = MoneyField()
    win = MoneyField()
    hold_percent = percent_field()
    theoretical_win = MoneyField(allow_null=True)
    expected_hold_percent = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="The 95% interval of the hold the paytables lead one to expect.",
    )
    rake = MoneyField()
    flag = serializers.ChoiceField(choices=[flag.value for flag in Flag])


class GamingDayReportSerializer(serializers.Serializer[None]):
    gaming_day_starts_at = serializers.CharField(help_text="HH:MM")
    time_zone = serializers.CharField()
    days = GamingDayRowSerializer(many=True)
    month_to_date = GamingDayRowSerializer(many=True)
    year_to_date = GamingDayRowSerializer(many=True)


class TransactionEntrySerializer(serializers.Serializer[None]):
    id = serializers.IntegerField()
    account = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=AccountKind.choices)
    owner = serializers.CharField(allow_null=True)
    currency = serializers.ChoiceField(choices=Currency.choices)
    amount = MoneyField()


class LedgerTransactionSerializer(serializers.Serializer[None]):
    """One ledger transaction: its entries and the round it was posted for."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=TransactionKind.choices)
    reason = serializers.CharField()
    reference = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    created_by = serializers.CharField(allow_null=True)
    round = serializers.IntegerField(allow_null=True)
    entries = TransactionEntrySerializer(many=True)


def percent_interval() -> serializers.ListField:
    """An interval of percents, low and high; null until there are enough boxes."""
    return serializers.ListField(
        child=serializers.CharField(allow_null=True), min_length=2, max_length=2, allow_null=True
    )


class DecisionsTakenSerializer(serializers.Serializer[None]):
    """A bet paytable's boxes judged against the decisions their players took."""

    boxes = serializers.IntegerField()
    actual_rtp = serializers.CharField(allow_null=True)
    expected_rtp = serializers.CharField(allow_null=True)
    interval = percent_interval()


class RtpObservationSerializer(serializers.Serializer[None]):
    """The newest actual-against-theoretical RTP of a table and paytable version, in percent;
    an interval is null until enough boxes were played."""

    table = serializers.CharField()
    table_id = serializers.IntegerField()
    paytable_version = serializers.CharField()
    kind = serializers.ChoiceField(choices=PaytableKind.choices)
    boxes = serializers.IntegerField()
    staked = MoneyField()
    returned = MoneyField()
    actual_rtp = serializers.CharField(allow_null=True)
    interval = percent_interval()
    enough_data = serializers.BooleanField()
    theoretical_rtp = serializers.CharField(allow_null=True)
    decisions_taken = DecisionsTakenSerializer(allow_null=True)
    best_play = percent_interval()
    typical_rtp = serializers.CharField(allow_null=True)
    alert = serializers.BooleanField()
    observed_at = serializers.DateTimeField()


class AssessedRoundSerializer(serializers.Serializer[None]):
    round = serializers.IntegerField()
    table = serializers.CharField()
    settled_at = serializers.DateTimeField()
    boxes = serializers.IntegerField()
    given_away = serializers.CharField()
    replay = serializers.CharField()


class BestPlayPlayerSerializer(serializers.Serializer[None]):
    """A player's joker draw boxes against best play in one currency: what they gave away in
    all, per round and per original ante; an advantage player's latest rounds."""

    player = serializers.CharField()
    player_id = serializers.IntegerField()
    currency = serializers.ChoiceField(choices=Currency.choices)
    rounds = serializers.IntegerField()
    boxes = serializers.IntegerField()
    given_away = serializers.CharField()
    per_round = serializers.CharField()
    per_ante = serializers.CharField()
    advantage_player = serializers.BooleanField()
    rounds_played = AssessedRoundSerializer(many=True)
