# The two commands of the README: `make run` and `make test`. Both install what
# they need first (Debian 12 packages via apt-get; a no-op once installed).
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build run test unit sanitize format clean bench screenshots chaos

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

# Only the tests that need no database.
unit: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) -L '^test$$'

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize:
	@$(MAKE) test BUILD_DIR=build-asan CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=Debug -DCHOPAR_SANITIZE='address;undefined' -DCHOPAR_BUILD_BENCH=OFF"

# The PNGs of the bell and the console in README.md, taken by the browser
# tests (tests/browser) into docs/screenshots.
screenshots: build
	@CHOPAR_TEST_SCREENSHOTS_DIR=$(CURDIR)/docs/screenshots bash scripts/with-test-pg ctest --test-dir $(BUILD_DIR) --output-on-failure -R '^browser_'

bench: build
	@bash bench/run.sh

format:
	@find src tests bench -name '*.[ch]pp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) build-asan
