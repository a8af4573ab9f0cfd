"""Money: accounts, the double-entry ledger and paytables.

The ledger is append-only. Entries and transactions are refused UPDATE and DELETE by
PostgreSQL triggers, and a deferred trigger refuses to commit a transaction whose entries do
not sum to zero in each currency, so no code path (ORM, raw SQL, admin) can create or destroy
money. A mistake is corrected by a reversing transaction.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pghistory
import pgtrigger
from django.apps import apps
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from payouts.approvals import ChangeStatus, MakerCheckerChange, approver_is_not_proposer

MONEY_DIGITS = 14
MONEY_PLACES = 2
CENT = Decimal("0.01")


def money_field(**kwargs: object) -> models.DecimalField:
    return models.DecimalField(max_digits=MONEY_DIGITS, decimal_places=MONEY_PLACES, **kwargs)  # type: ignore[arg-type]


def decimal_column(model: type[models.Model], name: str) -> models.DecimalField:
    column = model._meta.get_field(name)
    if not isinstance(column, models.DecimalField):
        raise TypeError(f"{model.__name__}.{name} is not a decimal column")
    return column


def largest_amount(model: type[models.Model], name: str) -> Decimal:
    """The largest value the decimal column ``model.name`` holds: every digit a nine
    (999999999999.99 for money). Every amount field (the API's, the forms', the ledger's own
    check) takes its limit from the column it ends up in, through here."""
    column = decimal_column(model, name)
    places = column.decimal_places
    return Decimal(10) ** (column.max_digits - places) - Decimal(10) ** -places


class Currency(models.TextChoices):
    USD = "USD", _("US dollar")
    FUN = "FUN", _("Play money")


class AccountKind(models.TextChoices):
    PLAYER_WALLET = "player_wallet", _("Player wallet")
    HOUSE_BANKROLL = "house_bankroll", _("House bankroll")
    # The part of the bankroll held for the top payout of the joker draw rounds in play: moved
    # here by the opening, paid out or given back by the settlement (or the void). What stays
    # in the bankroll account is what the house can still put at risk.
    HOUSE_RESERVED = "house_reserved", _("House bankroll reserved for rounds in play")
    STAKES_IN_PLAY = "stakes_in_play", _("Stakes held in play")
    RAKE = "rake", _("Rake")
    BONUS = "bonus", _("BONUS side bets held")
    # Chips players bought at peer tables: their money, held by the house until they cash out;
    # each seat's share is the seat's stack (games.Seat).
    TABLE_CHIPS = "table_chips", _("Chips at peer tables")
    # The cage stands for the world outside the ledger: cash brought in or paid out. It is
    # the only account whose balance may be negative (money the casino holds for others).
    CAGE = "cage", _("Cage (cash in and out)")


HOUSE_KINDS = tuple(kind for kind in AccountKind if kind != AccountKind.PLAYER_WALLET)


class Account(models.Model):
    kind = models.CharField(verbose_name=_("kind"), max_length=20, choices=AccountKind.choices)
    currency = models.CharField(verbose_name=_("currency"), max_length=3, choices=Currency.choices)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("owner"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="accounts",
    )
    # Cached sum of this account's entries, kept in the same database transaction under a
    # row lock; `ledger_check` proves it equal to the sum.
    balance = money_field(verbose_name=_("balance"), default=Decimal("0.00"), editable=False)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("account")
        verbose_name_plural = _("accounts")
        ordering = ("kind", "currency", "owner_id")
        constraints = [
            models.UniqueConstraint(
                fields=("owner", "currency"),
                condition=Q(kind=AccountKind.PLAYER_WALLET),
                name="one_wallet_per_player_and_currency",
            ),
            models.UniqueConstraint(
                fields=("kind", "currency"),
                condition=Q(owner__isnull=True),
                name="one_house_account_per_kind_and_currency",
            ),
            models.CheckConstraint(
                condition=Q(kind=AccountKind.PLAYER_WALLET, owner__isnull=False)
                | (~Q(kind=AccountKind.PLAYER_WALLET) & Q(owner__isnull=True)),
                name="wallets_have_owners_house_accounts_do_not",
            ),
            models.CheckConstraint(
                condition=Q(kind=AccountKind.CAGE) | Q(balance__gte=0),
                name="no_negative_balance_but_the_cage",
            ),
        ]

    def __str__(self) -> str:
        if self.owner_id:
            return gettext("%(owner)s %(currency)s wallet") % {
                "owner": self.owner,
                "currency": self.currency,
            }
        return f"{self.get_kind_display()} {self.currency}"


class TransactionKind(models.TextChoices):
    DEPOSIT = "deposit", _("Deposit")
    WITHDRAWAL = "withdrawal", _("Withdrawal")
    HOUSE_FUNDING = "house_funding", _("House bankroll funding")
    STAKE = "stake", _("Stake taken")
    SETTLEMENT = "settlement", _("Settlement")
    RAKE = "rake", _("Rake")
    REVERSAL = "reversal", _("Reversal")
    # A settled round's payout put right, proposed by one staff member and approved by another.
    CORRECTION = "correction", _("Settlement correction")


@pgtrigger.register(
    pgtrigger.Protect(
        name="ledger_transactions_are_immutable", operation=pgtrigger.Update | pgtrigger.Delete
    ),
)
class LedgerTransaction(models.Model):
    kind = models.CharField(verbose_name=_("kind"), max_length=20, choices=TransactionKind.choices)
    reason = models.CharField(verbose_name=_("reason"), max_length=500, blank=True)
    # A unique business reference ("joker-round:42:settle") makes a posting happen at most
    # once, whatever retries or crashes come before it.
    reference = models.CharField(
        verbose_name=_("reference"), max_length=200, unique=True, null=True, blank=True
    )
    reverses = models.OneToOneField(
        "self",
        verbose_name=_("reverses"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="reversed_by",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    created_at = models.DateTimeField(
        verbose_name=_("created at"), auto_now_add=True, db_index=True
    )

    class Meta:
        verbose_name = _("ledger transaction")
        verbose_name_plural = _("ledger transactions")
        ordering = ("-id",)
        permissions = [
            ("cage_transaction", "Can deposit to and withdraw from player wallets at the cage"),
            ("reverse_transaction", "Can reverse a ledger transaction"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_kind_display()}"


@pgtrigger.register(
    pgtrigger.Protect(
        name="ledger_entries_are_immutable", operation=pgtrigger.Update | pgtrigger.Delete
    ),
    # Checked at commit, once all of a transaction's entries are in.
    pgtrigger.Trigger(
        name="ledger_transaction_balances",
        when=pgtrigger.After,
        operation=pgtrigger.Insert,
        timing=pgtrigger.Deferred,
        func="""
            IF EXISTS (
                SELECT 1 FROM payouts_ledgerentry
                WHERE transaction_id = NEW.transaction_id
                GROUP BY currency HAVING SUM(amount) <> 0
            ) THEN
                RAISE EXCEPTION 'ledger transaction % does not sum to zero per currency',
                    NEW.transaction_id USING ERRCODE = 'check_violation';
            END IF;
            RETURN NULL;
        """,
    ),
)
class LedgerEntry(models.Model):
    transaction = models.ForeignKey(
        LedgerTransaction,
        verbose_name=_("transaction"),
        on_delete=models.PROTECT,
        related_name="entries",
    )
    # Indexed by (account, id).
    account = models.ForeignKey(
        Account,
        verbose_name=_("account"),
        on_delete=models.PROTECT,
        related_name="entries",
        db_index=False,
    )
    # Positive adds to the account's balance, negative takes from it.
    amount = money_field(verbose_name=_("amount"))
    currency = models.CharField(verbose_name=_("currency"), max_length=3, choices=Currency.choices)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("ledger entry")
        verbose_name_plural = _("ledger entries")
        ordering = ("id",)
        indexes = [models.Index(fields=("account", "id"))]
        constraints = [models.CheckConstraint(condition=~Q(amount=0), name="entries_move_money")]

    def __str__(self) -> str:
        return gettext("%(amount)s %(currency)s on %(account)s") % {
            "amount": self.amount,
            "currency": self.currency,
            "account": self.account,
        }


@pghistory.track(pghistory.InsertEvent(), pghistory.UpdateEvent(), pghistory.DeleteEvent())
class ReversalProposal(MakerCheckerChange):
    """A reversal that moves house money (house funding): posted only once a second staff
    member approves it."""

    original = models.ForeignKey(
        LedgerTransaction,
        verbose_name=_("transaction reversed"),
        on_delete=models.PROTECT,
        related_name="reversal_proposals",
    )
    reversal = models.OneToOneField(
        LedgerTransaction,
        verbose_name=_("reversal"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )

    class Meta:
        verbose_name = _("reversal proposal")
        verbose_name_plural = _("reversal proposals")
        ordering = ("-proposed_at",)
        permissions = [("approve_reversalproposal", "Can approve a reversal of house money")]
        constraints = [approver_is_not_proposer("reversal")]

    def __str__(self) -> str:
        return gettext("reversal of transaction #%(number)s (%(status)s)") % {
            "number": self.original_id,
            "status": self.get_status_display(),
        }


class PaytableKind(models.TextChoices):
    BET = "bet", _("Bet paytable")
    BONUS = "bonus", _("BONUS paytable")


class PaytableCategory(models.TextChoices):
    """Hand categories a paytable may pay; `royal_flush` is a line of its own (HR-10), and so is
    `no_game`, what a bet paytable pays the total ante when the dealer does not qualify
    (JD-11a); it comes first, below every hand, as a paytable prints it last."""

    NO_GAME = "no_game", _("No game (dealer does not qualify)")
    PAIR = "pair", _("Pair")
    TWO_PAIR = "two_pair", _("Two pair")
    THREE_OF_A_KIND = "three_of_a_kind", _("Three of a kind")
    STRAIGHT = "straight", _("Straight")
    FLUSH = "flush", _("Flush")
    FULL_HOUSE = "full_house", _("Full house")
    FOUR_OF_A_KIND = "four_of_a_kind", _("Four of a kind")
    STRAIGHT_FLUSH = "straight_flush", _("Straight flush")
    ROYAL_FLUSH = "royal_flush", _("Royal flush")
    FIVE_OF_A_KIND = "five_of_a_kind", _("Five of a kind")


class Paytable(models.Model):
    """A named paytable (JD-14); what it pays is in its versions."""

    name = models.SlugField(verbose_name=_("name"), max_length=60, unique=True)
    kind = models.CharField(verbose_name=_("kind"), max_length=5, choices=PaytableKind.choices)
    description = models.CharField(verbose_name=_("description"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("paytable")
        verbose_name_plural = _("paytables")
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name

    def active_version(self) -> PaytableVersion | None:
        return self.versions.filter(status=ChangeStatus.APPROVED).order_by("-number").first()


@pghistory.track(pghistory.InsertEvent(), pghistory.UpdateEvent(), pghistory.DeleteEvent())
@pgtrigger.register(
    pgtrigger.Protect(
        name="approved_paytable_versions_are_frozen",
        operation=pgtrigger.Update | pgtrigger.Delete,
        condition=pgtrigger.Q(old__status="approved"),
    ),
)
class PaytableVersion(MakerCheckerChange):
    """One version of a paytable: a draft until a second staff member approves it (JD-14)."""

    paytable = models.ForeignKey(
        Paytable, verbose_name=_("paytable"), on_delete=models.PROTECT, related_name="versions"
    )
    number = models.PositiveIntegerField(verbose_name=_("version"))

    class Meta:
        verbose_name = _("paytable version")
        verbose_name_plural = _("paytable versions")
        ordering = ("paytable", "-number")
        permissions = [("approve_paytableversion", "Can approve a paytable version")]
        constraints = [
            models.UniqueConstraint(fields=("paytable", "number"), name="one_version_number"),
            approver_is_not_proposer("paytable"),
        ]

    def __str__(self) -> str:
        return gettext("%(paytable)s v%(number)s") % {
            "paytable": self.paytable.name,
            "number": self.number,
        }

    def odds(self) -> dict[str, Fraction]:
        return {line.category: line.odds for line in self.lines.all()}

    def part_events(self) -> list[Any]:
        """The history of every line that ever belonged to the version: a line's move away from
        a draft changes the draft too."""
        line_event = apps.get_model("payouts", "PaytableLineEvent")
        lines = line_event.objects.filter(version_id=self.pk).values("pgh_obj_id")
        return list(line_event.objects.filter(pgh_obj_id__in=lines).select_related("pgh_context"))


@pghistory.track(pghistory.InsertEvent(), pghistory.UpdateEvent(), pghistory.DeleteEvent())
@pgtrigger.register(
    # Rounds were settled by the lines of an approved version: they never change. Lock order:
    # the version row, then its lines. A line's write first takes its version's row FOR SHARE
    # until its transaction ends, and the approval takes it FOR UPDATE before it prices the
    # lines (games.joker_draw.paytables), so the two never overlap: an edit waits for the
    # approval and then reads the status it committed; an approval waits for the edit and
    # prices the lines it committed.
    pgtrigger.Trigger(
        name="approved_paytable_lines_are_frozen",
        when=pgtrigger.Before,
        operation=pgtrigger.Insert | pgtrigger.Update | pgtrigger.Delete,
        func="""
            IF 'approved' IN (
                SELECT status FROM payouts_paytableversion
                WHERE id IN (
                      COALESCE(CASE WHEN TG_OP <> 'DELETE' THEN NEW.version_id END, -1),
                      COALESCE(CASE WHEN TG_OP <> 'INSERT' THEN OLD.version_id END, -1))
                FOR SHARE
            ) THEN
                RAISE EXCEPTION 'paytable lines of an approved version cannot change (JD-14)'
                    USING ERRCODE = 'integrity_constraint_violation';
            END IF;
            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
            RETURN NEW;
        """,
    ),
)
class PaytableLine(models.Model):
    """`category -> odds` as an exact fraction: pays numerator for every denominator staked."""

    version = models.ForeignKey(
        PaytableVersion,
        verbose_name=_("paytable version"),
        on_delete=models.PROTECT,
        related_name="lines",
    )
    category = models.CharField(
        verbose_name=_("hand rank"), max_length=20, choices=PaytableCategory.choices
    )
    odds_numerator = models.PositiveIntegerField(verbose_name=_("odds: paid"))
    odds_denominator = models.PositiveIntegerField(verbose_name=_("odds: staked"), default=1)

    class Meta:
        verbose_name = _("paytable line")
        verbose_name_plural = _("paytable lines")
        ordering = ("version", "odds_numerator")
        constraints = [
            models.UniqueConstraint(fields=("version", "category"), name="one_line_per_category"),
            models.CheckConstraint(
                condition=Q(odds_numerator__gt=0) & Q(odds_denominator__gt=0),
                name="odds_are_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_category_display()} {self.odds_numerator}:{self.odds_denominator}"

    @property
    def odds(self) -> Fraction:
        return Fraction(self.odds_numerator, self.odds_denominator)


class RtpRunStatus(models.TextChoices):
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class RtpRun(models.Model):
    """A simulation of complete joker draw rounds that measures what a paytable version returns.

    The run is split into chunks, each with its own seed derived from the run's seed, so the
    same run repeated gives the same result to the last unit. ``lines`` keeps the exact odds
    simulated: a draft whose lines changed afterwards needs a new run before approval.
    """

    paytable_version = models.ForeignKey(
        PaytableVersion,
        verbose_name=_("paytable version measured"),
        on_delete=models.PROTECT,
        related_name="rtp_runs",
    )
    bet_paytable_version = models.ForeignKey(
        PaytableVersion,
        verbose_name=_("bet paytable version"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    bonus_paytable_version = models.ForeignKey(
        PaytableVersion,
        verbose_name=_("BONUS paytable version"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    lines = models.JSONField(
        verbose_name=_("lines"), help_text=_("The odds simulated, per paytable kind.")
    )
    strategy_name = models.CharField(verbose_name=_("strategy"), max_length=40)
    strategy = models.JSONField(
        verbose_name=_("strategy"), help_text=_("The player's strategy as a rule table.")
    )
    rounds = models.PositiveBigIntegerField(verbose_name=_("rounds"))
    chunk_rounds = models.PositiveIntegerField(verbose_name=_("rounds per chunk"))
    seed = models.PositiveBigIntegerField(verbose_name=_("seed"))
    status = models.CharField(
        verbose_name=_("status"),
        max_length=8,
        choices=RtpRunStatus.choices,
        default=RtpRunStatus.RUNNING,
    )
    result = models.JSONField(verbose_name=_("result"), null=True, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)
    finished_at = models.DateTimeField(verbose_name=_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        verbose_name = _("RTP run")
        verbose_name_plural = _("RTP runs")
        constraints = [
            models.CheckConstraint(
                condition=Q(rounds__gt=0) & Q(chunk_rounds__gt=0), name="rtp_run_has_rounds"
            ),
        ]

    def __str__(self) -> str:
        return gettext("RTP of %(version)s (%(strategy)s, %(rounds)s rounds)") % {
            "version": self.paytable_version,
            "strategy": self.strategy_name,
            "rounds": f"{self.rounds:,}",
        }

    @property
    def chunk_count(self) -> int:
        return -(-self.rounds // self.chunk_rounds)

    def chunk_size(self, index: int) -> int:
        return min(self.chunk_rounds, self.rounds - index * self.chunk_rounds)


class RtpChunk(models.Model):
    """One chunk's exact tally; written once, so a chunk computed twice (a retried task) counts
    once."""

    run = models.ForeignKey(
        RtpRun, verbose_name=_("RTP run"), on_delete=models.CASCADE, related_name="chunks"
    )
    index = models.PositiveIntegerField(verbose_name=_("chunk number"))
    seed = models.CharField(
        verbose_name=_("chunk seed"),
        max_length=40,
        help_text=_("Derived from the run's seed and the index."),
    )
    rounds = models.PositiveIntegerField(verbose_name=_("rounds"))
    tally = models.JSONField(verbose_name=_("tally"))
    typical_tally = models.JSONField(
        verbose_name=_("typical play's tally"),
        null=True,
        blank=True,
        help_text=_("A best-play run's rounds played again by the reference strategy."),
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("RTP run chunk")
        verbose_name_plural = _("RTP run chunks")
        ordering = ("run", "index")
        constraints = [
            models.UniqueConstraint(fields=("run", "index"), name="one_tally_per_chunk"),
        ]

    def __str__(self) -> str:
        return gettext("chunk %(index)s of RTP run %(run)s") % {
            "index": self.index,
            "run": self.run_id,
        }


class BestPlaySolution(models.Model):
    """The best play of one set of bet lines (``games.engine.joker_draw_best``): solved once
    per digest of the lines and the dealer model, in chunks of hands on the workers; the
    shipped paytables' solutions are files instead (``fixtures/best_play/``)."""

    digest = models.CharField(verbose_name=_("digest"), max_length=64, unique=True)
    lines = models.JSONField(verbose_name=_("lines"), help_text=_("The bet odds solved."))
    status = models.CharField(
        verbose_name=_("status"),
        max_length=8,
        choices=RtpRunStatus.choices,
        default=RtpRunStatus.RUNNING,
    )
    data = models.BinaryField(verbose_name=_("best-play table"), null=True, blank=True)
    regret = models.JSONField(
        verbose_name=_("regret estimate"),
        null=True,
        blank=True,
        help_text=_("What the table gives away against a precise evaluation, per decision."),
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)
    finished_at = models.DateTimeField(verbose_name=_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        verbose_name = _("best-play solution")
        verbose_name_plural = _("best-play solutions")

    def __str__(self) -> str:
        return gettext("best play of %(digest)s") % {"digest": self.digest[:12]}


class BestPlayChunk(models.Model):
    """The second decision of one chunk of hands; written once, like an RTP run's chunk."""

    solution = models.ForeignKey(
        BestPlaySolution,
        verbose_name=_("best-play solution"),
        on_delete=models.CASCADE,
        related_name="chunks",
    )
    index = models.PositiveIntegerField(verbose_name=_("chunk number"))
    data = models.BinaryField(verbose_name=_("values and decisions"))
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        ordering = ("solution", "index")
        verbose_name = _("best-play chunk")
        verbose_name_plural = _("best-play chunks")
        constraints = [
            models.UniqueConstraint(fields=("solution", "index"), name="one_best_play_chunk"),
        ]

    def __str__(self) -> str:
        return gettext("chunk %(index)s of %(solution)s") % {
            "index": self.index,
            "solution": self.solution,
        }


class RtpObservation(models.Model):
    """Actual against theoretical RTP of one table and paytable version, as measured on a day.

    ``alert`` is set when the table is returning something other than its paytable says it
    should: for a BONUS paytable when the theoretical value lies outside the 99% confidence
    interval of the actual one, for a bet paytable when the actual RTP lies outside the 99%
    interval of what the decisions taken should have returned.
    """

    table = models.ForeignKey(
        "games.Table", verbose_name=_("table"), on_delete=models.PROTECT, related_name="+"
    )
    paytable_version = models.ForeignKey(
        PaytableVersion,
        verbose_name=_("paytable version"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    kind = models.CharField(verbose_name=_("kind"), max_length=5, choices=PaytableKind.choices)
    boxes = models.PositiveIntegerField(verbose_name=_("boxes"))
    staked = money_field(verbose_name=_("staked"))
    returned = money_field(verbose_name=_("returned"))
    actual_rtp = models.DecimalField(
        verbose_name=_("actual RTP (%)"), max_digits=9, decimal_places=4, null=True
    )
    interval_low = models.DecimalField(
        verbose_name=_("confidence interval, lower (%)"), max_digits=9, decimal_places=4, null=True
    )
    interval_high = models.DecimalField(
        verbose_name=_("confidence interval, upper (%)"), max_digits=9, decimal_places=4, null=True
    )
    theoretical_rtp = models.DecimalField(
        verbose_name=_("theoretical RTP (%)"), max_digits=9, decimal_places=4, null=True
    )
    rtp_run = models.ForeignKey(
        RtpRun, verbose_name=_("RTP run"), null=True, on_delete=models.PROTECT, related_name="+"
    )
    # The bet game against the decisions taken (games.joker_draw.rtp_monitor): the boxes judged
    # against best play, the RTP they had and the one their decisions should have returned,
    # with the 99% interval the actual must lie in; and the paytable's best-play band and
    # typical (reference strategy) figure from its best-play run.
    assessed_boxes = models.PositiveIntegerField(verbose_name=_("boxes assessed"), default=0)
    assessed_rtp = models.DecimalField(
        verbose_name=_("actual RTP of the boxes assessed (%)"),
        max_digits=9,
        decimal_places=4,
        null=True,
    )
    decisions_rtp = models.DecimalField(
        verbose_name=_("RTP of the decisions taken (%)"), max_digits=9, decimal_places=4, null=True
    )
    decisions_low = models.DecimalField(
        verbose_name=_("decisions taken, lower (%)"), max_digits=9, decimal_places=4, null=True
    )
    decisions_high = models.DecimalField(
        verbose_name=_("decisions taken, upper (%)"), max_digits=9, decimal_places=4, null=True
    )
    best_play_low = models.DecimalField(
        verbose_name=_("best play, lower (%)"), max_digits=9, decimal_places=4, null=True
    )
    best_play_high = models.DecimalField(
        verbose_name=_("best play, upper (%)"), max_digits=9, decimal_places=4, null=True
    )
    typical_rtp = models.DecimalField(
        verbose_name=_("typical play (%)"), max_digits=9, decimal_places=4, null=True
    )
    alert = models.BooleanField(verbose_name=_("alert"), default=False)
    observed_at = models.DateTimeField(
        verbose_name=_("observed at"), auto_now_add=True, db_index=True
    )

    class Meta:
        ordering = ("-observed_at", "table", "kind")
        verbose_name = _("RTP observation")
        verbose_name_plural = _("RTP observations")

    def __str__(self) -> str:
        return gettext("%(version)s at table %(table)s: %(rtp)s%%") % {
            "version": self.paytable_version,
            "table": self.table_id,
            "rtp": self.actual_rtp,
        }


class ReconciliationReport(models.Model):
    """The nightly ledger check: the trial balance per currency and every mismatch found."""

    created_at = models.DateTimeField(
        verbose_name=_("created at"), auto_now_add=True, db_index=True
    )
    ok = models.BooleanField(verbose_name=_("balanced"))
    trial_balance = models.JSONField(verbose_name=_("trial balance"))
    problems = models.JSONField(verbose_name=_("problems"))

    class Meta:
        verbose_name = _("reconciliation report")
        verbose_name_plural = _("reconciliation reports")
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return gettext("ledger report %(when)s: %(result)s") % {
            "when": f"{self.created_at:%Y-%m-%d %H:%M}",
            "result": gettext("ok") if self.ok else gettext("FAILED"),
        }
