"""The joker draw's Celery tasks keep the names they were queued under before they moved with
the game, so tasks queued before an upgrade still find them."""

from __future__ import annotations

import pytest

from casino.celery import app as celery_app
from games.joker_draw import tasks


@pytest.mark.parametrize(
    ("name", "task"),
    [
        ("games.tasks.expire_joker_draw_decision", tasks.expire_joker_draw_decision),
        ("games.tasks.fold_overdue_boxes", tasks.fold_overdue_boxes),
        ("games.tasks.observe_rtp", tasks.observe_rtp),
        ("games.tasks.assess_box_play", tasks.assess_box_play),
        ("payouts.tasks.compute_rtp_chunk", tasks.compute_rtp_chunk),
    ],
)
def test_a_moved_task_answers_to_its_old_name(name, task):
    celery_app.loader.import_default_modules()  # what a worker registers on start
    assert celery_app.tasks[name].run is task.run
