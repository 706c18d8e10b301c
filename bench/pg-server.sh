#!/usr/bin/env bash
# A private PostgreSQL for the benchmarks, configured as docs/deploy.md ("PostgreSQL") says for a dedicated
# database host with R of RAM: the machine's shared server runs with the packaged defaults (128 MB of
# shared_buffers), which no deployment of a 5 GB database would use, and on which every search pays an OS read per
# page (measured: 30 µs a page through PostgreSQL's read path on this kind of machine, 16 times the cost of the same
# scan from shared buffers).
#
#   bash bench/pg-server.sh start   # prints the URL to use: BENCH_DATABASE_URL=<url> npm run bench -- api …
#   bash bench/pg-server.sh stop
#
# Data lives in bench/out/pg (gitignored); port 5439 on 127.0.0.1 only. Needs the PostgreSQL server binaries
# (Debian's postgresql package, as on the CI machines); run as root, the server runs as the postgres user.
set -euo pipefail
cd "$(dirname "$0")/.."

PORT="${BENCH_PG_PORT:-5439}"
DATA="$PWD/bench/out/pg"
BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "${1:-}" in
start)
  ram_mb=$(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
  if [ ! -s "$DATA/PG_VERSION" ]; then
    mkdir -p "$DATA"
    [ "$(id -u)" = 0 ] && chown postgres "$DATA"
    as_postgres "$BIN/initdb" -D "$DATA" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  fi
  # docs/deploy.md's table, with R = this machine's RAM.
  as_postgres "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w start -o "\
    -c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories=$DATA \
    -c shared_buffers=$((ram_mb / 4))MB -c effective_cache_size=$((ram_mb * 3 / 5))MB \
    -c work_mem=32MB -c maintenance_work_mem=1GB -c random_page_cost=1.1 -c effective_io_concurrency=200 \
    -c max_wal_size=8GB -c checkpoint_timeout=15min -c max_connections=100" >/dev/null
  echo "postgres://postgres@127.0.0.1:$PORT/postgres"
  ;;
stop)
  as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop
  ;;
*)
  echo "usage: bash bench/pg-server.sh start|stop" >&2
  exit 2
  ;;
esac
