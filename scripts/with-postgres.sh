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
#
# WITH_POSTGRES_KEEP=NAME keeps the server's data instead, in .data/NAME (as
# root, when the postgres user cannot reach the checkout, in a directory
# under /var/tmp that .data/NAME links to): the server is stopped when the
# command ends and started again on the same data by the next run with the
# same NAME. A run while that server is up (another shell on it) uses it as
# it is and leaves it running. WITH_POSTGRES_NEW=1 deletes the kept data
# first and starts anew. `make run` keeps the demo's database this way
# (NAME demo) and `make explore` reopens it.
#
# The command sees WITH_POSTGRES_DATA, the server's data directory, and
# WITH_POSTGRES_KEPT=1 when it is kept.
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
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000)))

as_pg() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin postgres
fi

# A new cluster in $1/db, and a server on it: fast and unsafe in a machine
# crash (no fsync), as befits a scratch server.
init_cluster() {
  as_pg "$PGBIN/initdb" -D "$1/db" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >/dev/null 2>&1 \
    || as_pg "$PGBIN/initdb" -D "$1/db" -A trust -U postgres -E UTF8 >/dev/null
}
start_server() {
  as_pg "$PGBIN/pg_ctl" -D "$1/db" -l "$1/server.log" -w -t 60 \
    -o "-p $PORT -k $1 -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c shared_buffers=256MB ${WITH_POSTGRES_OPTS:-}" \
    start >/dev/null
}

if [ -n "${WITH_POSTGRES_KEEP:-}" ]; then
  case $WITH_POSTGRES_KEEP in
    *[!A-Za-z0-9_-]*) echo "with-postgres: WITH_POSTGRES_KEEP=$WITH_POSTGRES_KEEP: want a plain name (letters, digits, - and _)" >&2; exit 2 ;;
  esac
  LINK="$ROOT/.data/$WITH_POSTGRES_KEEP"
  if [ -L "$LINK" ]; then
    DATA=$(readlink "$LINK")
  elif [ -e "$LINK" ] || [ "$(id -u)" != 0 ]; then
    DATA=$LINK
  else
    # As root the server runs as postgres, which must reach the data.
    chmod o+x "$ROOT/.data" 2>/dev/null || true
    if runuser -u postgres -- test -x "$ROOT/.data"; then
      DATA=$LINK
    else
      DATA=/var/tmp/evidencefleet-$WITH_POSTGRES_KEEP-$(printf %s "$ROOT" | cksum | cut -d' ' -f1)
    fi
  fi
  if [ "${WITH_POSTGRES_NEW:-}" = 1 ] && [ -e "$DATA" ]; then
    as_pg "$PGBIN/pg_ctl" -D "$DATA/db" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$DATA"
  fi
  if [ ! -e "$DATA" ]; then
    mkdir -p "$DATA"
    chmod 700 "$DATA"
    if [ "$(id -u)" = 0 ]; then chown postgres "$DATA"; fi
    if [ "$DATA" != "$LINK" ]; then ln -sfn "$DATA" "$LINK"; fi
  fi
  SHARED=
  if as_pg "$PGBIN/pg_ctl" -D "$DATA/db" status >/dev/null 2>&1; then
    # Up already (another shell on it): use it as it is, leave it running.
    SHARED=1
    PORT=$(sed -n 4p "$DATA/db/postmaster.pid")
  else
    if [ ! -e "$DATA/db/PG_VERSION" ]; then init_cluster "$DATA"; fi
    if ! start_server "$DATA"; then
      echo "with-postgres: the kept server in $DATA did not start (its log: $DATA/server.log); WITH_POSTGRES_NEW=1 starts anew" >&2
      exit 1
    fi
  fi
  stop_kept() {
    if [ -z "$SHARED" ]; then
      as_pg "$PGBIN/pg_ctl" -D "$DATA/db" -m fast -w -t 60 stop >/dev/null 2>&1 || true
    fi
  }
  trap stop_kept EXIT
  trap 'exit 130' INT TERM
  export DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"
  export WITH_POSTGRES_DATA="$DATA" WITH_POSTGRES_KEPT=1
  echo "with-postgres: Postgres ($("$PGBIN/postgres" --version | awk '{print $3}')) on 127.0.0.1:$PORT, data kept in ${DATA#"$ROOT"/}${SHARED:+ (already running; left running)}" >&2
  set +e
  "$@"
  rc=$?
  set -e
  exit $rc
fi

DATA=$(mktemp -d "$ROOT/.data/pg-XXXXXX")

if [ "$(id -u)" = 0 ]; then
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
fi

cleanup() {
  as_pg "$PGBIN/pg_ctl" -D "$DATA/db" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

init_cluster "$DATA"
start_server "$DATA"

export DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable" WITH_POSTGRES_DATA="$DATA"
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
