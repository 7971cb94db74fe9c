# The two commands of the README: `make run` and `make test`. Both install what
# they need first (Debian 12 packages via apt-get; a no-op once installed).
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build run test unit sanitize format clean bench bench-outbox fuzz slowhttp screenshots chaos history-conversion

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
# (docs/RELIABILITY.md). CHAOS_SEED replays a run.
CHAOS_SECONDS ?= 1800
chaos: build
	@CHOPAR_TEST_CHAOS_SECONDS=$(CHAOS_SECONDS) CHOPAR_TEST_CHAOS_SEED=$(CHAOS_SEED) \
	  CHOPAR_TEST_CHAOS_REPORT=$(BUILD_DIR)/chaos-report.md bash scripts/with-test-pg \
	  $(BUILD_DIR)/tests/faults/faults_pgtest --gtest_filter='ChaosLab.*'

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
# FUZZ_SECONDS each, FUZZ_JOBS at a time; new coverage is merged into
# fuzz/corpus/ (docs/RELIABILITY.md, "Fuzzing").
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_JOBS ?= $(JOBS)
fuzz: deps
	@cmake -S . -B $(FUZZ_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DCHOPAR_FUZZ=ON -DCHOPAR_SANITIZE='address;undefined' -DCHOPAR_BUILD_TESTS=OFF -DCHOPAR_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS) --target fuzz_targets
	@bash fuzz/run-all $(FUZZ_BUILD_DIR) $(FUZZ_SECONDS) $(FUZZ_JOBS)

# The PNGs of the bell and the console in README.md, taken by the browser
# tests (tests/browser) into docs/screenshots.
screenshots: build
	@CHOPAR_TEST_SCREENSHOTS_DIR=$(CURDIR)/docs/screenshots bash scripts/with-test-pg ctest --test-dir $(BUILD_DIR) --output-on-failure -R '^browser_'

bench: build
	@bash bench/run.sh

# The transactional outbox: the source document's scenario, relay throughput
# against a plain-libnats ceiling, commit→publish latency (docs/BENCHMARKS.md).
bench-outbox: build
	@bash bench/outbox.sh

# slowhttptest's slowloris and slow read against chopar while a normal client
# asks /healthz (docs/RELIABILITY.md, "Slow clients"); SLOW_SECONDS per
# phase, SLOW_CONNECTIONS slow connections.
SLOW_SECONDS ?= 60
SLOW_CONNECTIONS ?= 1000
slowhttp: build
	@bash scripts/with-test-pg bash bench/slow_clients.sh $(BUILD_DIR)/chopar $(SLOW_SECONDS) $(SLOW_CONNECTIONS)

format:
	@find src tests bench -name '*.[ch]pp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) build-asan $(FUZZ_BUILD_DIR)
