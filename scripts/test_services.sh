#!/usr/bin/env bash
# Run a command with the warehouses the integration tests need, started here and stopped on exit:
#
#   scripts/test_services.sh COMMAND [ARGS...]
#
#   PostgreSQL  a throwaway cluster (initdb into a temp dir) on 127.0.0.1 and a free port. When the
#               server binaries are missing they are installed with apt-get (root only; otherwise
#               the postgres target is skipped with a message).
#   BigQuery    the crucible BigQuery API emulator (CRUCIBLE, default .venv-emulator/bin/crucible,
#               built by `make emulator`) on 127.0.0.1 and a free port.
#
# Exports for the command: DBT_PG_HOST/PORT/USER, DBT_BQ_API_ENDPOINT/PROJECT (read by
# integration_tests/profiles.yml and the tests) and DATAPLEX_DQ_REQUIRED_TARGETS (the targets that
# must run: a test of a listed target fails instead of skipping when its warehouse is unavailable).
# DATAPLEX_DQ_SKIP_POSTGRES=1 / DATAPLEX_DQ_SKIP_BIGQUERY=1 leave a service out.
#   Chromium    Debian's chromium + chromium-driver for the HTML report's browser tests, installed with
#               apt-get when missing and root (DATAPLEX_DQ_SKIP_BROWSER=1 leaves it out).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CRUCIBLE="${CRUCIBLE:-$ROOT/.venv-emulator/bin/crucible}"
STATE="$(mktemp -d "${TMPDIR:-/tmp}/dataplex-dq-services.XXXXXX")"
chmod 755 "$STATE"
REQUIRED="duckdb"
PG_BIN=""
PG_DATA=""
PG_AS=""
CRUCIBLE_PID=""

say() { echo "[test_services] $*" >&2; }

# CPU seconds (user + system) a process has used, with those of its children it has waited for: where the
# suite's time goes besides pytest's workers (the emulator and the PostgreSQL server share the same cores)
cpu_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f", ($14 + $15 + $16 + $17) / hz }' "/proc/$1/stat" 2>/dev/null || echo "?"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

as_pg_user() {
  if [ -n "$PG_AS" ]; then
    runuser -u "$PG_AS" -- "$@"
  else
    "$@"
  fi
}

cleanup() {
  local rc=$?
  set +e
  if [ -n "$CRUCIBLE_PID" ] && kill -0 "$CRUCIBLE_PID" 2>/dev/null; then
    local cpu
    cpu="$(cpu_seconds "$CRUCIBLE_PID")"
    kill "$CRUCIBLE_PID" 2>/dev/null
    wait "$CRUCIBLE_PID" 2>/dev/null
    say "BigQuery emulator stopped (${cpu} s of CPU)"
  fi
  if [ -n "$PG_DATA" ] && [ -f "$PG_DATA/postmaster.pid" ]; then
    local pg_cpu
    pg_cpu="$(cpu_seconds "$(head -n 1 "$PG_DATA/postmaster.pid")")"  # the server with its ended backends
    as_pg_user "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w stop >/dev/null 2>&1
    say "PostgreSQL stopped (${pg_cpu} s of CPU)"
  fi
  rm -rf "$STATE"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

find_pg_bin() {
  local initdb
  initdb="$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -z "$initdb" ]; then initdb="$(command -v initdb || true)"; fi
  if [ -n "$initdb" ]; then dirname "$initdb"; fi
}

start_postgres() {
  PG_BIN="$(find_pg_bin)"
  if [ -z "$PG_BIN" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      say "PostgreSQL server not found: installing it with apt-get (postgresql)"
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq >"$STATE/apt.log" 2>&1 || { cat "$STATE/apt.log" >&2; return 1; }
      apt-get install -y -qq --no-install-recommends postgresql >>"$STATE/apt.log" 2>&1 || { cat "$STATE/apt.log" >&2; return 1; }
      PG_BIN="$(find_pg_bin)"
    else
      say "SKIPPING the postgres target: no PostgreSQL server binaries (initdb) and not root, so they cannot be installed here (apt-get install postgresql)"
      return 0
    fi
  fi
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    PG_AS=postgres  # initdb refuses to run as root
  fi
  PG_DATA="$STATE/pg"
  mkdir -p "$PG_DATA"
  [ -z "$PG_AS" ] || chown "$PG_AS" "$PG_DATA"
  local port locale_opt
  port="$(free_port)"
  if locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then locale_opt="--locale=C.UTF-8"; else locale_opt="--no-locale"; fi
  as_pg_user "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust -E UTF8 "$locale_opt" >"$STATE/initdb.log" 2>&1 \
    || { cat "$STATE/initdb.log" >&2; return 1; }
  as_pg_user "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/server.log" -w -t 60 start \
    -o "-p $port -k $PG_DATA -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    >/dev/null || { cat "$PG_DATA/server.log" >&2; return 1; }
  export DBT_PG_HOST=127.0.0.1 DBT_PG_PORT="$port" DBT_PG_USER=postgres DBT_PG_PASSWORD="" DBT_PG_DBNAME=postgres
  REQUIRED="$REQUIRED,postgres"
  say "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
}

# POST `select 1` to the emulator's jobs.query (argv: its URL, the project); fails on any HTTP error.
WARM_UP_QUERY='
import json, sys, urllib.request
request = urllib.request.Request(
    f"{sys.argv[1]}/bigquery/v2/projects/{sys.argv[2]}/queries",
    data=json.dumps({"query": "select 1", "useLegacySql": False}).encode(),
    headers={"Content-Type": "application/json"},
)
urllib.request.urlopen(request, timeout=60).read()
'

start_crucible() {
  if [ ! -x "$CRUCIBLE" ]; then
    say "BigQuery emulator not found at $CRUCIBLE (run \`make emulator\`)"
    return 1
  fi
  local port
  port="$(free_port)"
  "$CRUCIBLE" serve --dialect bigquery --host 127.0.0.1 --port "$port" >"$STATE/crucible.log" 2>&1 &
  CRUCIBLE_PID=$!
  local url="http://127.0.0.1:$port"
  for _ in $(seq 1 120); do
    if python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1] + '/_crucible/health', timeout=2)" "$url" 2>/dev/null; then
      export DBT_BQ_API_ENDPOINT="$url" DBT_BQ_PROJECT="${DBT_BQ_PROJECT:-dq-local}"
      # One query before the tests' own: a fresh crucible 0.1.0a2 server misreads some of the first statements it
      # gets at once (4 concurrent `create schema` as a fresh server's first statements failed with "Not supported by
      # Crucible: CREATE statement" on 5 of 40 servers, as a BigQuery build's first statements once did; after one
      # `select 1`, on none of 55): a race in the emulator's first use, not in the SQL.
      if ! python3 -c "$WARM_UP_QUERY" "$url" "$DBT_BQ_PROJECT" 2>"$STATE/crucible-warm-up.log"; then
        cat "$STATE/crucible-warm-up.log" >&2
        say "the BigQuery emulator did not answer its first query"
        return 1
      fi
      REQUIRED="$REQUIRED,bigquery"
      say "BigQuery emulator (crucible) on $url"
      return 0
    fi
    if ! kill -0 "$CRUCIBLE_PID" 2>/dev/null; then break; fi
    sleep 0.5
  done
  cat "$STATE/crucible.log" >&2
  say "the BigQuery emulator did not start"
  return 1
}

# Headless Chromium for the HTML report's browser tests (integration_tests/tests/test_html_report.py):
# Debian's chromium + chromium-driver, installed with apt-get when missing and root; otherwise those
# tests skip with the reason. Not a service: nothing to start or stop.
ensure_chromium() {
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "Chromium not found: installing it with apt-get (chromium chromium-driver) for the browser tests"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium chromium-driver; } >"$STATE/apt-chromium.log" 2>&1 \
      || { cat "$STATE/apt-chromium.log" >&2; say "Chromium could not be installed: the browser tests will skip"; }
  else
    say "SKIPPING the browser tests: no /usr/bin/chromium + /usr/bin/chromedriver and not root, so they cannot be installed here (apt-get install chromium chromium-driver)"
  fi
}

if [ "${DATAPLEX_DQ_SKIP_BROWSER:-0}" = 1 ]; then say "browser install left out (DATAPLEX_DQ_SKIP_BROWSER=1)"; else ensure_chromium; fi
if [ "${DATAPLEX_DQ_SKIP_POSTGRES:-0}" = 1 ]; then say "postgres target left out (DATAPLEX_DQ_SKIP_POSTGRES=1)"; else start_postgres; fi
if [ "${DATAPLEX_DQ_SKIP_BIGQUERY:-0}" = 1 ]; then say "bigquery target left out (DATAPLEX_DQ_SKIP_BIGQUERY=1)"; else start_crucible; fi
export DATAPLEX_DQ_REQUIRED_TARGETS="$REQUIRED"
say "targets: $REQUIRED"

"$@"
