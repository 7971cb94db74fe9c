#!/usr/bin/env bash
# The .deb as a user gets it: builds it with CPack from a built tree
# ($1), installs it with dpkg -i, checks its files and its systemd unit
# (systemd-analyze verify), starts the installed binary with the installed
# configuration against a fresh database of the test server
# (CHOPAR_TEST_DATABASE_URL), calls it, stops it with SIGTERM, and purges the
# package. Exit 77 (skipped): not root, no dpkg, no test server, or a chopar
# package this test did not install is present.
set -euo pipefail
build=$(cd "$1" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "skipped: dpkg -i needs root"; exit 77; }
command -v dpkg >/dev/null || { echo "skipped: no dpkg"; exit 77; }
[ -n "${CHOPAR_TEST_DATABASE_URL:-}" ] || { echo "skipped: CHOPAR_TEST_DATABASE_URL is not set"; exit 77; }
if dpkg-query -W -f='${Status}' chopar 2>/dev/null | grep -q "install ok installed"; then
  echo "skipped: a chopar package is already installed"
  exit 77
fi

work=$(mktemp -d /tmp/chopar-deb.XXXXXX)
database="chopar_deb_$$"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null || true
  dpkg --purge chopar >/dev/null 2>&1 || true
  psql -q "$CHOPAR_TEST_DATABASE_URL" -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAILED: $*"; [ -f "$work/chopar.log" ] && cat "$work/chopar.log"; exit 1; }

echo "== cpack"
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" > "$work/cpack.log" 2>&1) \
  || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/out/chopar_*.deb)
echo "built $(basename "$deb") ($(du -h "$deb" | cut -f1))"
contents=$(dpkg-deb --contents "$deb")
for path in ./usr/bin/chopar ./lib/systemd/system/chopar.service ./etc/chopar/chopar.toml \
            ./usr/share/doc/chopar/chopar.example.toml ./usr/share/doc/chopar/operations.md; do
  grep -q " $path\$" <<< "$contents" || fail "$path is not in the package"
done
dpkg-deb --field "$deb" Depends | grep -q libpq5 || fail "Depends lacks libpq5: $(dpkg-deb --field "$deb" Depends)"
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | grep -qx /etc/chopar/chopar.toml || fail "conffiles"

echo "== dpkg -i"
dpkg -i "$deb" > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
/usr/bin/chopar --version | grep -q "^chopar " || fail "chopar --version"
echo "== systemd-analyze verify"
verify=$(systemd-analyze verify /lib/systemd/system/chopar.service 2>&1) || fail "systemd-analyze: $verify"
[ -z "$verify" ] || fail "systemd-analyze: $verify"

echo "== the installed binary serves"
psql -q "$CHOPAR_TEST_DATABASE_URL" -c "CREATE DATABASE $database" >/dev/null
url=$(sed -E "s#(postgresql://[^/]*/)[^?]*#\1$database#" <<< "$CHOPAR_TEST_DATABASE_URL")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/var"
env CHOPAR_DATABASE_URL="$url" CHOPAR_SERVER_LISTEN="127.0.0.1:$port" \
    CHOPAR_SERVER_DATA_DIR="$work/var" CHOPAR_SERVER_API_KEY=deb-key \
    /usr/bin/chopar --config /etc/chopar/chopar.toml serve > "$work/chopar.log" 2>&1 &
server_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 120); do
  curl -fsS "$base/healthz" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || fail "the installed chopar exited"
  sleep 0.5
done
curl -fsS "$base/healthz" | grep -q '"ok"' || fail "/healthz"
curl -fsS -X PUT -H "Authorization: Bearer deb-key" -H "Content-Type: application/json" \
  -d '{"email": "deb@example.uz"}' "$base/v1/users/1" >/dev/null || fail "PUT /v1/users/1"
curl -fsS -X POST -H "Authorization: Bearer deb-key" -H "Content-Type: application/json" \
  -d '{"user_id": 1, "type": "package.installed", "title": "hello"}' "$base/v1/notifications" \
  | grep -q '"created":true' || fail "POST /v1/notifications"
# Read whole before matching: grep -q stops at the first match, and a
# writer cut off mid-page (curl's "Failed writing body") fails the pipe.
metrics=$(curl -fsS -H "Authorization: Bearer deb-key" "$base/metrics") || fail "/metrics"
grep -q '^chopar_notifications_created_total 1' <<<"$metrics" || fail "/metrics"
# The installed configuration logs JSON.
grep -q '^{"time":' "$work/chopar.log" || fail "the installed configuration should log JSON"
kill -TERM "$server_pid"
wait "$server_pid" || fail "chopar did not stop cleanly on SIGTERM"
server_pid=""

echo "== dpkg --purge"
dpkg --purge chopar > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg --purge"; }
[ ! -e /usr/bin/chopar ] || fail "/usr/bin/chopar is still there after purge"
[ ! -e /etc/chopar/chopar.toml ] || fail "/etc/chopar/chopar.toml is still there after purge"
echo "package install test passed"
