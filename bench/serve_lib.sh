# Sourced by the scripts that drive `chopar serve` over HTTP themselves
# (bench/broadcast.sh, bench/digest.sh): starting it and calling its API.

# start_serve <database url> <folder> [NAME=value …]: starts
# `$build_dir/chopar serve` on a random loopback port with an API key, every
# channel a sink, the extra CHOPAR_* settings given, its log in
# <folder>/chopar.log; waits until /healthz answers (exits 1 with the log's
# tail when it does not within a minute). Sets `chopar` (its pid), `port`
# and `key`; a trap kills it when the script exits.
start_serve() {
  local url=$1 folder=$2
  shift 2
  port=$((20000 + RANDOM % 20000))
  key=bench-key
  env CHOPAR_DATABASE_URL="$url" CHOPAR_SERVER_API_KEY=$key CHOPAR_SERVER_LISTEN=127.0.0.1:$port \
    CHOPAR_SERVER_DATA_DIR="$folder/var" "$@" \
    "$build_dir/chopar" serve >"$folder/chopar.log" 2>&1 &
  chopar=$!
  trap 'kill $chopar 2>/dev/null || true' EXIT
  for _ in $(seq 600); do api -fo /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
  api -fo /dev/null "http://127.0.0.1:$port/healthz" || { tail -20 "$folder/chopar.log"; exit 1; }
}

# api [curl options] URL: curl with the key of start_serve and a JSON body type.
api() { curl -s -H "Authorization: Bearer $key" -H 'Content-Type: application/json' "$@"; }
