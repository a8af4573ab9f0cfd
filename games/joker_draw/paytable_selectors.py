"""Reads of the joker draw's paytables for the pit: a version's lines in rank order, a proposed
version side by side with the one in force (what its approver judges), and how far an RTP run
has come."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from django.utils.translation import gettext as _

from games.joker_draw import rtp_lab
from games.tables.hand_names import category_name
from payouts.models import Paytable, PaytableCategory, PaytableVersion, RtpRun, RtpRunStatus

# Highest hand first, as a paytable is printed: five of a kind, the royal flush, ... a pair.
RANK_ORDER = tuple(reversed(PaytableCategory.values))


def odds_text(odds: Fraction | None) -> str:
    return f"{odds.numerator}:{odds.denominator}" if odds is not None else ""


@dataclass(frozen=True)
class PaytableLineDiff:
    """One hand category of a proposed version beside the version in force."""

    category: str
    name: str
    in_force: Fraction | None
    proposed: Fraction | None

    @property
    def change(self) -> str:
        """``added``, ``removed``, ``changed`` or ``same``: a stable word for pages and the API."""
        if self.in_force == self.proposed:
            return "same"
        if self.in_force is None:
            return "added"
        return "removed" if self.proposed is None else "changed"

    @property
    def change_label(self) -> str:
        return {
            "same": _("same"),
            "added": _("added"),
            "removed": _("removed"),
            "changed": _("changed"),
        }[self.change]


@dataclass(frozen=True)
class PaytableDiff:
    """A version against the version in force of its paytable, and the RTP of each where a
    finished run of its current lines exists (JD-14)."""

    version: PaytableVersion
    in_force: PaytableVersion | None
    lines: list[PaytableLineDiff]
    rtp_in_force: Decimal | None  # best play's, the upper end of its 99% interval
    rtp_proposed: Decimal | None
    typical_in_force: Decimal | None  # the reference strategy's on the same rounds
    typical_proposed: Decimal | None


def lines_in_rank_order(version: PaytableVersion) -> list[tuple[str, str, Fraction]]:
    """The version's lines, highest hand first: (category, its name, odds)."""
    odds = version.odds()
    return [
        (category, category_name(category), odds[category])
        for category in RANK_ORDER
        if category in odds
    ]


def paytable_diff(version: PaytableVersion) -> PaytableDiff:
    in_force = version.paytable.active_version()
    before = in_force.odds() if in_force is not None and in_force.pk != version.pk else {}
    if in_force is not None and in_force.pk == version.pk:
        in_force = None  # the version in force compared with nothing: every line is its own
    after = version.odds()
    lines = [
        PaytableLineDiff(
            category, category_name(category), before.get(category), after.get(category)
        )
        for category in RANK_ORDER
        if category in before or category in after
    ]
    return PaytableDiff(
        version=version,
        in_force=in_force,
        lines=lines,
        rtp_in_force=_rtp(in_force),
        rtp_proposed=_rtp(version),
        typical_in_force=_typical(in_force),
        typical_proposed=_typical(version),
    )


def _rtp(version: PaytableVersion | None) -> Decimal | None:
    measured = rtp_lab.rtp_of(version) if version is not None else None
    return measured[0] if measured is not None else None


def _typical(version: PaytableVersion | None) -> Decimal | None:
    """Typical play's RTP beside the best-play run approval judges the version by."""
    measured = rtp_lab.rtp_of(version) if version is not None else None
    typical = (measured[1].result or {}).get("typical") if measured is not None else None
    return Decimal(str(typical["game_rtp"])) if typical else None


@dataclass(frozen=True)
class RtpProgress:
    """How far a run has come, from its stored chunks: true across restarts of the web server
    and the workers, since a chunk is stored once when it is computed."""

    run: RtpRun
    chunks_done: int

    @property
    def chunks(self) -> int:
        return self.run.chunk_count

    @property
    def percent(self) -> int:
        if self.run.status == RtpRunStatus.DONE:
            return 100
        return 100 * self.chunks_done // self.chunks

    @property
    def rtp(self) -> str | None:
        """The run's RTP (percent), once it is done: the game's, or the BONUS's exact figure."""
        result = self.run.result or {}
        if self.run.status != RtpRunStatus.DONE:
            return None
        return str(result.get("bonus_exact_rtp") or result.get("game_rtp"))

    @property
    def error(self) -> str:
        failed = self.run.status == RtpRunStatus.FAILED
        return str((self.run.result or {}).get("error", "")) if failed else ""


def rtp_progress(run: RtpRun) -> RtpProgress:
    run.refresh_from_db()
    return RtpProgress(run, rtp_lab.chunks_done(run))


def latest_run(version: PaytableVersion) -> RtpRun | None:
    return version.rtp_runs.order_by("-created_at").first()


def version_named(name: str, number: int | None = None) -> PaytableVersion:
    """A paytable's version by the paytable's name (the newest without a number); ValueError
    naming the option for people at a command line."""
    paytable = Paytable.objects.filter(name=name).first()
    if paytable is None:
        known = ", ".join(Paytable.objects.values_list("name", flat=True)) or "none"
        raise ValueError(f"--paytable: no paytable {name!r} (known: {known})")
    versions = paytable.versions.order_by("-number")
    version = versions.filter(number=number).first() if number else versions.first()
    if version is None:
        raise ValueError(f"--paytable-version: {paytable} has no version {number or ''}")
    return version
