"""Celery tasks of the joker draw: the decision timer, the RTP laboratory's chunks, the chunks of
a best-play solution, the boxes judged against best play and the nightly RTP observation.

Each task keeps the name it was first queued under, so tasks queued before an upgrade still
run. Every task only calls services and is safe to run twice: a fold finds nothing overdue, a
chunk is stored once, and an observation is a new row each time.
"""

from __future__ import annotations

from celery import group, shared_task
from django.db import InterfaceError, OperationalError

from casino.faults import fault_point
from games.engine import joker_draw_best as best
from games.joker_draw import best_play, box_play, rtp_lab, rtp_monitor
from games.joker_draw import services as joker_draw
from games.joker_draw.selectors import overdue_rounds
from payouts.models import BestPlaySolution, RtpRun, RtpRunStatus


@shared_task(name="games.tasks.expire_joker_draw_decision", acks_late=True)
def expire_joker_draw_decision(round_id: int) -> None:
    """Fold the box whose decision time ran out; harmless if it has acted meanwhile, or if this
    is a redelivery of a timer that already ran (README, Crashes)."""
    fault_point("timer.started")
    joker_draw.expire_decision(round_id)
    fault_point("timer.committed")  # folded, but the broker never heard the task end


@shared_task(name="games.tasks.fold_overdue_boxes")
def fold_overdue_boxes() -> int:
    """The joker draw decision timer (JD-4), on Celery beat's one-second tick: each round with
    a box out of time goes to a fold task of its own. No request sends a broker message for
    its timer; a fold comes at most about a second after the deadline, and a decision that
    comes after the deadline is refused on arrival anyway. Returns how many were handed on."""
    overdue = overdue_rounds()
    for round_id, _table_id in overdue:
        expire_joker_draw_decision.delay(round_id)
    return len(overdue)


@shared_task(name="games.tasks.assess_box_play", acks_late=True)
def assess_box_play() -> int:
    """Judge the boxes settled since the last run against best play (a box is recorded once,
    so a second run, or two at once, records nothing twice); returns how many were recorded."""
    return box_play.assess_boxes(limit=box_play.BATCH * 10)


@shared_task(name="games.tasks.observe_rtp", acks_late=True)
def observe_rtp() -> int:
    """Record actual against theoretical RTP of every table and paytable version; returns how
    many observations raised an alert."""
    return sum(observation.alert for observation in rtp_monitor.observe_rtp())


def dispatch_rtp_run(run_id: int) -> None:
    """Hand a run's chunks to the workers; the last chunk stored merges the run (no chord,
    whose count would never close if a worker died after its chunk but before reporting it).
    Given to ``rtp_lab.start_run`` by whoever starts a run on the workers."""
    run = RtpRun.objects.get(pk=run_id)
    if run.strategy_name == rtp_lab.BEST:
        waiting = BestPlaySolution.objects.filter(
            digest=run.strategy["digest"], status=RtpRunStatus.RUNNING
        ).first()
        if waiting is not None:
            # Solve first; the solution's last chunk hands this run on (compute_best_play_chunk).
            group(
                compute_best_play_chunk.si(waiting.pk, index) for index in range(best.chunk_count())
            ).apply_async()
            return
    group(compute_rtp_chunk.si(run.pk, index) for index in range(run.chunk_count)).apply_async()


# A lost connection or a deadlock undoes the chunk's transaction; without a retry the task
# would end there and the run would wait forever for its chunk.
@shared_task(
    name="payouts.tasks.compute_rtp_chunk",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=5,
)
def compute_rtp_chunk(run_id: int, index: int) -> bool:
    return rtp_lab.compute_chunk(run_id, index)


@shared_task(
    name="games.tasks.compute_best_play_chunk",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=5,
)
def compute_best_play_chunk(solution_id: int, index: int) -> bool:
    """Solve one chunk of hands; the chunk that completes the solution hands on the best-play
    runs that waited for it (and a second dispatch of a run finds its chunks stored)."""
    solution = BestPlaySolution.objects.get(pk=solution_id)
    finished = best_play.compute_chunk(solution_id, index, rtp_lab.odds_from_text(solution.lines))
    if finished:
        for run_id in rtp_lab.waiting_best_runs(solution.digest):
            dispatch_rtp_run(run_id)
    return finished
