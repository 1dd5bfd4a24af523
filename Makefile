# Kafkette: every target works from a fresh clone (each depends on setup).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
BASE_STAMP := $(VENV)/.base-installed
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.demo-installed
BENCH_STAMP := $(VENV)/.bench-installed
# setuptools' BuildBackendWarning (a UserWarning) boxes a page about editable installs of packages
# mapped from other folders (ours: kafkette.client from client/) into every install's output; off
PIP := PYTHONWARNINGS=ignore::UserWarning $(BIN)/pip
# make bench BENCH_ARGS="--quick --only kafkette": a short run (see python -m tests.perf.bench --help)
BENCH_ARGS ?=
# make simulate SEEDS=100000 runs more seeds; make simulate SEED=n replays one (python -m tests.simulation.run --help)
SEEDS ?= 10000
SEED ?=
SIMULATE_ARGS ?=
# make chaos CHAOS_ARGS=--quick runs every scenario once (python -m tests.chaos.run --help)
# make chaos CHAOS_ARGS="--broker kafka --loopback --quick": the kill and pause scenarios against Apache Kafka (Java, Maven)
CHAOS_ARGS ?=
# make fuzz: the long fuzz run, FUZZ_EXAMPLES generated inputs per decoder (12 decoders) and
# FUZZ_FRAMES malformed frames to a live broker; a failure prints its seed (--hypothesis-seed=N replays);
# each test may take up to an hour (pytest-timeout 3600 s instead of the suite's 300 s)
FUZZ_EXAMPLES ?= 100000
CONFORMANCE_ARGS ?=
# make client-suites CLIENT_SUITES_ARGS="--mode quick": one mode; "--mode security": the SASL/SSL/ACL tests; "--mode acl": the kafka-acls.sh tests (python -m tests.client_suites.run --help)
CLIENT_SUITES_ARGS ?=
FUZZ_FRAMES ?= 3000

.PHONY: setup test unit cluster demo spark-demo bench simulate chaos fuzz kafka-peer conformance client-suites clean

setup: $(STAMP)

# The venv and the project with its runtime dependencies only: all that `make demo` and `make cluster` use.
$(BASE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e .
	touch $(BASE_STAMP)

$(STAMP): $(BASE_STAMP)
	$(PIP) install --quiet -e '.[dev,spark]'
	@# kcat (Debian) for tests/interop; installed as root when missing, else the tests that need it say so
	@command -v kcat >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		{ apt-get install -y -q kcat >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && \
		  apt-get install -y -q kcat >/dev/null 2>&1; }; }; } || echo "make setup: could not install kcat (apt-get install kcat)"
	touch $(STAMP)

# The unit tests (pure logic, no sockets or processes) run on both cores (pytest-xdist); the
# rest, whose real brokers and clients keep time, one at a time, listing its 40 slowest steps (what
# to look at when CI time grows).  Both run; either failing fails.
# Integration test modules whose timing a second pytest worker beside them disturbs: run one at a time.
SERIAL_INTEGRATION = tests/integration/test_log_compaction.py

test: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest -n 2 tests/unit; unit=$$?; \
	$(BIN)/pytest -n 2 --dist loadfile tests/integration $(SERIAL_INTEGRATION:%=--ignore=%); integration=$$?; \
	$(BIN)/pytest $(SERIAL_INTEGRATION); serial=$$?; \
	$(BIN)/pytest --ignore=tests/unit --ignore=tests/integration --durations=40; rest=$$?; \
		test $$unit -eq 0 -a $$integration -eq 0 -a $$serial -eq 0 -a $$rest -eq 0

unit: setup
	$(BIN)/pytest tests/unit

cluster: $(BASE_STAMP)
	$(BIN)/kafkette cluster start --brokers 3 --data-dir data/cluster

$(DEMO_STAMP): $(BASE_STAMP)
	$(PIP) install --quiet -e '.[demo]'
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/python -m kafkette.client.demo.flights

spark-demo: $(DEMO_STAMP) $(STAMP)
	$(BIN)/python -m kafkette.client.demo.flight_delays

# The peers' Python clients; when pip cannot install them the benchmark names what is missing
# and skips only those peers (it installs nats-server and redis-server itself, with apt-get as root).
$(BENCH_STAMP): $(STAMP)
	$(PIP) install --quiet -e '.[dev,spark,bench]' && touch $(BENCH_STAMP) \
		|| echo "make bench: could not install the bench extra (nats-py, redis[hiredis]); continuing"

bench: setup $(BENCH_STAMP)
	$(BIN)/python -m tests.perf.bench $(BENCH_ARGS)
	$(BIN)/python -m tests.perf.recovery_bench
	$(BIN)/python -m tests.perf.controller_failover_bench
	$(BIN)/python -m tests.perf.consumer_group_bench
	$(BIN)/python -m tests.perf.abuse_bench
	$(BIN)/python -m tests.perf.python_clients_bench
	$(BIN)/python -m tests.perf.footprint_bench
	$(BIN)/python -m tests.perf.kafka_tools_bench
	$(BIN)/python -m tests.perf.kafka_failover_bench
	$(BIN)/python -m tests.perf.spark_sources_bench
	$(BIN)/python -m tests.perf.first_hour_bench
	$(BIN)/python -m tests.perf.retry_log_bench
	$(BIN)/python -m tests.perf.security_bench

# make conformance CONFORMANCE_ARGS="--only topics/" (or "--suite authorization"): the scenarios against Apache Kafka and Kafkette,
# report in tests/conformance/results (python -m tests.conformance.run --help)
conformance: setup
	$(BIN)/python -m tests.conformance.run $(CONFORMANCE_ARGS)

client-suites: setup
	$(BIN)/python -m tests.client_suites.run $(CLIENT_SUITES_ARGS)

simulate: setup
	$(BIN)/python -m tests.simulation.run $(if $(SEED),--seed $(SEED),--seeds $(SEEDS)) $(SIMULATE_ARGS)

chaos: setup
	$(BIN)/python -m tests.chaos.run $(CHAOS_ARGS)

fuzz: setup
	KAFKETTE_FUZZ_PROFILE=long KAFKETTE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) KAFKETTE_LIVE_FUZZ_FRAMES=$(FUZZ_FRAMES) \
		$(BIN)/pytest tests/fuzz -p no:cacheprovider --hypothesis-show-statistics -s --timeout=3600

# Apache Kafka (tests/peers/kafka/pom.xml, resolved with Maven into ~/.cache/kafkette) on loopback
# until Ctrl-C: make kafka-peer KAFKA_PEER_ARGS="--nodes 3"
KAFKA_PEER_ARGS ?=
kafka-peer: setup
	$(BIN)/python -m tests.peers.kafka_peer $(KAFKA_PEER_ARGS)

clean:
	rm -rf $(VENV) data build *.egg-info
