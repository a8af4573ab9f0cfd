#!/usr/bin/env bash
# The web server, as `make run` starts it (and as the live-stream test starts it): Django under
# ASGI in uvicorn, WEB_WORKERS processes (2) on HOST:PORT (127.0.0.1:8000).
#
# The live tables' event streams are asynchronous views: an open stream waits in the worker's
# event loop and holds no thread, so hundreds of open pages leave the site answering. Every
# other view runs on a thread of its own per request. Under ASGI a kept-open database
# connection would belong to that thread, which ends with the request: each request closes its
# connection (DB_CONN_MAX_AGE=0).
#
# uvicorn must not take the client's address from X-Forwarded-For (it trusts 127.0.0.1 by
# default, and `make run` serves on 127.0.0.1): the application reads that header only from
# the NUM_PROXIES proxies configured (casino.http.throttling).
#
# The application logs one line per request itself, with its request id, user and duration
# (casino.http.request_log), so uvicorn's access log is off; with LOG_FORMAT=json uvicorn's
# own lines (its supervisor's: started, a worker died) are JSON too.
#
# Metrics (GET /metrics): each process keeps its series in files under PROMETHEUS_MULTIPROC_DIR
# and /metrics sums them (casino/metrics.py); the files of an earlier run must be gone before
# the first process starts. When the variable is set, whoever set it emptied the folder first
# (scripts/run.sh does, before the Celery worker and beat that share it: emptying it here would
# cut off theirs); on its own this script serves from a new, empty folder.
set -euo pipefail
cd "$(dirname "$0")/.."
export DB_CONN_MAX_AGE="${DB_CONN_MAX_AGE:-0}"
log_config=()
if [ "${LOG_FORMAT:-text}" = json ]; then log_config=(--log-config scripts/uvicorn_log.json); fi
if [ -z "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then
  PROMETHEUS_MULTIPROC_DIR="$(mktemp -d "${TMPDIR:-/tmp}/casino-metrics.XXXXXX")"
  export PROMETHEUS_MULTIPROC_DIR
fi
exec .venv/bin/uvicorn casino.asgi:application \
  --host "${HOST:-127.0.0.1}" --port "${PORT:-8000}" --workers "${WEB_WORKERS:-2}" \
  --no-proxy-headers --timeout-graceful-shutdown 5 --no-access-log "${log_config[@]}"
