#!/usr/bin/env bash
# A three-node PostgreSQL cluster managed by pg_auto_failover on 127.0.0.1:
# a monitor and two data nodes (a primary and a synchronous secondary), all
# under one folder. The failover tests and `make ha-lab` run chopar on it.
#
#   cluster.sh up DIR            create and start everything under DIR; wait for a
#                                primary and a secondary in their goal states; print
#                                CHOPAR_HA_URL=, CHOPAR_HA_MONITOR_URL=, CHOPAR_HA_DIR=
#                                lines to eval
#   cluster.sh primary DIR       print the current primary's port
#   cluster.sh switchover DIR    planned switchover (pg_autoctl perform switchover);
#                                return when the new primary accepts writes; print
#                                the seconds it took
#   cluster.sh kill-primary DIR  kill -9 the primary's postmaster, its backends and its
#                                pg_autoctl keeper (a keeper alive would only restart
#                                Postgres in place); return when the other node accepts writes,
#                                print the seconds it took; the killed node is started
#                                again and rejoins as a secondary (see wait-healthy)
#   cluster.sh wait-healthy DIR  wait until the nodes are primary and secondary again,
#                                the secondary streaming and synchronous
#   cluster.sh down DIR          stop everything (kill -9: nothing in DIR is kept) and
#                                remove DIR; safe twice, and from a trap
#
# Replication is synchronous: with one secondary that takes part in the
# replication quorum (pg_auto_failover's default), the monitor has the
# primary set synchronous_standby_names = 'ANY 1 (pgautofailover_standby_N)',
# so a commit returns only once the secondary has its WAL; wait-healthy
# checks it. While the secondary is away the primary is in wait_primary with
# synchronous_standby_names emptied, so writes go on (pg_auto_failover's
# choice of availability over waiting for a standby that is not there).
#
# Timings: pg_auto_failover's defaults aim at real networks (health checks
# every 5 s, a node unhealthy after 20 s, a lost primary waited for 30 s:
# about 50 s of writes lost to a crash). Everything here is on loopback, so
# they are lowered (monitor_settings and keeper_settings below): health
# checks every second, a node unhealthy after 4 s, 8 s of demote timeout.
# The ordering that keeps the defaults safe is kept: a primary cut off from
# the monitor and its standby demotes itself (network_partition_timeout,
# 4 s) before the monitor gives up on it and promotes the standby
# (primary_demote_timeout, 8 s). Measured on a busy two-core machine: up
# 6-13 s, switchover 2-6 s, kill-primary 12.5-13.5 s, down under 1 s.
# Data nodes run with fsync=off: the faults here kill processes, never the
# machine, so the page cache survives them and durability is unchanged.
#
# PostgreSQL refuses to run as root: as root everything runs as the postgres
# account (DIR is made its, so its parent must be one that account can
# enter), otherwise as the current user. Authentication is trust, every
# server listens on 127.0.0.1 only, and the Unix sockets are in DIR/sock.
set -euo pipefail

die() {
  echo "cluster.sh: $*" >&2
  exit 1
}

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || die "usage: cluster.sh up|primary|switchover|kill-primary|wait-healthy|down DIR"
case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
dir=${dir%/}

bindir=$(pg_config --bindir 2>/dev/null || true)
[ -x "$bindir/pg_ctl" ] || bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)

as_db=()
[ "$(id -u)" -eq 0 ] && as_db=(runuser -u postgres --)

# The environment of every command run as the database account:
# pg_autoctl's state (its XDG folders) and the servers' Unix sockets
# (PGHOST: where pg_autoctl connects to its local server) under DIR, so
# clusters in different folders never meet; the servers' superuser is
# postgres whatever the account (PGUSER, and CHOPAR_HA_URL's user); no
# other PG* variable of the caller's steers pg_autoctl or psql elsewhere.
db_env=(env -u PGPORT -u PGDATABASE -u PGDATA -u PGSERVICE -u PGOPTIONS
  -u PGTARGETSESSIONATTRS -u PGSSLMODE PGHOST="$dir/sock" PGUSER=postgres
  HOME="$dir/xdg" XDG_CONFIG_HOME="$dir/xdg/config" XDG_DATA_HOME="$dir/xdg/data"
  XDG_RUNTIME_DIR="$dir/xdg/run" PATH="$bindir:$PATH" PG_CONFIG="$bindir/pg_config")

# Runs a command as the database account, in that environment.
db() { "${as_db[@]}" "${db_env[@]}" "$@"; }

now() { date +%s.%N; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f\n", b - a }'; }

load_env() {
  [ -f "$dir/cluster.env" ] || die "no cluster in $dir (run: cluster.sh up $dir)"
  # shellcheck disable=SC1091
  . "$dir/cluster.env"
}

monitor_url() { echo "postgresql://autoctl_node@127.0.0.1:$monitor_port/pg_auto_failover?sslmode=disable"; }

# One value from the monitor (empty when the monitor does not answer).
monitor_query() {
  db psql -X -q -A -t -v ON_ERROR_STOP=1 "$(monitor_url)&connect_timeout=2" -c "$1" 2>/dev/null || true
}

# Whether the data node on port $1 takes a write now, as chopar sees it: a
# connection with target_session_attrs=read-write (refused by a standby, and
# by a promoted node that pg_auto_failover still keeps read-only until the
# old primary is demoted), then a commit that needs a transaction id and
# waits for the synchronous standby when there is one.
accepts_writes() {
  [ "$(db timeout 5 psql -X -q -A -t \
    "postgresql://postgres@127.0.0.1:$1/chopar_ha?sslmode=disable&connect_timeout=2&target_session_attrs=read-write" \
    -c "select txid_current() > 0" 2>/dev/null)" = "t" ]
}

# Three consecutive ports free for listening on 127.0.0.1, from a random
# base so that parallel clusters rarely collide (PostgreSQL's start fails
# loudly if one still does). Sets first_port.
pick_ports() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 20000))
    if [ -z "$(ss -Hltn "( sport = :$p or sport = :$((p + 1)) or sport = :$((p + 2)) )" 2>/dev/null)" ]; then
      first_port=$p
      return 0
    fi
  done
  die "no free TCP ports found"
}

# Starts `pg_autoctl run` for one node in its own process group (setsid), so
# that down and kill-primary can signal the keeper and everything it started.
start_node() {
  local name=$1
  setsid "${as_db[@]}" "${db_env[@]}" pg_autoctl run --pgdata "$dir/$name" </dev/null \
    >>"$dir/$name.log" 2>&1 &
  echo $! >"$dir/$name.pgid"
}

postmaster_pid() { [ -f "$dir/$1/postmaster.pid" ] && head -1 "$dir/$1/postmaster.pid" || true; }

# Kills one node's keeper process group, its postmaster and the postmaster's
# children (each in a session of its own), at once (-9): what a crash of
# that machine would do to it.
kill_node() {
  local name=$1 pgid pm children="" shm=""
  pgid=$(cat "$dir/$name.pgid" 2>/dev/null || true)
  pm=$(postmaster_pid "$name")
  if [ -n "$pm" ]; then
    children=$(pgrep -P "$pm" 2>/dev/null || true)
    # Line 7 of postmaster.pid: the key and id of its System V segment.
    shm=$(sed -n 7p "$dir/$name/postmaster.pid" 2>/dev/null | awk '{ print $2 }')
  fi
  [ -n "$pgid" ] && kill -KILL -- "-$pgid" 2>/dev/null || true
  [ -n "$pm" ] && kill -KILL "$pm" 2>/dev/null || true
  # shellcheck disable=SC2086
  [ -n "$children" ] && kill -KILL $children 2>/dev/null || true
  # A postmaster killed with -9 leaves that (small) segment behind; removed
  # once its last process is gone. A restart of the node makes a new one.
  [ -n "$shm" ] && "${as_db[@]}" ipcrm -m "$shm" 2>/dev/null || true
  rm -f "$dir/$name.pgid"
}

# Processes that belong to the cluster in DIR: the keepers' process groups,
# the postmasters and their children, and the PostgreSQL programs whose
# command line names a path in DIR (a pg_basebackup or pg_rewind a keeper
# started). Only this cluster's, by construction.
cluster_pids() {
  local pids
  pids=$(cluster_pids_any | sort -u)
  [ -n "$pids" ] || return 0
  # Zombies are dead already (their reaper may be any process up the tree).
  # shellcheck disable=SC2046
  ps -o pid=,stat= -p $(tr '\n' ',' <<<"$pids" | sed 's/,$//') 2>/dev/null | awk '$2 !~ /^Z/ { print $1 }'
}

cluster_pids_any() {
  local f p
  for f in "$dir"/*.pgid; do
    [ -f "$f" ] || continue
    pgrep -g "$(cat "$f")" 2>/dev/null || true
  done
  for f in monitor node1 node2; do
    p=$(postmaster_pid "$f")
    [ -n "$p" ] && [ -d "/proc/$p" ] && { echo "$p"; pgrep -P "$p" 2>/dev/null || true; }
  done
  pgrep -f -- "^[^ ]*(pg_autoctl|postgres|pg_ctl|pg_basebackup|pg_rewind) .*$(sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$dir")/" \
    2>/dev/null || true
}

# Postgres settings for the data nodes and the monitor (postgresql.auto.conf
# is read last, and pg_autoctl's ALTER SYSTEM keeps what it does not own).
server_settings() {
  cat <<'EOF'
listen_addresses = '127.0.0.1'
shared_buffers = '128MB'
max_connections = 300
fsync = off
EOF
}

# initdb of a node's data directory before pg_autoctl takes it over, for
# what must hold from its first start: the superuser (postgres) and the
# Unix sockets in DIR (the default, /var/run/postgresql, is the postgres
# account's only).
init_pgdata() {
  local name=$1
  db "$bindir/initdb" -D "$dir/$name" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >>"$dir/$name.log" 2>&1 ||
    die "initdb of $name failed (see $dir/$name.log)"
  echo "unix_socket_directories = '$dir/sock'" | db tee -a "$dir/$name/postgresql.auto.conf" >/dev/null
}

# The monitor's failure detection (milliseconds), see the timings above.
monitor_settings() {
  cat <<'EOF'
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_max_retries = 1
pgautofailover.health_check_retry_delay = 500
pgautofailover.node_considered_unhealthy_timeout = 4000
pgautofailover.primary_demote_timeout = 8000
pgautofailover.startup_grace_period = 3000
EOF
}

# The keepers' timeouts (seconds), see the timings above.
keeper_settings() {
  local name=$1
  db pg_autoctl config set --pgdata "$dir/$name" timeout.network_partition_timeout 4 >/dev/null
  db pg_autoctl config set --pgdata "$dir/$name" timeout.prepare_promotion_catchup 10 >/dev/null
  db pg_autoctl config set --pgdata "$dir/$name" timeout.prepare_promotion_walreceiver 2 >/dev/null
  db pg_autoctl config set --pgdata "$dir/$name" timeout.postgresql_restart_failure_timeout 5 >/dev/null
}

# "name|reported|goal|port" per data node, from the monitor.
node_states() {
  monitor_query "select nodename || '|' || reportedstate || '|' || goalstate || '|' || nodeport
                   from pgautofailover.node where formationid = 'default' order by nodeid"
}

current_primary_port() {
  node_states | awk -F'|' '$2 == $3 && ($2 == "primary" || $2 == "wait_primary" || $2 == "single") { print $4 }'
}

port_of() { [ "$1" = node1 ] && echo "$node1_port" || echo "$node2_port"; }
name_of() { [ "$1" = "$node1_port" ] && echo node1 || echo node2; }

wait_healthy() {
  local deadline=$((SECONDS + ${1:-120})) states primary standby sync
  while [ $SECONDS -lt $deadline ]; do
    states=$(node_states)
    primary=$(awk -F'|' '$2 == "primary" && $3 == "primary" { print $4 }' <<<"$states")
    standby=$(awk -F'|' '$2 == "secondary" && $3 == "secondary" { print $4 }' <<<"$states")
    if [ -n "$primary" ] && [ -n "$standby" ]; then
      sync=$(db psql -X -q -A -t "postgresql://postgres@127.0.0.1:$primary/chopar_ha?sslmode=disable&connect_timeout=2" \
        -c "select count(*) from pg_stat_replication
             where state = 'streaming' and sync_state in ('sync', 'quorum')
               and current_setting('synchronous_standby_names') <> ''" 2>/dev/null || true)
      [ "$sync" = 1 ] && return 0
    fi
    sleep 0.3
  done
  die "the nodes did not reach primary and synchronous secondary in time: $(tr '\n' ' ' <<<"$states") (logs in $dir)"
}

# Waits until the node on port $1 takes writes; $2 is the wait in seconds.
wait_writable() {
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    accepts_writes "$1" && return 0
    sleep 0.1
  done
  return 1
}

cmd_up() {
  [ -e "$dir/cluster.env" ] && die "a cluster already lives in $dir"
  command -v pg_autoctl >/dev/null || die "pg_autoctl is not installed (Debian postgresql-15-auto-failover, scripts/install-deps)"
  # pg_autoctl keeps its pid files in XDG_RUNTIME_DIR only if it exists
  # (else in /tmp/pg_autoctl, shared by every account and cluster).
  mkdir -p "$dir/xdg/run" "$dir/sock"
  chmod 700 "$dir/xdg/run"
  [ "$(id -u)" -eq 0 ] && chown -R postgres: "$dir"
  local monitor_port node1_port node2_port first_port
  pick_ports
  monitor_port=$first_port
  node1_port=$((first_port + 1))
  node2_port=$((first_port + 2))
  printf 'monitor_port=%s\nnode1_port=%s\nnode2_port=%s\n' "$monitor_port" "$node1_port" "$node2_port" >"$dir/cluster.env"

  # Any failure from here on stops what was started; the logs stay in DIR
  # until down removes it.
  # shellcheck disable=SC2154
  trap 'status=$?; [ $status -eq 0 ] || stop_all; exit $status' EXIT

  init_pgdata monitor
  db pg_autoctl create monitor --pgdata "$dir/monitor" --pgport "$monitor_port" --hostname 127.0.0.1 \
    --auth trust --no-ssl --pgctl "$bindir/pg_ctl" >>"$dir/monitor.log" 2>&1 ||
    die "pg_autoctl create monitor failed (see $dir/monitor.log)"
  db pg_autoctl config set --pgdata "$dir/monitor" postgresql.listen_addresses 127.0.0.1 >/dev/null
  { server_settings; monitor_settings; } | db tee -a "$dir/monitor/postgresql.auto.conf" >/dev/null
  start_node monitor
  local deadline=$((SECONDS + 60))
  until [ -n "$(monitor_query 'select 1')" ]; do
    [ $SECONDS -lt $deadline ] || die "the monitor did not start (see $dir/monitor.log)"
    sleep 0.2
  done

  local name port
  for name in node1 node2; do
    port=$(port_of "$name")
    # node2 is cloned from node1 (pg_basebackup), settings included.
    [ "$name" = node1 ] && init_pgdata node1
    db pg_autoctl create postgres --pgdata "$dir/$name" --pgport "$port" --listen 127.0.0.1 \
      --hostname 127.0.0.1 --name "$name" --dbname chopar_ha --monitor "$(monitor_url)" \
      --auth trust --no-ssl --pgctl "$bindir/pg_ctl" >>"$dir/$name.log" 2>&1 ||
      die "pg_autoctl create postgres $name failed (see $dir/$name.log)"
    keeper_settings "$name"
    server_settings | db tee -a "$dir/$name/postgresql.auto.conf" >/dev/null
    start_node "$name"
    if [ "$name" = node1 ]; then
      # The second node clones the first: it must be up and writable.
      wait_writable "$port" 60 || die "node1 did not start (see $dir/node1.log)"
    fi
  done
  wait_healthy 180
  trap - EXIT

  local hosts=127.0.0.1:$node1_port,127.0.0.1:$node2_port
  echo "CHOPAR_HA_URL='postgresql://postgres@$hosts/chopar_ha?target_session_attrs=read-write&sslmode=disable&connect_timeout=5'"
  echo "CHOPAR_HA_MONITOR_URL='$(monitor_url)'"
  echo "CHOPAR_HA_DIR='$dir'"
}

# Waits (up to 30 s) for the monitor to name a primary: right after a fault
# the nodes may be between states.
cmd_primary() {
  load_env
  local port deadline=$((SECONDS + 30))
  until port=$(current_primary_port) && [ -n "$port" ]; do
    [ $SECONDS -lt $deadline ] || die "no primary now: $(node_states | tr '\n' ' ')"
    sleep 0.2
  done
  echo "$port"
}

cmd_switchover() {
  load_env
  local old new start
  old=$(current_primary_port)
  [ -n "$old" ] || die "no primary to switch over from: $(node_states | tr '\n' ' ')"
  start=$(now)
  db pg_autoctl perform switchover --pgdata "$dir/monitor" --wait 90 >>"$dir/switchover.log" 2>&1 ||
    die "pg_autoctl perform switchover failed (see $dir/switchover.log)"
  new=$([ "$old" = "$node1_port" ] && echo "$node2_port" || echo "$node1_port")
  wait_writable "$new" 60 || die "the new primary (port $new) does not take writes (see $dir/*.log)"
  seconds_since "$start"
}

cmd_kill_primary() {
  load_env
  local old new name start
  old=$(current_primary_port)
  [ -n "$old" ] || die "no primary to kill: $(node_states | tr '\n' ' ')"
  name=$(name_of "$old")
  new=$([ "$old" = "$node1_port" ] && echo "$node2_port" || echo "$node1_port")
  start=$(now)
  kill_node "$name"
  echo "$(date -u +%T) killed $name (port $old)" >>"$dir/kill-primary.log"
  wait_writable "$new" 90 || die "the other node (port $new) does not take writes after the kill (see $dir/*.log)"
  seconds_since "$start"
  # Its data directory was left mid-flight: pg_rewind (which the keeper runs
  # to make it the new secondary) first replays it in single-user mode, and
  # that fails once the keeper has written standby.signal ("standby mode is
  # not supported by single-user servers"), which sent it to a full
  # pg_basebackup of minutes. Replayed here first, still a primary's
  # directory with no way in (single-user, no TCP), it is shut down cleanly
  # and rewinds at once.
  db "$bindir/postgres" --single -F -D "$dir/$name" -c listen_addresses='' template1 \
    </dev/null >>"$dir/$name.log" 2>&1 ||
    echo "$(date -u +%T) crash recovery of $name failed; the keeper will try (see $dir/$name.log)" \
      >>"$dir/kill-primary.log"
  # The killed node comes back as what the monitor now makes of it: demoted,
  # then rewound and caught up as the secondary.
  start_node "$name"
}

stop_all() {
  [ -d "$dir" ] || return 0
  local name pids
  # At once (-9), not a clean shutdown: everything in DIR is thrown away,
  # and under load a clean stop of three servers and their keepers took
  # ten seconds and more.
  for name in node2 node1 monitor; do kill_node "$name"; done
  for _ in $(seq 1 100); do
    pids=$(cluster_pids)
    [ -z "$pids" ] && return 0
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    sleep 0.1
  done
  die "processes of the cluster in $dir did not stop: $(tr '\n' ' ' <<<"$pids")"
}

cmd_down() {
  [ -d "$dir" ] || return 0
  stop_all
  rm -rf "$dir"
}

case "$command" in
up) cmd_up ;;
primary) cmd_primary ;;
switchover) cmd_switchover ;;
kill-primary) cmd_kill_primary ;;
wait-healthy)
  load_env
  wait_healthy 120
  ;;
down) cmd_down ;;
*) die "unknown command $command (up|primary|switchover|kill-primary|wait-healthy|down)" ;;
esac
