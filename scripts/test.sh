#!/usr/bin/env bash
# Runs every check: lint, types, the engine's import boundary, and the whole test suite against
# real PostgreSQL and Redis started in a throwaway folder (or the servers named by DATABASE_URL /
# REDIS_URL). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin

scratch="$(mktemp -d)"
chmod 755 "$scratch"
template=""
cleanup() {
  if [ -n "$template" ]; then kill "$template" 2>/dev/null || true; wait "$template" || true; fi
  "$BIN/python" scripts/services.py stop "$scratch"
  rm -rf "$scratch"
}
trap cleanup EXIT

# The browser tests drive Debian's Chromium; Playwright never downloads a browser of its own.
if ! command -v chromium >/dev/null; then
  echo "== installing Chromium from Debian"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

eval "$("$BIN/python" scripts/services.py start "$scratch")"
export DATABASE_URL REDIS_URL
# The suite runs as production does: DEBUG off, static files collected and fingerprinted.
export DEBUG=false SECRET_KEY=test-only-secret-key ALLOWED_HOSTS=testserver,127.0.0.1,localhost
export STATIC_ROOT="$scratch/static"
"$BIN/python" manage.py collectstatic --noinput --verbosity 0
"$BIN/python" scripts/messages.py compile >/dev/null

# The test databases are copies of one migrated template (tests/fixtures/database.py): it is
# built on the second core while the linters run on the first.
"$BIN/python" -m tests.fixtures.database &
template=$!

echo "== ruff"; "$BIN/ruff" check . && "$BIN/ruff" format --check .
echo "== mypy"; "$BIN/mypy" .
echo "== import boundaries"; "$BIN/lint-imports"
wait "$template"
template=""
if [ $# -gt 0 ]; then
  echo "== pytest"; "$BIN/pytest" -n 2 "$@"
else
  # The browser tests run in a pytest session of their own: Playwright's sync API marks its
  # event loop as running on the thread that drives the browser, and the tests of our async
  # code (the live stream, async views) must not find it there.
  echo "== pytest"; "$BIN/pytest" -n 2 --ignore=tests/browser
  echo "== pytest: the browser tests"; "$BIN/pytest" -n 2 tests/browser
fi
