#!/usr/bin/env bash
# One of the two Celery workers, as `make run` starts them (and as tests/robustness/test_queues.py
# and the RTP benchmarks do): each takes its own queues (casino/settings.py, CELERY_TASK_ROUTES)
# with processes of its own, so that heavy work never delays the game.
#
#   scripts/worker.sh game   the timers, catch-ups, deals and settlement: GAME_WORKER_PROCESSES (2)
#   scripts/worker.sh lab    the RTP laboratory, best play, reports and any task without a route:
#                            LAB_WORKER_PROCESSES (2), at a lower CPU priority (nice 10), so the
#                            game's worker and the web server come first on a busy machine
#
# Further arguments go to `celery worker` (`--loglevel=INFO`, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
queue="${1:-}"
shift || true
case "$queue" in
  game)
    exec "$BIN/celery" -A casino worker --hostname=game@%h --queues=game \
      --concurrency="${GAME_WORKER_PROCESSES:-2}" "$@"
    ;;
  lab)
    exec nice -n 10 "$BIN/celery" -A casino worker --hostname=lab@%h --queues=lab,celery \
      --concurrency="${LAB_WORKER_PROCESSES:-2}" "$@"
    ;;
  *)
    echo "usage: $0 game|lab [celery worker options]" >&2
    exit 2
    ;;
esac
