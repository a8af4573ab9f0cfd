"""Heavy work never delays the game: every task of the project is routed to a queue of its own
choosing (casino/settings.py, CELERY_TASK_ROUTES), the game's timers to `game`, the laboratory
and reports to `lab`; and with the two workers `make run` starts (scripts/worker.sh) and a
laboratory run of 200 million rounds holding the lab worker, a joker draw decision out of time
is folded, a stud hand dealt and a stud player out of time acted for within 2 s of their time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import NamedTuple

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone
from django_celery_beat.schedulers import DatabaseScheduler

from casino.celery import app as celery_app
from games.joker_draw import rtp_lab
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.joker_draw.tasks import dispatch_rtp_run
from games.models import Round, RoundEvent, Seat, Table
from games.peer.hands import HouseEvent
from games.peer.services import next_hand_at
from games.stud.tasks import STUD
from games.tables import services as table_services
from games.tables.limits import MIN_TIMEOUT_SECONDS
from payouts.models import Paytable, RtpRunStatus

# The module, not its names: a function named test_... imported here would be collected.
from tests.fixtures import workers
from tests.fixtures.tables import joker_draw_limits, make_stud_table

# The tasks that keep the tables going: each is due at a moment and must run then.
GAME_TASKS = (
    "games.tasks.fold_overdue_boxes",
    "games.tasks.expire_joker_draw_decision",
    "games.tasks.catch_up_stud_table",
    "games.tasks.catch_up_drawmaha_table",
    "games.tasks.sweep_overdue_rounds",
)
LAB_TASKS = ("payouts.tasks.compute_rtp_chunk", "games.tasks.compute_best_play_chunk")
BEAT_ON_GAME = ("fold-overdue-boxes", "sweep-overdue-rounds")


def registered_tasks() -> set[str]:
    """The project's tasks, as a worker registers them on start (not Celery's own)."""
    celery_app.loader.import_default_modules()
    return {name for name in celery_app.tasks if not name.startswith("celery.")}


def queue_of(task: str, options: dict[str, object] | None = None) -> str:
    """The queue a message of ``task`` sent with ``options`` goes to, as Celery routes it."""
    return str(celery_app.amqp.router.route(dict(options or {}), task)["queue"].name)


def test_every_task_of_the_project_names_its_queue():
    routes = settings.CELERY_TASK_ROUTES
    assert sorted(registered_tasks() - set(routes)) == [], "a task without a route"
    assert sorted(set(routes) - registered_tasks()) == [], "a route of no task"
    declared = {queue.name for queue in settings.CELERY_TASK_QUEUES}
    for task in routes:
        assert queue_of(task) in declared - {settings.CELERY_TASK_DEFAULT_QUEUE}, task


@pytest.mark.parametrize("task", GAME_TASKS)
def test_the_games_timers_and_catch_ups_go_to_the_game_queue(task):
    assert queue_of(task) == "game"


@pytest.mark.parametrize("task", LAB_TASKS)
def test_the_laboratory_goes_to_the_lab_queue(task):
    assert queue_of(task) == "lab"


@pytest.mark.django_db(transaction=True)  # beat's scheduler commits and closes connections
def test_beat_sends_each_entry_to_its_tasks_queue():
    """The beat schedule as Celery beat keeps it in the database (settings' entries and
    Celery's own): no entry overrides its task's route, and the game's ticks go to `game`."""
    schedule = DatabaseScheduler(app=celery_app).schedule
    assert set(settings.CELERY_BEAT_SCHEDULE) <= set(schedule)
    for name, entry in schedule.items():
        assert queue_of(entry.task, entry.options) == queue_of(entry.task), name
        assert entry.task.startswith("celery.") or entry.task in settings.CELERY_TASK_ROUTES
    assert {queue_of(schedule[name].task, schedule[name].options) for name in BEAT_ON_GAME} == {
        "game"
    }


# Under a laboratory run -----------------------------------------------------------------------

# The pit boss's run that once held a fold 172 s: at 500,000 rounds a chunk, minutes of work for
# two processes, far more than the test lasts.
LAB_ROUNDS = 200_000_000
ON_TIME = timedelta(seconds=2)
# The pause before a stud hand is dealt, here and on the workers (which deal it).
PAUSE_SECONDS = 1
# How long past the last deadline the test waits for what is late before it fails.
PATIENCE = timedelta(seconds=6)


class MakeRun(NamedTuple):
    game: workers.WorkerProcess
    lab: workers.WorkerProcess
    beat: workers.WorkerProcess

    def output(self) -> str:
        """The end of each one's log, for a failure's message."""
        return "\n".join(
            f"== {name}:\n" + "\n".join(process.output().splitlines()[-30:])
            for name, process in self._asdict().items()
        )


@pytest.fixture
def make_run(transactional_db, tmp_path: Path) -> Iterator[MakeRun]:
    """The workers of `game` and `lab` and Celery beat, as `make run` starts them, on this
    test's database and private broker; still starting while the test sets its tables up."""
    with workers.private_broker():
        env = workers.worker_env(STUD_HAND_PAUSE_SECONDS=str(PAUSE_SECONDS))
        started = MakeRun(
            workers.start_queue_worker("game", tmp_path / "game.log", env),
            workers.start_queue_worker("lab", tmp_path / "lab.log", env),
            workers.start_beat(tmp_path / "beat.log", env),
        )
        try:
            yield started
        finally:
            for process in started:
                workers.stop_worker(process)


def wait_for(
    what: str, condition: Callable[[], object], until: datetime, processes: MakeRun
) -> None:
    while not condition():
        assert timezone.now() < until, f"waited in vain for {what}:\n{processes.output()}"
        time.sleep(0.1)


def received(worker: workers.WorkerProcess, task: str) -> int:
    """How many messages of ``task`` the worker has taken (its log at INFO)."""
    return sum(
        f"Task {task}[" in line and line.endswith("received")
        for line in worker.output().splitlines()
    )


def event_at(round_id: int, kind: str) -> datetime | None:
    event = RoundEvent.objects.filter(round_id=round_id, kind=kind).order_by("sequence").first()
    return event.created_at if event else None


def short_decisions(table: Table, paytables: dict[str, Paytable], pit: User, pit2: User) -> None:
    limits = table_services.propose_limits(
        table=table,
        values=joker_draw_limits(paytables, decision_timeout_seconds=MIN_TIMEOUT_SECONDS),
        reason="short decisions",
        by=pit,
    )
    table_services.approve_limits(limits, by=pit2)


@pytest.mark.slow  # the workers' start, and a stud player's shortest action time: 10 s or so
def test_a_laboratory_run_holds_up_no_fold_and_no_deal(
    make_run, default_paytables, joker_table, funded_player, players, pit, pit2, settings
):
    ann, ben, _ = players
    short_decisions(joker_table, default_paytables, pit, pit2)
    stud_table = make_stud_table(pit, pit2, action_timeout_seconds=MIN_TIMEOUT_SECONDS)
    settings.STUD_HAND_PAUSE_SECONDS = PAUSE_SECONDS
    ready_by = timezone.now() + timedelta(seconds=workers.READY_SECONDS)

    # The lab worker busy with a run far longer than the test, the game worker and beat started.
    run = rtp_lab.start_run(
        default_paytables["bet"].versions.first(),
        rounds=LAB_ROUNDS,
        strategy_name=rtp_lab.REFERENCE,
        seed=1,
        dispatch=dispatch_rtp_run,
    )
    workers.wait_until_ready(make_run.game)
    wait_for("beat", lambda: "Sending due task" in make_run.beat.output(), ready_by, make_run)
    wait_for(
        "the lab worker to take the run's chunks",
        lambda: received(make_run.lab, "payouts.tasks.compute_rtp_chunk") >= 2,
        ready_by,
        make_run,
    )

    # A joker draw round whose decision time runs out, and a stud hand due a second after the
    # second player sits down, whose first player to act never does.
    joker_round = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, Decimal("0.60"))]
    ).round
    fold_due = joker_round.decision_deadline
    STUD.join(player=ann, table=stud_table, seat=1, buy_in=Decimal("60.00"))
    STUD.join(player=ben, table=stud_table, seat=2, buy_in=Decimal("60.00"))
    deal_due = next_hand_at(stud_table, list(Seat.objects.filter(table=stud_table)), PAUSE_SECONDS)
    give_up = deal_due + timedelta(seconds=MIN_TIMEOUT_SECONDS) + PATIENCE

    hands = Round.objects.filter(table=stud_table)
    wait_for("the stud hand", hands.exists, give_up, make_run)
    hand = hands.get()
    act_due = hand.decision_deadline
    wait_for("the fold", lambda: event_at(joker_round.pk, "fold"), give_up, make_run)
    wait_for("the stud timeout", lambda: event_at(hand.pk, HouseEvent.TIMED_OUT), give_up, make_run)

    folded, dealt, acted = (
        event_at(joker_round.pk, "fold"),
        event_at(hand.pk, HouseEvent.HAND_OPENED),
        event_at(hand.pk, HouseEvent.TIMED_OUT),
    )
    assert fold_due <= folded <= fold_due + ON_TIME, (fold_due, folded)
    assert deal_due <= dealt <= deal_due + ON_TIME, (deal_due, dealt)
    assert act_due <= acted <= act_due + ON_TIME, (act_due, acted)
    joker_round.refresh_from_db()
    assert joker_round.status == "settled"
    # All the while the run went on on the lab worker, and none of it on the game worker.
    run.refresh_from_db()
    assert run.status == RtpRunStatus.RUNNING
    assert received(make_run.game, "payouts.tasks.compute_rtp_chunk") == 0
