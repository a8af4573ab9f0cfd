# The two commands a newcomer needs are `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install run test test-fast bench lint constraints

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $@

# The message catalogues are compiled on every install: .mo files are not kept in git.
install: $(VENV)/.installed
	$(BIN)/python scripts/messages.py compile >/dev/null

run: install
	scripts/run.sh

test: install
	scripts/test.sh

# The inner loop: the same checks, without the browser tests and the tests marked `slow`.
test-fast: install
	scripts/test.sh -m "not slow" --ignore=tests/browser

# Every benchmark runs and prints its table; the target fails if any missed its goal.
bench: install
	$(BIN)/python benchmarks/bench_hands.py; hands=$$?; \
	$(BIN)/python benchmarks/bench_joker_draw.py; rounds=$$?; \
	$(BIN)/python benchmarks/bench_rtp.py; rtp=$$?; \
	$(BIN)/python benchmarks/bench_best_play.py; best=$$?; \
	$(BIN)/python benchmarks/bench_pages.py; pages=$$?; \
	$(BIN)/python benchmarks/bench_metrics.py; metrics=$$?; \
	$(BIN)/python benchmarks/bench_health.py; health=$$?; \
	exit $$((hands || rounds || rtp || best || pages || metrics || health))

lint: install
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy . && $(BIN)/lint-imports

constraints:
	$(BIN)/pip freeze --exclude-editable | grep -v '^casino-back-office' \
	  | sed '1i # Exact versions the suite last passed with; `make constraints` regenerates this file.' > constraints.txt
