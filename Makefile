# The two commands of the README: `make run` and `make test`. Both install what
# they need first (Debian 12 packages via apt-get; a no-op once installed).
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build run test unit sanitize format clean clients bench bench-guard bench-statements bench-outbox bench-user-import bench-history bench-digest bench-workflow fuzz fuzz-build fuzz-seeds fuzz-api slowhttp screenshots chaos ha-lab history-conversion

all: build

deps:
	@bash scripts/install-deps

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# Serve on 127.0.0.1:8080 with the embedded database in ./var.
run: build
	$(BUILD_DIR)/chopar serve

# Every test: pure unit tests and PostgreSQL tests against a throwaway cluster.
test: build
	@bash scripts/with-test-pg ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) --timeout 600

# The chaos lab for longer than the short run in `make test`: CHAOS_SECONDS of
# faults every few seconds (kill -9 of chopar processes, PostgreSQL crashes,
# misbehaving providers) against three chopar processes, then the checks;
# the figures are printed and written to $(BUILD_DIR)/chaos-report.md
# (docs/RELIABILITY.md). CHAOS_SEED replays a run. With
# CHOPAR_TEST_CHAOS_SLOW_RECEIVER=1 in the environment the outbox webhook is
# a modest receiver (every answer 1-3 s late, listen backlog 16), which the
# relays must slow down to without repeats; off by default and in `make test`.
CHAOS_SECONDS ?= 1800
chaos: build
	@CHOPAR_TEST_CHAOS_SECONDS=$(CHAOS_SECONDS) CHOPAR_TEST_CHAOS_SEED=$(CHAOS_SEED) \
	  CHOPAR_TEST_CHAOS_REPORT=$(BUILD_DIR)/chaos-report.md bash scripts/with-test-pg \
	  $(BUILD_DIR)/tests/faults/faults_pgtest --gtest_filter='ChaosLab.*'

# The chaos lab on a three-node pg_auto_failover cluster (tests/ha/cluster.sh:
# a monitor, a primary and a synchronous secondary on 127.0.0.1, brought up
# in a temporary folder and torn down whatever happens): HA_SECONDS of the
# lab's workload (notifications, schedules, broadcasts, the outbox relay) and
# faults, with a failover of the primary every HA_FAILOVER_SECONDS — a
# planned switchover and a kill -9 of its postmaster in turn — in place of
# PostgreSQL crashes. Prints the checks and each failover's recovery time and
# writes them to $(BUILD_DIR)/ha-report.md (docs/RELIABILITY.md, "Failover of
# the PostgreSQL primary"). HA_SEED replays a run's fault draws;
# HA_LEASE_SECONDS sets chopar's delivery lease (the lab's 10 s by default).
HA_SECONDS ?= 600
HA_FAILOVER_SECONDS ?= 80
ha-lab: build
	@HA_SECONDS=$(HA_SECONDS) HA_FAILOVER_SECONDS=$(HA_FAILOVER_SECONDS) HA_SEED=$(HA_SEED) \
	  HA_LEASE_SECONDS=$(HA_LEASE_SECONDS) bash tests/faults/ha_lab.sh $(BUILD_DIR)

# Migration 0017 converting a database of CONVERSION_ROWS notifications, each
# with a delivery and a sink message, while a writer keeps writing; prints how
# long it took and the writer's longest round trip (docs/operations.md,
# "Partitioned history"). `make test` runs the same test with 20000 rows.
CONVERSION_ROWS ?= 1000000
history-conversion: build
	@CHOPAR_TEST_CONVERSION_ROWS=$(CONVERSION_ROWS) bash scripts/with-test-pg \
	  $(BUILD_DIR)/src/retention/retention_pgtest --gtest_filter='HistoryConversion.*'

# Only the tests that need no database.
unit: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) -L '^test$$'

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize:
	@$(MAKE) test BUILD_DIR=build-asan CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=Debug -DCHOPAR_SANITIZE='address;undefined' -DCHOPAR_BUILD_BENCH=OFF"

# Every libFuzzer target under ASan + UBSan with full coverage (clang), for
# FUZZ_SECONDS each, FUZZ_JOBS at a time, from the committed seeds
# (fuzz/corpus/) and the corpus earlier runs grew in
# $(FUZZ_BUILD_DIR)/fuzz/work/corpus/ (outside git). `make fuzz-seeds` then
# rewrites the seeds as the smallest set covering both (commit it)
# (docs/RELIABILITY.md, "Fuzzing").
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_JOBS ?= $(JOBS)
fuzz: fuzz-build
	@bash fuzz/run-all $(FUZZ_BUILD_DIR) $(FUZZ_SECONDS) $(FUZZ_JOBS)

fuzz-build: deps
	@cmake -S . -B $(FUZZ_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DCHOPAR_FUZZ=ON -DCHOPAR_SANITIZE='address;undefined' -DCHOPAR_BUILD_TESTS=OFF -DCHOPAR_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS) --target fuzz_targets

fuzz-seeds: fuzz-build
	@bash fuzz/minimize-seeds $(FUZZ_BUILD_DIR)

# Requests generated from docs/openapi.yaml's schemas, valid and invalid,
# against a chopar on the test PostgreSQL for FUZZ_API_SECONDS; fails on a
# 5xx or an answer the description does not document (tests/openapi/
# fuzz_api.mjs; `make test` runs it for 40 s). The seed is printed;
# FUZZ_API_SEED replays it.
FUZZ_API_SECONDS ?= 600
fuzz-api: build
	@cd tests/openapi && npm ci --no-audit --no-fund --loglevel=error
	@CHOPAR_TEST_BINARY=$(CURDIR)/$(BUILD_DIR)/chopar CHOPAR_FUZZ_SECONDS=$(FUZZ_API_SECONDS) \
	  CHOPAR_FUZZ_SEED=$(FUZZ_API_SEED) bash scripts/with-test-pg node tests/openapi/fuzz_api.mjs

# The PNGs of the bell, the console and the API reference in README.md, taken
# by the browser tests (tests/browser) into docs/screenshots.
screenshots: build
	@CHOPAR_TEST_SCREENSHOTS_DIR=$(CURDIR)/docs/screenshots bash scripts/with-test-pg ctest --test-dir $(BUILD_DIR) --output-on-failure -R '^browser_'

bench: build
	@bash bench/run.sh

# The notify benchmark of this build against BASE (an earlier commit, built
# once in a worktree), interleaved, then the feature paths (templated, dedup
# keys, events on) as ratios of the plain path (docs/BENCHMARKS.md "Holding
# the line"). PAIRS (default 3) pairs; ROUNDS (default 3) feature rounds.
bench-guard: build
	@SKIP_BUILD=1 bash bench/guard.sh

# Where PostgreSQL's time goes on the notify path: one run under
# pg_stat_statements, a table per statement for chopar and for the raw-SQL
# ceiling (docs/BENCHMARKS.md "Where PostgreSQL's time goes").
bench-statements: build
	@SKIP_BUILD=1 bash bench/statements.sh

# The transactional outbox: the source document's scenario, relay throughput
# against a plain-libnats ceiling, commit→publish latency (docs/BENCHMARKS.md).
bench-outbox: build
	@bash bench/outbox.sh

# IMPORT_USERS (default 1,000,000) users imported by `chopar users import`
# against a raw COPY of the same rows, IMPORT_ROUNDS (3) times interleaved;
# checks that both wrote the same rows (docs/BENCHMARKS.md "Bulk user import").
IMPORT_USERS ?= 1000000
IMPORT_ROUNDS ?= 3
bench-user-import: build
	@bash scripts/with-test-pg bash bench/user_import_bench.sh --users $(IMPORT_USERS) \
	  --rounds $(IMPORT_ROUNDS) --chopar $(BUILD_DIR)/chopar

# notify_bench on a database without history against one with HISTORY_ROWS
# (default 20 million) delivered rows generated by SQL, interleaved, with the
# claim's time from pg_stat_statements (docs/BENCHMARKS.md).
bench-history: build
	@SKIP_BUILD=1 bash bench/history.sh

# notify_bench with a three-step workflow on every notification (email; a 1 s
# delay; telegram if unread) and on the plain path, interleaved, each against
# its own raw-SQL ceiling, WORKFLOW_ROUNDS (default 5) rounds; the medians of
# workflow / plain (docs/BENCHMARKS.md "Workflows with steps").
WORKFLOW_ROUNDS ?= 5
bench-workflow: build
	@SKIP_BUILD=1 ROUNDS=$(WORKFLOW_ROUNDS) VARIANTS="plain workflow" bash bench/feature_paths.sh \
	  --notifications 100000 --seconds 3

# USERS (default 10000) users × PER_USER (10) notifications of a digest type
# (one window of WINDOW seconds, default 60) against the same of a plain type,
# interleaved; checks the digest counts from the database (docs/BENCHMARKS.md
# "Digests").
bench-digest: build
	@SKIP_BUILD=1 bash bench/digest.sh

# slowhttptest's slowloris and slow read against chopar while a normal client
# asks /healthz (docs/RELIABILITY.md, "Slow clients"); SLOW_SECONDS per
# phase, SLOW_CONNECTIONS slow connections.
SLOW_SECONDS ?= 60
SLOW_CONNECTIONS ?= 1000
slowhttp: build
	@bash scripts/with-test-pg bash bench/slow_clients.sh $(BUILD_DIR)/chopar $(SLOW_SECONDS) $(SLOW_CONNECTIONS)

# clients/typescript/src/schema.ts from docs/openapi.yaml (openapi-typescript,
# the version of clients/typescript/package-lock.json); commit the result.
clients: deps
	@cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error && npm run --silent generate

format:
	@find src tests bench -name '*.[ch]pp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) build-asan $(FUZZ_BUILD_DIR)
