#!/usr/bin/env bash
# Runs a command with DATABASE_URL pointing at a Postgres server.
#
# If DATABASE_URL is already set, the command runs against it unchanged.
# Otherwise a throwaway server is started from the machine's own Postgres
# binaries with its data under .data/pg-<pid> (owned by the "postgres" user
# when run as root), the command runs, and the server is stopped and removed.
#
# Where no Postgres server binaries are installed: as root they are installed
# with apt-get (Debian/Ubuntu); otherwise the script stops and says what to
# install.
#
# WITH_POSTGRES_OPTS adds server options, e.g.
# "-c shared_preload_libraries=pg_stat_statements" to profile statements.
set -euo pipefail

if [ -n "${DATABASE_URL:-}" ]; then
  exec "$@"
fi

find_pg_bin() {
  local d
  if command -v pg_config >/dev/null 2>&1; then
    d=$(pg_config --bindir 2>/dev/null || true)
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  fi
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) /usr/local/pgsql/bin /usr/local/bin /usr/bin; do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  return 1
}

PGBIN=$(find_pg_bin || true)
if [ -z "$PGBIN" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "with-postgres: no Postgres server found; installing Debian's postgresql package" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq postgresql >&2
    PGBIN=$(find_pg_bin || true)
  fi
  if [ -z "$PGBIN" ]; then
    cat >&2 <<'MSG'
with-postgres: no PostgreSQL server binaries (initdb, pg_ctl) were found.
Install PostgreSQL 13 or newer, for example:
  Debian/Ubuntu:  sudo apt-get install postgresql
  Fedora:         sudo dnf install postgresql-server
  macOS:          brew install postgresql@16
or set DATABASE_URL to an existing server and run the command again.
MSG
    exit 1
  fi
fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$ROOT/.data"
DATA=$(mktemp -d "$ROOT/.data/pg-XXXXXX")
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000)))
LOG="$DATA/server.log"

as_pg() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

if [ "$(id -u)" = 0 ]; then
  if ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin postgres
  fi
  # The postgres user must be able to reach the data directory. When a parent
  # of the checkout is closed to other users (a clone under /root, a private
  # temp dir), keep the server's files in a private temp dir instead.
  chmod o+x "$ROOT/.data" 2>/dev/null || true
  if ! runuser -u postgres -- test -x "$DATA"; then
    rmdir "$DATA"
    DATA=$(mktemp -d /tmp/evidencefleet-pg-XXXXXX)
    chmod 711 "$DATA"
  fi
  chown postgres "$DATA"
  chmod 700 "$DATA"
  LOG="$DATA/server.log"
fi

cleanup() {
  as_pg "$PGBIN/pg_ctl" -D "$DATA/db" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

as_pg "$PGBIN/initdb" -D "$DATA/db" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >/dev/null 2>&1 \
  || as_pg "$PGBIN/initdb" -D "$DATA/db" -A trust -U postgres -E UTF8 >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$DATA/db" -l "$LOG" -w -t 60 \
  -o "-p $PORT -k $DATA -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c shared_buffers=256MB ${WITH_POSTGRES_OPTS:-}" \
  start >/dev/null

export DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"
# How to restart this server in immediate mode (a crash), for `make chaos`.
if [ "$(id -u)" = 0 ]; then
  export WITH_POSTGRES_RESTART="runuser -u postgres -- $PGBIN/pg_ctl -D $DATA/db -m immediate -w -t 60 restart >/dev/null"
else
  export WITH_POSTGRES_RESTART="$PGBIN/pg_ctl -D $DATA/db -m immediate -w -t 60 restart >/dev/null"
fi
echo "with-postgres: throwaway Postgres ($("$PGBIN/postgres" --version | awk '{print $3}')) on 127.0.0.1:$PORT, data in ${DATA#"$ROOT"/}" >&2
set +e
"$@"
rc=$?
set -e
exit $rc
