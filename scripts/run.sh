#!/usr/bin/env bash
# Runs the whole product: PostgreSQL and Redis (embedded, data in .data/, unless DATABASE_URL /
# REDIS_URL name servers), migrations, demo data, the web server, the two Celery workers (the
# game's and the laboratory's: scripts/worker.sh) and Celery beat. Ctrl-C stops everything it
# started.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
export DEBUG="${DEBUG:-true}"
PORT="${PORT:-8000}"
DATA_DIR=.data

children=()
cleanup() {
  trap - EXIT INT TERM
  for pid in "${children[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${children[@]}"; do wait "$pid" 2>/dev/null || true; done
  "$BIN/python" scripts/services.py stop "$DATA_DIR"
}
trap cleanup EXIT INT TERM

eval "$("$BIN/python" scripts/services.py start "$DATA_DIR")"
export DATABASE_URL REDIS_URL

"$BIN/python" manage.py migrate --noinput
"$BIN/python" manage.py collectstatic --noinput --verbosity 0
"$BIN/python" manage.py seed_demo

# Metrics (GET /metrics): the workers, beat and the web server keep their series in files here
# and /metrics sums them (prometheus_client's multiprocess mode, casino/metrics.py). A previous
# run's files must go before the first of them starts.
export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-$PWD/$DATA_DIR/metrics}"
mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
find "$PROMETHEUS_MULTIPROC_DIR" -maxdepth 1 -name '*.db' -delete

scripts/worker.sh game --loglevel=INFO &
children+=($!)
scripts/worker.sh lab --loglevel=INFO &
children+=($!)
"$BIN/celery" -A casino beat --loglevel=INFO &
children+=($!)
PORT="$PORT" scripts/serve.sh &
children+=($!)

echo "Serving http://127.0.0.1:$PORT/ (admin at /admin/, API docs at /api/docs/). Ctrl-C stops."
# Any one of them dying stops the rest: a half-running product is worse than none.
wait -n
