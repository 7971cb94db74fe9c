# Sourced by the scripts that run interleaved variants under one throwaway
# PostgreSQL (bench/history.sh, bench/prepared.sh, bench/notify_versions.sh,
# bench/digest.sh): their shared steps.

# Outside a throwaway PostgreSQL: builds chopar and notify_bench (unless
# SKIP_BUILD=1) and runs the calling script again under scripts/with-test-pg
# with pg_stat_statements loaded. Inside one: returns.
rerun_under_test_pg_with_statements() {
  [ -z "${CHOPAR_TEST_DATABASE_URL:-}" ] || return 0
  if [ "${SKIP_BUILD:-0}" != 1 ]; then
    make configure BUILD_DIR="$build_dir" >/dev/null
    cmake --build "$build_dir" --target chopar notify_bench -j "${JOBS:-$(nproc)}"
  fi
  export CHOPAR_TEST_PG_OPTIONS="${CHOPAR_TEST_PG_OPTIONS:-} -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.max=1000 -c pg_stat_statements.track_planning=on"
  exec bash scripts/with-test-pg bash "$0" "$@"
}

# A figure of one notify_bench log's summary: the number after "<label>" in
# its row, or its word $3 after the label ("0.49 / 4.52": the p99 is word 3).
figure() {
  awk -v label="$2" -v n="${3:-1}" '/^Summary/ { summary = 1 }
    summary && (at = index($0, label)) {
      split(substr($0, at + length(label)), words, " ")
      gsub(",", "", words[n]); print words[n]; exit }' "$1"
}
