"""The RTP laboratory: what a joker draw paytable version returns, by simulating complete rounds.

A run is split into chunks of ``chunk_rounds`` rounds. Each chunk has its own seed, derived from
the run's seed, and its exact integer tally is written once, so a chunk computed twice (a task
redelivered after its worker died) counts once and any run repeats to the last unit. The chunks
run on Celery workers (``games.joker_draw.tasks``, whose dispatch whoever starts a run hands
over) or in-process (the ``rtp`` command's ``--in-process`` and the demo data); either way the
result is the same.

A bet paytable is priced at best play (``games.joker_draw.best_play``): a ``best`` run plays the
solved best decisions on fresh rounds, and its first chunks (``RTP_TYPICAL_ROUNDS`` rounds) play
the same rounds again by the ``reference`` strategy, the typical player, shown beside it. Pit
staff may approve a bet paytable version only once a finished best-play run of its current lines,
with at least ``RTP_APPROVAL_MIN_ROUNDS`` rounds and a 99% interval no wider than
``RTP_APPROVAL_MAX_SPREAD`` points either side, has the upper end of its interval inside the
allowed band of every table that uses the paytable (or the house band when none does), and never
above 100%: best play must never beat the house. A BONUS paytable is priced exactly (JD-14a).
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from statistics import NormalDist
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from casino import charts
from games.engine import joker_draw_rtp as lab
from games.engine.hands import CATEGORIES
from games.engine.joker_draw import NO_GAME_LINE, Paytable, no_game_odds
from games.joker_draw import best_play
from games.tables.table_game import ExpectedReturn
from payouts.approvals import ChangeStatus
from payouts.models import (
    PaytableKind,
    PaytableVersion,
    RtpChunk,
    RtpObservation,
    RtpRun,
    RtpRunStatus,
)

STRATEGIES: dict[str, lab.Strategy] = {"reference": lab.REFERENCE, "stand": lab.STAND}
REFERENCE = "reference"
BEST = "best"
PERCENT_PLACES = Decimal("0.0001")


class RtpRefused(Exception):
    """A run that cannot be started, with messages naming the field."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{field}: {message}" for field, message in errors.items()))
        self.errors = errors


def odds_text(odds: Mapping[str, Fraction]) -> dict[str, str]:
    return {category: f"{o.numerator}:{o.denominator}" for category, o in sorted(odds.items())}


def odds_from_text(lines: Mapping[str, str]) -> Paytable:
    return {
        category: Fraction(int(num), int(den))
        for category, (num, den) in ((c, text.split(":")) for c, text in lines.items())
    }


def _partner_bet_version() -> PaytableVersion:
    """The bet paytable a bonus paytable's run plays beside: the BONUS does not depend on it,
    but a round needs one (an approved one where there is one)."""
    versions = PaytableVersion.objects.filter(paytable__kind=PaytableKind.BET)
    version = (
        versions.filter(status=ChangeStatus.APPROVED).order_by("paytable__name", "-number").first()
        or versions.order_by("paytable__name", "-number").first()
    )
    if version is None:
        raise RtpRefused({"paytable": _("A BONUS run plays beside a bet paytable; there is none.")})
    return version


def start_run(
    version: PaytableVersion,
    *,
    rounds: int,
    strategy_name: str = REFERENCE,
    strategy: lab.Strategy | None = None,
    seed: int | None = None,
    chunk_rounds: int | None = None,
    by: User | None = None,
    dispatch: Callable[[int], object] | None = None,
) -> RtpRun:
    """Record a run of ``version``. With ``dispatch`` (``games.joker_draw.tasks``'s
    ``dispatch_rtp_run``) its chunks go to the workers once the run is committed; without, the
    caller computes them (``run_in_process``)."""
    if rounds <= 0:
        raise RtpRefused({"rounds": _("A run simulates at least one round.")})
    if strategy_name == BEST:
        return _start_best_run(
            version, rounds=rounds, seed=seed, chunk_rounds=chunk_rounds, by=by, dispatch=dispatch
        )
    if strategy is None:
        if strategy_name not in STRATEGIES:
            raise RtpRefused(
                {
                    "strategy": _("Unknown strategy %(strategy)r; give a rule table.")
                    % {"strategy": strategy_name}
                }
            )
        strategy = STRATEGIES[strategy_name]
    chunk_rounds = chunk_rounds or settings.RTP_CHUNK_ROUNDS
    if version.paytable.kind == PaytableKind.BET:
        bet, bonus = version, None
    else:
        bet, bonus = _partner_bet_version(), version
    lines = {"bet": odds_text(bet.odds())}
    if bonus is not None:
        lines["bonus"] = odds_text(bonus.odds())
    run = RtpRun.objects.create(
        paytable_version=version,
        bet_paytable_version=bet,
        bonus_paytable_version=bonus,
        lines=lines,
        strategy_name=strategy_name,
        strategy=lab.strategy_to_table(strategy),
        rounds=rounds,
        chunk_rounds=min(chunk_rounds, rounds),
        seed=secrets.randbits(63) if seed is None else seed,
        requested_by=by,
    )
    if dispatch is not None:
        transaction.on_commit(lambda: dispatch(run.pk))
    return run


def _start_best_run(
    version: PaytableVersion,
    *,
    rounds: int,
    seed: int | None,
    chunk_rounds: int | None,
    by: User | None,
    dispatch: Callable[[int], object] | None,
) -> RtpRun:
    """A best-play run of a bet paytable version. Where nobody has solved its lines, they are
    recorded to be solved, and the workers solve them before they play the run's chunks
    (``games.joker_draw.tasks.dispatch_rtp_run``)."""
    if version.paytable.kind != PaytableKind.BET:
        raise RtpRefused(
            {"strategy": _("Best play is the player's strategy against a bet paytable.")}
        )
    odds = version.odds()
    lines = odds_text(odds)
    run = RtpRun.objects.create(
        paytable_version=version,
        bet_paytable_version=version,
        lines={"bet": lines},
        strategy_name=BEST,
        strategy={"digest": best_play.digest_of(odds)},
        rounds=rounds,
        chunk_rounds=min(chunk_rounds or settings.RTP_CHUNK_ROUNDS, rounds),
        seed=secrets.randbits(63) if seed is None else seed,
        requested_by=by,
    )
    if best_play.solution_for(odds) is None:
        best_play.start_solution(odds, lines, by=by)
    if dispatch is not None:
        transaction.on_commit(lambda: dispatch(run.pk))
    return run


def waiting_best_runs(digest: str) -> list[int]:
    """The best-play runs of these lines that wait for their solution (no chunk done yet)."""
    return list(
        RtpRun.objects.filter(
            strategy_name=BEST,
            status=RtpRunStatus.RUNNING,
            strategy__digest=digest,
            chunks__isnull=True,
        ).values_list("pk", flat=True)
    )


def _run_player(run: RtpRun) -> lab.Player:
    if run.strategy_name != BEST:
        return lab.strategy_from_table(run.strategy_name, run.strategy)
    solution = best_play.solution_for(odds_from_text(run.lines["bet"]))
    if solution is None:
        raise RuntimeError(f"{run}: the best play of its lines is not solved yet")
    return solution


def compute_chunk(run_id: int, index: int) -> bool:
    """Simulate one chunk and store its tally; False when it was already stored.

    The chunk that completes the run merges the run in the same transaction as its own tally.
    A worker process can die at any instant, even after its work committed but before Celery
    heard of it, so the merge must not wait for a later message that may never come. A merge
    that raises keeps the chunk, marks the run failed with the error, and raises it again."""
    run = RtpRun.objects.get(pk=run_id)
    seed = lab.chunk_seed(run.seed, index)
    tally = None
    typical = None
    if not RtpChunk.objects.filter(run=run, index=index).exists():
        bet, bonus = odds_from_text(run.lines["bet"]), odds_from_text(run.lines.get("bonus", {}))
        tally = lab.simulate(bet, bonus, _run_player(run), run.chunk_size(index), seed)
        if run.strategy_name == BEST and index * run.chunk_rounds < settings.RTP_TYPICAL_ROUNDS:
            # The same rounds as a typical player plays them, on the run's first chunks.
            typical = lab.simulate(bet, bonus, lab.REFERENCE, run.chunk_size(index), seed).to_json()
    failure: Exception | None = None
    with transaction.atomic():
        # The run's row lock orders the chunks' commits; under READ COMMITTED (Django's level)
        # the count after the lock sees every chunk committed before it, so exactly one chunk
        # sees the last one in.
        run = RtpRun.objects.select_for_update().get(pk=run_id)
        created = False
        if tally is not None:
            _chunk, created = RtpChunk.objects.get_or_create(
                run=run,
                index=index,
                defaults={
                    "seed": str(seed),
                    "rounds": run.chunk_size(index),
                    "tally": tally.to_json(),
                    "typical_tally": typical,
                },
            )
        if run.status != RtpRunStatus.DONE and chunks_done(run) == run.chunk_count:
            try:
                with transaction.atomic():  # a savepoint: a failed merge keeps the chunk
                    _merge(run)
            except Exception as error:  # recorded on the run, then raised again
                failure = error
                run.status = RtpRunStatus.FAILED
                run.result = {"error": f"{type(error).__name__}: {error}"}
                run.finished_at = timezone.now()
                run.save(update_fields=["result", "status", "finished_at"])
    if failure is not None:
        raise failure
    return created


def chunks_done(run: RtpRun) -> int:
    return RtpChunk.objects.filter(run=run).count()


def finish_run(run_id: int) -> RtpRun:
    """Merge the chunks' tallies into the run's result (a failed run's merge is tried again);
    harmless to call twice."""
    with transaction.atomic():
        run = RtpRun.objects.select_for_update().get(pk=run_id)
        if run.status != RtpRunStatus.DONE:
            _merge(run)
    return run


def _merge(run: RtpRun) -> None:
    """Under the run's row lock: sum the chunks' tallies and mark the run done."""
    chunks = list(RtpChunk.objects.filter(run=run))
    if len(chunks) < run.chunk_count:
        raise RuntimeError(f"{run}: {len(chunks)} of {run.chunk_count} chunks are in")
    result = lab.summarize(_merged(chunk.tally for chunk in chunks)).to_json()
    if run.strategy_name == BEST:
        typical_chunks = [chunk for chunk in chunks if chunk.typical_tally is not None]
        typical = lab.summarize(_merged(chunk.typical_tally or {} for chunk in typical_chunks))
        result["typical"] = {
            "game_rtp": typical.game_rtp,
            "game_ci99": list(typical.game_ci99),
            "rounds": typical.rounds,
        }
        regret = best_play.regret_of(run.strategy["digest"])
        if regret is not None:
            result["regret"] = regret
    if "bonus" in run.lines:
        exact = lab.exact_bonus_rtp(odds_from_text(run.lines["bonus"]))
        result["bonus_exact_rtp"] = str(_percent(exact))
    run.result = result
    run.status = RtpRunStatus.DONE
    run.finished_at = timezone.now()
    run.save(update_fields=["result", "status", "finished_at"])


def _merged(tallies: Iterable[Mapping[str, Any]]) -> lab.Tally:
    merged: lab.Tally | None = None
    for data in tallies:
        tally = lab.Tally.from_json(data)
        merged = tally if merged is None else merged.merge(tally)
    if merged is None:
        raise RuntimeError("a run has at least one chunk")
    return merged


def run_in_process(run: RtpRun, progress: Callable[[int], None] | None = None) -> RtpRun:
    """Compute every missing chunk here (the last one finishes the run): for a machine without
    workers."""
    for index in range(run.chunk_count):
        compute_chunk(run.pk, index)
        if progress is not None:
            progress(run.chunk_size(index))
    run.refresh_from_db()
    return run


def export_run(run: RtpRun) -> dict[str, Any]:
    """A finished best-play run as data to ship beside its solution: every chunk's exact tallies,
    so anyone can recompute any chunk from the seed and compare to the last unit."""
    return {
        "lines": run.lines["bet"],
        "rounds": run.rounds,
        "chunk_rounds": run.chunk_rounds,
        "seed": run.seed,
        "chunks": [
            {"index": chunk.index, "tally": chunk.tally, "typical_tally": chunk.typical_tally}
            for chunk in RtpChunk.objects.filter(run=run).order_by("index")
        ],
    }


def shipped_run(version: PaytableVersion) -> RtpRun | None:
    """The shipped best-play run of a shipped bet paytable's lines, recorded for this version
    (the demo and a fresh installation need not simulate a hundred million rounds); None when
    nothing shipped matches the version's lines or it is shorter than approval asks."""
    if version.paytable.kind != PaytableKind.BET:
        return None
    odds = version.odds()
    priced = best_play.shipped_priced_run(best_play.digest_of(odds))
    # A version without the no-game line pays 2:3 (JD-11a), as the shipped lines say.
    if priced is None or priced["lines"] != odds_text({NO_GAME_LINE: no_game_odds(odds), **odds}):
        return None
    if priced["rounds"] < settings.RTP_APPROVAL_MIN_ROUNDS:
        return None
    run = RtpRun.objects.create(
        paytable_version=version,
        bet_paytable_version=version,
        lines={"bet": odds_text(odds)},
        strategy_name=BEST,
        strategy={"digest": best_play.digest_of(odds)},
        rounds=priced["rounds"],
        chunk_rounds=priced["chunk_rounds"],
        seed=priced["seed"],
    )
    _insert_chunks(
        run,
        [
            {
                "index": chunk["index"],
                "seed": str(lab.chunk_seed(run.seed, chunk["index"])),
                "rounds": run.chunk_size(chunk["index"]),
                "tally": chunk["tally"],
                "typical_tally": chunk["typical_tally"],
            }
            for chunk in priced["chunks"]
        ],
    )
    return finish_run(run.pk)


# A shipped run's hundreds of chunks as one JSON parameter: bulk_create would send each tally
# as an element of a text array, escaped one by one, a second of work for a megabyte.
_INSERT_CHUNKS = """
    INSERT INTO {table} (run_id, "index", seed, rounds, tally, typical_tally, created_at)
    SELECT %s, c."index", c.seed, c.rounds, c.tally, c.typical_tally, now()
    FROM jsonb_to_recordset(%s::jsonb)
        AS c ("index" integer, seed text, rounds integer, tally jsonb, typical_tally jsonb)
"""


def _insert_chunks(run: RtpRun, chunks: list[dict[str, Any]]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            _INSERT_CHUNKS.format(table=connection.ops.quote_name(RtpChunk._meta.db_table)),
            [run.pk, json.dumps(chunks)],
        )


def start_approval_run(
    version: PaytableVersion, *, by: User | None, dispatch: Callable[[int], object]
) -> RtpRun:
    """The run approval judges a version by, on the workers: best play for a bet paytable,
    the reference strategy beside a BONUS paytable (priced exactly, JD-14a)."""
    bet = version.paytable.kind == PaytableKind.BET
    return start_run(
        version,
        rounds=settings.RTP_BEST_PLAY_ROUNDS if bet else settings.RTP_APPROVAL_MIN_ROUNDS,
        strategy_name=BEST if bet else REFERENCE,
        by=by,
        dispatch=dispatch,
    )


def compute_now(version: PaytableVersion, *, seed: int | None = None) -> RtpRun:
    """The run approval needs, just long enough, simulated here: best play for a bet paytable
    (solving its lines here if nobody has; the shipped run where one matches and no seed is
    asked for), the reference strategy beside a BONUS paytable."""
    if version.paytable.kind == PaytableKind.BET:
        shipped = shipped_run(version) if seed is None else None
        if shipped is not None:
            return shipped
        odds = version.odds()
        best_play.solve_now(odds, odds_text(odds))
        run = start_run(
            version, rounds=settings.RTP_BEST_PLAY_ROUNDS, strategy_name=BEST, seed=seed
        )
    else:
        run = start_run(version, rounds=settings.RTP_APPROVAL_MIN_ROUNDS, seed=seed)
    return run_in_process(run)


def _percent(value: Fraction | float) -> Decimal:
    fraction = Fraction(value)
    return (Decimal(fraction.numerator) * 100 / Decimal(fraction.denominator)).quantize(
        PERCENT_PLACES
    )


# What approval needs -----------------------------------------------------------------------


def rtp_of(version: PaytableVersion) -> tuple[Decimal, RtpRun] | None:
    """The RTP (percent) that approval judges a version by, and the run it comes from: the
    upper end of the 99% interval of best play for a bet paytable (the price a skilled player
    gets, never understated), from a run precise enough (``RTP_APPROVAL_MAX_SPREAD``); the exact
    census figure for a bonus paytable; None when no finished run matches the current lines."""
    kind = version.paytable.kind
    lines = odds_text(version.odds())
    runs = RtpRun.objects.filter(
        paytable_version=version,
        status=RtpRunStatus.DONE,
        rounds__gte=settings.RTP_APPROVAL_MIN_ROUNDS,
    )
    if kind == PaytableKind.BET:
        runs = runs.filter(strategy_name=BEST)
    for run in runs.order_by("-finished_at"):
        if run.lines.get(kind) != lines or run.result is None:
            continue
        if kind == PaytableKind.BET:
            low, high = (Decimal(str(end)) for end in run.result["game_ci99"])
            if (high - low) / 2 > Decimal(str(settings.RTP_APPROVAL_MAX_SPREAD)):
                continue
            return high, run
        return Decimal(run.result["bonus_exact_rtp"]), run
    return None


_Z99 = NormalDist().inv_cdf(0.995)


def expected_return(
    bet_version_id: int | None, bonus_version_id: int | None
) -> ExpectedReturn | None:
    """The house's edge per unit staked on a round's bet and BONUS paytable versions, each with
    one box's standard deviation per unit staked, recovered from the run's 99% interval and its
    rounds; None when a version has no run that ``rtp_of`` accepts."""
    if bet_version_id is None:
        return None
    game = _edge(bet_version_id, "game")
    if game is None:
        return None
    bonus = _edge(bonus_version_id, "bonus") if bonus_version_id is not None else (Decimal(0), 0.0)
    if bonus is None:
        return None
    return ExpectedReturn(game[0], game[1], bonus[0], bonus[1])


def _edge(version_id: int, part: str) -> tuple[Decimal, float] | None:
    measured = rtp_of(PaytableVersion.objects.select_related("paytable").get(pk=version_id))
    if measured is None:
        return None
    rtp, run = measured
    result = run.result or {}
    interval = result.get(f"{part}_ci99")
    spread = 0.0
    if interval:
        low, high = interval
        spread = (high - low) / 2 / 100 / _Z99 * math.sqrt(result["rounds"])
    return 1 - rtp / 100, spread


def band_problem(
    version: PaytableVersion, bands: list[tuple[str, Decimal, Decimal]]
) -> dict[str, str]:
    """The refusal, if the version's RTP is missing or outside any of the ``(where, low, high)``
    bands; empty when it may be approved."""
    measured = rtp_of(version)
    if measured is None:
        return {
            "rtp": _(
                "%(version)s has no finished best-play RTP run of its current lines with at "
                "least %(rounds)s rounds and a 99%% interval within %(spread)s points; compute "
                "its RTP first (JD-14)."
            )
            % {
                "version": version,
                "rounds": f"{settings.RTP_APPROVAL_MIN_ROUNDS:,}",
                "spread": settings.RTP_APPROVAL_MAX_SPREAD,
            }
        }
    rtp, run = measured
    if version.paytable.kind == PaytableKind.BET and rtp > 100:
        return {
            "rtp": _(
                "%(version)s returns up to %(rtp)s%% to a player who plays best (RTP run "
                "%(run)s): best play would beat the house (JD-14)."
            )
            % {"version": version, "rtp": rtp, "run": run.pk}
        }
    for where, low, high in bands:
        if not low <= rtp <= high:
            return {
                "rtp": _(
                    "%(version)s returns %(rtp)s%% (RTP run %(run)s), outside the allowed band "
                    "%(low)s%%-%(high)s%% of %(where)s (JD-14)."
                )
                % {
                    "version": version,
                    "rtp": rtp,
                    "run": run.pk,
                    "low": low,
                    "high": high,
                    "where": where,
                }
            }
    return {}


def house_band(kind: str) -> tuple[str, Decimal, Decimal]:
    low, high = settings.RTP_HOUSE_BAND_PERCENT[kind]
    where = _("the house, for a %(kind)s") % {"kind": PaytableKind(kind).label}
    return (where, Decimal(low), Decimal(high))


# The chart -------------------------------------------------------------------------------------


def rtp_chart_png(run: RtpRun) -> bytes:
    """A finished run's chart: hand-category frequencies of player and dealer, and the RTPs
    with their 99% intervals."""
    result = run.result or {}
    figure = charts.figure(10, 4.5)
    categories, rtps = figure.subplots(1, 2, gridspec_kw={"width_ratios": [3, 1]})
    player, dealer = result["player_categories"], result["dealer_categories"]
    names = [name for name in CATEGORIES if player.get(name) or dealer.get(name)]
    positions = range(len(names))
    for offset, label, frequencies in (
        (-0.2, "player (boxes that bet)", player),
        (0.2, "dealer", dealer),
    ):
        heights = [float(frequencies.get(name, 0)) for name in names]
        categories.bar([p + offset for p in positions], heights, width=0.4, label=label)
    categories.set_xticks(list(positions), [n.replace("_", " ") for n in names], rotation=35)
    categories.set_yscale("log")
    categories.set_ylabel("frequency")
    categories.legend()
    categories.set_title(
        f"{run.paytable_version}: final hands over {run.rounds:,} rounds\n"
        f"the dealer qualifies in {100 * result['dealer_qualification_rate']:.1f}% of them"
    )
    labels, values, below, above = [], [], [], []
    for label in ("game", "bonus"):
        if result.get(f"{label}_rtp") is None:
            continue
        rtp, (low, high) = float(result[f"{label}_rtp"]), result[f"{label}_ci99"]
        labels.append(label)
        values.append(rtp)
        below.append(rtp - float(low))
        above.append(float(high) - rtp)
    rtps.bar(labels, values, yerr=[below, above], capsize=6)
    if "bonus_exact_rtp" in result:
        exact = float(result["bonus_exact_rtp"])
        rtps.plot([0.6, 1.4], [exact, exact], color="#0a6b2b", label=f"exact {exact}%")
        rtps.legend(loc="lower right")
    rtps.set_ylim(min([*values, 90.0]) - 2, max([*values, 100.0]) + 2)
    rtps.set_ylabel("RTP % (99% interval)")
    rtps.set_title(f"strategy: {run.strategy_name}")
    return charts.png(figure)


def rtp_comparison_png(observations: Sequence[RtpObservation]) -> bytes:
    """Each table and paytable version's actual RTP with its 99% interval (alerts in red),
    beside the theoretical figure."""
    figure = charts.figure(max(6.0, 1.2 * len(observations) + 2), 4.5)
    axes = figure.subplots()
    if not observations:
        # An empty state, not blank axes.
        axes.set_axis_off()
        axes.text(0.5, 0.5, _("No observations yet"), ha="center", va="center", fontsize=14)
        return charts.png(figure)
    labels = [f"{o.table}\n{o.paytable_version}" for o in observations]
    for position, observation in enumerate(observations):
        actual, low, high = (
            observation.actual_rtp,
            observation.interval_low,
            observation.interval_high,
        )
        if actual is not None:
            # Too few boxes give an interval that means nothing: none is drawn.
            error = (
                [[float(actual - low)], [float(high - actual)]]
                if low is not None
                and high is not None
                and observation.boxes >= settings.RTP_OBSERVATION_MIN_BOXES
                else None
            )
            axes.errorbar(
                [position],
                [float(actual)],
                yerr=error,
                fmt="o",
                capsize=6,
                color="#b00020" if observation.alert else "#1f4e9c",
                label="actual (99% interval)" if position == 0 else None,
            )
        if observation.theoretical_rtp is not None:
            axes.plot(
                [position - 0.3, position + 0.3],
                [float(observation.theoretical_rtp)] * 2,
                color="#0a6b2b",
                linewidth=2,
                label="theoretical" if position == 0 else None,
            )
    axes.set_xticks(range(len(labels)), labels, fontsize=8)
    axes.set_xlim(-0.7, max(len(labels), 1) - 0.3)
    axes.set_ylabel("RTP %")
    axes.set_title("Actual against theoretical RTP per table and paytable version")
    if observations:
        axes.legend()
    return charts.png(figure)


def describe(run: RtpRun) -> str:
    """One line for people: the RTPs with their 99% intervals."""
    result = run.result
    if result is None:
        return f"RTP run {run.pk}: {run.get_status_display()}, no result yet"
    game_low, game_high = result["game_ci99"]
    text = f"game {result['game_rtp']}% (99%: {game_low}-{game_high})"
    if result.get("bonus_rtp") is not None:
        bonus_low, bonus_high = result["bonus_ci99"]
        text += f", bonus {result['bonus_rtp']}% (99%: {bonus_low}-{bonus_high})"
    if "bonus_exact_rtp" in result:
        text += f", bonus exact {result['bonus_exact_rtp']}%"
    return text
