#!/usr/bin/env bash
# Checks a systemd unit file with systemd-analyze verify, its ExecStart
# pointed at a given binary. Any complaint fails. Exit 77: no systemd-analyze.
set -euo pipefail
unit=$1
binary=$2
command -v systemd-analyze >/dev/null || { echo "systemd-analyze is not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s#/usr/bin/chopar#$binary#" "$unit" > "$work/$(basename "$unit")"
output=$(systemd-analyze verify "$work/$(basename "$unit")" 2>&1) || { echo "$output"; exit 1; }
if [ -n "$output" ]; then
  echo "$output"
  exit 1
fi
echo "verified: $unit"
