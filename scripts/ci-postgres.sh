#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 for the adapter tests (packages/adapters) and prints, as its
# only line on stdout:
#
#   export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:PORT/paygate_test
#
# so CI can run `eval "$(bash scripts/ci-postgres.sh)"`. Everything else goes to stderr.
#
# - Installs Debian's postgresql-15 when /usr/lib/postgresql/15/bin is missing (needs root, no stdin).
# - initdb into a fresh temporary directory as user `postgres` (when run as root), trust
#   authentication, listening on 127.0.0.1 only, on a free port (retries on a port race).
# - Creates the database `paygate_test`. The server keeps running after this script exits; stop it
#   with the `pg_ctl ... stop` command logged on stderr (a CI container simply goes away).
set -euo pipefail

# fd 3 is the caller's stdout (the one line); everything else goes to stderr.
exec 3>&1 1>&2

log() { printf 'ci-postgres: %s\n' "$*" >&2; }

PGBIN=/usr/lib/postgresql/15/bin

if [ ! -x "$PGBIN/pg_ctl" ]; then
  log "installing postgresql-15"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update </dev/null
  apt-get install -y --no-install-recommends postgresql-15 </dev/null
fi

# Run a command as the `postgres` user when we are root (initdb refuses to run as root).
as_pg() {
  if [ "$(id -u)" = "0" ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

if [ "$(id -u)" = "0" ] && ! id postgres >/dev/null 2>&1; then
  log "creating user postgres"
  useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
fi

BASE=$(mktemp -d "${TMPDIR:-/tmp}/paygate-pg.XXXXXX")
chmod 0755 "$BASE"
DATA="$BASE/data"
mkdir -p "$DATA"
if [ "$(id -u)" = "0" ]; then chown -R postgres: "$BASE"; fi
chmod 0700 "$DATA"

log "initdb into $DATA"
as_pg "$PGBIN/initdb" --pgdata="$DATA" --username=postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 3>&- >&2

# A port nobody answers on, above the OS's ephemeral range (32768–60999) and the tests' own (15000–32000), so
# no port-0 bind takes it meanwhile; the start below retries with another one if we lose a race.
free_port() {
  local port
  while :; do
    port=$(( 61000 + (RANDOM * 32768 + RANDOM) % 4000 ))
    if ! (exec 5<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
}

PORT=""
for attempt in 1 2 3 4 5; do
  candidate=$(free_port)
  log "starting PostgreSQL on 127.0.0.1:$candidate (attempt $attempt)"
  # 3>&- : the server must not inherit the caller's stdout pipe, or `$(...)` would never end.
  if as_pg "$PGBIN/pg_ctl" --pgdata="$DATA" --log="$BASE/postgres.log" --wait --timeout=60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$candidate -c unix_socket_directories='$BASE' -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start 3>&- >&2; then
    PORT=$candidate
    break
  fi
  tail -n 20 "$BASE/postgres.log" >&2 || true
done
if [ -z "$PORT" ]; then
  log "could not start PostgreSQL"
  exit 1
fi

as_pg "$PGBIN/psql" --host=127.0.0.1 --port="$PORT" --username=postgres --dbname=postgres \
  --no-psqlrc --quiet --set=ON_ERROR_STOP=1 --command="CREATE DATABASE paygate_test" 3>&- >&2

log "ready; stop with: runuser -u postgres -- $PGBIN/pg_ctl --pgdata=$DATA stop"
printf 'export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:%s/paygate_test\n' "$PORT" >&3
