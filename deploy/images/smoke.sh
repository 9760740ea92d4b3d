#!/usr/bin/env bash
# Quick check of the images built by build.sh: each one is started briefly and asked to do its job.
#
#   deploy/images/smoke.sh                 # every image
#   deploy/images/smoke.sh postgres redis  # some of them
#
# Containers carry the label slipway.smoke=1 (and slipway.smoke.run=<this run>) and are removed,
# with their anonymous volumes, when the script ends. Ports are published on 127.0.0.1 only and all
# test traffic goes there (or stays inside the container).
set -euo pipefail

ALL=(node python static postgres mariadb redis)
RUN_ID="$$-$(date +%s)"
TIMEOUT="${SLIPWAY_SMOKE_TIMEOUT:-60}"

if [[ $# -gt 0 ]]; then selected=("$@"); else selected=("${ALL[@]}"); fi

WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/slipway-smoke.XXXXXX")"
cleanup() {
  local ids
  ids="$(docker ps -aq --filter "label=slipway.smoke.run=$RUN_ID")"
  if [[ -n "$ids" ]]; then
    # shellcheck disable=SC2086
    docker rm -fv $ids > /dev/null || true
  fi
  rm -rf "$WORK_DIR"
}
trap cleanup EXIT

failures=0
CURRENT=
pass() { printf 'ok    %-8s %s\n' "$CURRENT" "$*"; }
fail() { printf 'FAIL  %-8s %s\n' "$CURRENT" "$*"; failures=$((failures + 1)); }

# run_bg IMAGE [docker run options...] -- [command...]: starts a labelled container, prints its id.
run_bg() {
  local image="$1"; shift
  local opts=()
  while [[ $# -gt 0 && "$1" != -- ]]; do opts+=("$1"); shift; done
  [[ "${1:-}" == -- ]] && shift
  docker run -d --label slipway.smoke=1 --label "slipway.smoke.run=$RUN_ID" "${opts[@]}" "$image" "$@"
}
# run_fg IMAGE command...: runs a labelled throwaway container and prints its output.
run_fg() {
  local image="$1"; shift
  docker run --rm --label slipway.smoke=1 --label "slipway.smoke.run=$RUN_ID" "$image" "$@"
}
# host_port CONTAINER PORT: the 127.0.0.1 port Docker published for PORT.
host_port() {
  local addr
  addr="$(docker port "$1" "$2/tcp" | grep '^127\.0\.0\.1:' | head -n 1)"
  printf '%s' "${addr##*:}"
}
# wait_for SECONDS command...: retries until the command succeeds.
wait_for() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" > /dev/null 2>&1; do
    if ((SECONDS >= deadline)); then return 1; fi
    sleep 0.5
  done
}
# logs_contain CONTAINER TEXT (no `| grep -q`: with pipefail, an early exit of grep fails the pipe).
logs_contain() {
  local out
  out="$(docker logs "$1" 2>&1)"
  [[ "$out" == *"$2"* ]]
}
container_exited() { [[ "$(docker inspect -f '{{.State.Running}}' "$1")" == false ]]; }
# expect_refusal CONTAINER WORD: the container stops with a non-zero status and WORD in its logs.
expect_refusal() {
  wait_for 30 container_exited "$1" \
    && [[ "$(docker inspect -f '{{.State.ExitCode}}' "$1")" != 0 ]] \
    && logs_contain "$1" "$2"
}
show_logs() { docker logs --tail 30 "$1" 2>&1 | sed 's/^/      | /'; }

# --- node ----------------------------------------------------------------------------------------
NODE_MAJORS=()
while read -r kind name version _rest; do
  [[ "$kind" == package && "$name" == node ]] || continue
  major="${version%%.*}"
  [[ " ${NODE_MAJORS[*]} " == *" $major "* ]] || NODE_MAJORS+=("$major")
done < "$(dirname "${BASH_SOURCE[0]}")/node/versions"

smoke_node() {
  local out major
  for major in "${NODE_MAJORS[@]}"; do
    if out="$(run_fg "slipway/node:$major" node -e 'console.log(process.versions.node)')" && [[ "$out" == "$major".* ]]; then
      pass "slipway/node:$major: node v$out"
    else
      fail "slipway/node:$major node -e: ${out:-no output}"
    fi
    if out="$(run_fg "slipway/node:$major" sh -c 'echo "$(npm --version) $(corepack --version) $(id -u node) $(pwd)"; command -v pnpm > /dev/null && command -v yarn > /dev/null && echo 2')" \
      && [[ "$out" == *' 1000 /app'$'\n''2' ]]; then
      pass "slipway/node:$major: npm, corepack (pnpm and yarn shims), user node 1000, workdir /app"
    else
      fail "slipway/node:$major npm/corepack/user: $out"
    fi
    if run_fg "slipway/node:$major" sh -c 'command -v gcc || command -v make' > /dev/null 2>&1; then
      fail "slipway/node:$major has a compiler (it is the runtime image)"
    else
      pass "slipway/node:$major: no compiler"
    fi
    if out="$(run_fg "slipway/node-build:$major" sh -c 'node --version; gcc --version | head -n 1; make --version | head -n 1; python3 --version; test -f "$npm_config_nodedir/include/node/node.h" && echo headers')" \
      && [[ "$out" == *headers ]]; then
      pass "slipway/node-build:$major: $(printf '%s' "$out" | head -n 4 | tr '\n' ';' | sed 's/;$//'), Node headers"
    else
      fail "slipway/node-build:$major toolchain: $out"
    fi
  done
  # node-gyp compiles an addon offline against the image's headers (no download of them).
  if out="$(run_fg "slipway/node-build:${NODE_MAJORS[-1]}" sh -c "$ADDON_CHECK" 2>&1)" && [[ "$out" == *'addon says 42' ]]; then
    pass "slipway/node-build:${NODE_MAJORS[-1]}: node-gyp builds a C++ addon offline"
  else
    fail "node-gyp build: $(printf '%s' "$out" | tail -n 5)"
  fi
}

ADDON_CHECK='set -e
mkdir -p /tmp/addon && cd /tmp/addon
cat > binding.gyp <<"GYP"
{ "targets": [ { "target_name": "addon", "sources": [ "addon.cc" ] } ] }
GYP
cat > addon.cc <<"CC"
#include <node_api.h>
static napi_value Answer(napi_env env, napi_callback_info info) { napi_value v; napi_create_int32(env, 42, &v); return v; }
NAPI_MODULE_INIT() { napi_value fn; napi_create_function(env, "answer", NAPI_AUTO_LENGTH, Answer, NULL, &fn); return fn; }
CC
node /usr/local/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js rebuild --nodedir="$npm_config_nodedir" > /dev/null 2>&1
node -e "console.log(\"addon says\", require(\"./build/Release/addon.node\")())"'

# --- python --------------------------------------------------------------------------------------
smoke_python() {
  local out
  if out="$(run_fg slipway/python:3.11 python -c 'import sys; print("%d.%d" % sys.version_info[:2])')" \
    && [[ "$out" == 3.11 ]]; then
    pass "python -c: $out"
  else
    fail "python -c: ${out:-no output}"
  fi
  if out="$(run_fg slipway/python:3.11 pip --version)" && [[ "$out" == *'/opt/venv/'* ]]; then
    pass "pip --version: ${out%% from *} (venv)"
  else
    fail "pip --version: ${out:-no output}"
  fi
  # pip may install (PEP 668 does not apply to the venv): a wheel made on the spot, no network.
  if out="$(run_fg slipway/python:3.11 sh -c "$PIP_INSTALL_CHECK" 2>&1)" && [[ "$out" == *'VALUE 42' ]]; then
    pass 'pip install of a local wheel works (no PEP 668 refusal)'
  else
    fail "pip install: $out"
  fi
}

# Builds a minimal wheel with zipfile, installs it with pip and imports it.
PIP_INSTALL_CHECK='set -e
cd /tmp
python - <<"PY"
import zipfile
files = {
    "smokepkg/__init__.py": "VALUE = 42\n",
    "smokepkg-1.dist-info/METADATA": "Metadata-Version: 2.1\nName: smokepkg\nVersion: 1\n",
    "smokepkg-1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: smoke\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
files["smokepkg-1.dist-info/RECORD"] = "".join(name + ",,\n" for name in files) + "smokepkg-1.dist-info/RECORD,,\n"
with zipfile.ZipFile("smokepkg-1-py3-none-any.whl", "w") as whl:
    for name, text in files.items():
        whl.writestr(name, text)
PY
pip install --quiet --no-index smokepkg-1-py3-none-any.whl
cd / && python -c "import smokepkg; print(\"VALUE\", smokepkg.VALUE)"'

# --- static --------------------------------------------------------------------------------------
smoke_static() {
  local c port token site body headers
  c="$(run_bg slipway/static:2 -p 127.0.0.1::8080 --)"
  port="$(host_port "$c" 8080)"
  if wait_for 10 curl -fsS "http://127.0.0.1:$port/" \
    && body="$(curl -fsS "http://127.0.0.1:$port/")" && [[ "$body" == *'<html'* ]]; then
    pass "default index.html on 127.0.0.1:$port (Caddy)"
  else
    fail 'default index.html'; show_logs "$c"
  fi

  # A mounted folder, served on the port named by $PORT; then the same folder as a single-page app.
  token="smoke-$RUN_ID"
  site="$WORK_DIR/site"
  mkdir -p "$site/assets"
  printf '%s\n' "$token" > "$site/hello.txt"
  printf '<p>%s</p>\n' "$token" > "$site/index.html"
  head -c 20000 /dev/zero | tr '\0' 'a' > "$site/assets/app-1234.js"
  chmod -R a+rX "$WORK_DIR"
  c="$(run_bg slipway/static:2 -p 127.0.0.1::9000 -e PORT=9000 -v "$site:/app:ro" --)"
  port="$(host_port "$c" 9000)"
  if wait_for 10 curl -fsS "http://127.0.0.1:$port/hello.txt" \
    && body="$(curl -fsS "http://127.0.0.1:$port/hello.txt")" && [[ "$body" == "$token" ]]; then
    pass "serves a mounted folder with PORT=9000 (127.0.0.1:$port)"
  else
    fail 'mounted folder / PORT'; show_logs "$c"
  fi
  if [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/missing")" == 404 ]]; then
    pass '404 for a missing file (no SPA fallback unless asked)'
  else
    fail 'missing file is not a 404'
  fi
  headers="$(curl -s -o /dev/null -D - -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port/assets/app-1234.js")"
  if [[ "$headers" == *'Content-Encoding: gzip'* && "$headers" == *'max-age=31536000, immutable'* ]]; then
    pass 'hashed assets: gzip and Cache-Control immutable'
  else
    fail "asset headers: $headers"
  fi
  if [[ "$(curl -s -D - -o /dev/null "http://127.0.0.1:$port/")" == *'Cache-Control: no-cache'* ]]; then
    pass 'index.html: Cache-Control no-cache'
  else
    fail 'index.html is not no-cache'
  fi
  c="$(run_bg slipway/static:2 -p 127.0.0.1::8080 -e SLIPWAY_STATIC_FALLBACK=/index.html -v "$site:/app:ro" --)"
  port="$(host_port "$c" 8080)"
  if wait_for 10 curl -fsS "http://127.0.0.1:$port/" \
    && body="$(curl -fsS "http://127.0.0.1:$port/some/client/route")" && [[ "$body" == "<p>$token</p>" ]]; then
    pass 'SLIPWAY_STATIC_FALLBACK=/index.html: a client-side route gets index.html'
  else
    fail "SPA fallback: ${body:-no answer}"; show_logs "$c"
  fi
}

# --- postgres ------------------------------------------------------------------------------------
smoke_postgres() {
  local c port out init="$WORK_DIR/pg-init" pw='smoke pw "quoted"'
  mkdir -p "$init"
  printf 'CREATE TABLE smoke (x int); INSERT INTO smoke VALUES (42);\n' > "$init/01-table.sql"
  printf 'echo "init script saw POSTGRES_DB=$POSTGRES_DB"\n' > "$init/02-note.sh"
  chmod -R a+rX "$WORK_DIR"
  c="$(run_bg slipway/postgres:15 -p 127.0.0.1::5432 -e "POSTGRES_PASSWORD=$pw" \
    -e POSTGRES_USER=smoke -e POSTGRES_DB=smokedb -v "$init:/docker-entrypoint-initdb.d:ro" --)"
  # TCP is only served after initialisation (the temporary server listens on its socket only).
  if ! wait_for "$TIMEOUT" docker exec "$c" pg_isready -h 127.0.0.1 -U smoke -d smokedb; then
    fail 'not ready'; show_logs "$c"; return
  fi
  if out="$(docker exec -e "PGPASSWORD=$pw" "$c" psql -h 127.0.0.1 -U smoke -d smokedb -tAc 'SELECT x FROM smoke')" \
    && [[ "$out" == 42 ]]; then
    pass 'psql with the password over TCP (in the container); init .sql ran'
  else
    fail "psql in the container: $out"; show_logs "$c"
  fi
  if docker exec -e PGPASSWORD=wrong "$c" psql -h 127.0.0.1 -U smoke -d smokedb -tAc 'SELECT 1' > /dev/null 2>&1; then
    fail 'a wrong password was accepted'
  else
    pass 'a wrong password is refused (scram-sha-256)'
  fi
  if command -v psql > /dev/null; then
    port="$(host_port "$c" 5432)"
    if out="$(PGPASSWORD="$pw" psql -h 127.0.0.1 -p "$port" -U smoke -d smokedb -tAc 'SELECT current_user')" \
      && [[ "$out" == smoke ]]; then
      pass "host psql on 127.0.0.1:$port"
    else
      fail "host psql: $out"
    fi
  fi
  if out="$(docker exec "$c" pg_dump -U smoke smokedb)" && [[ "$out" == *'CREATE TABLE public.smoke'* ]]; then
    pass 'pg_dump works (pg_restore: '"$(docker exec "$c" pg_restore --version)"')'
  else
    fail 'pg_dump'
  fi
  if logs_contain "$c" 'init script saw POSTGRES_DB=smokedb'; then
    pass 'init .sh ran'
  else
    fail 'init .sh did not run'
  fi
  if [[ "$(docker exec "$c" sh -c 'stat -c %U /proc/1')" == postgres ]]; then
    pass 'server runs as postgres'
  else
    fail 'server does not run as postgres'
  fi
  docker restart "$c" > /dev/null
  if wait_for "$TIMEOUT" docker exec "$c" pg_isready -h 127.0.0.1 -U smoke -d smokedb \
    && [[ "$(docker exec "$c" psql -U smoke -d smokedb -tAc 'SELECT x FROM smoke')" == 42 ]] \
    && logs_contain "$c" 'skipping initialization'; then
    pass 'restart keeps the data and skips initialisation'
  else
    fail 'restart'; show_logs "$c"
  fi
  # Without POSTGRES_PASSWORD the container must stop with an explanation.
  c="$(run_bg slipway/postgres:15 --)"
  if expect_refusal "$c" POSTGRES_PASSWORD; then
    pass 'refuses to initialise without POSTGRES_PASSWORD'
  else
    fail 'started without POSTGRES_PASSWORD'; show_logs "$c"
  fi
}

# --- mariadb -------------------------------------------------------------------------------------
smoke_mariadb() {
  local c out root_pw="root'pw\"x" init="$WORK_DIR/my-init"
  mkdir -p "$init"
  printf 'CREATE TABLE smoke (x int); INSERT INTO smoke VALUES (42);\n' > "$init/01-table.sql"
  chmod -R a+rX "$WORK_DIR"
  c="$(run_bg slipway/mariadb:10.11 -p 127.0.0.1::3306 -e "MARIADB_ROOT_PASSWORD=$root_pw" \
    -e MYSQL_DATABASE=smokedb -e MYSQL_USER=smoke -e MYSQL_PASSWORD=smokepw \
    -v "$init:/docker-entrypoint-initdb.d:ro" --)"
  # TCP is only served after initialisation (the temporary server runs with --skip-networking).
  if ! wait_for "$TIMEOUT" docker exec -e MYSQL_PWD=smokepw "$c" mariadb -h 127.0.0.1 -u smoke -e 'SELECT 1'; then
    fail 'not ready'; show_logs "$c"; return
  fi
  if out="$(docker exec -e MYSQL_PWD=smokepw "$c" mariadb -h 127.0.0.1 -u smoke -N -e 'SELECT x FROM smokedb.smoke')" \
    && [[ "$out" == 42 ]]; then
    pass 'client login as MYSQL_USER over TCP; init .sql ran in MYSQL_DATABASE'
  else
    fail "user login: $out"; show_logs "$c"
  fi
  if out="$(docker exec -e "MYSQL_PWD=$root_pw" "$c" mariadb -h 127.0.0.1 -u root -N -e 'SELECT @@bind_address, @@port')" \
    && [[ "$out" == $'0.0.0.0\t3306' ]]; then
    pass 'root login with MARIADB_ROOT_PASSWORD; bind 0.0.0.0:3306'
  else
    fail "root login: $out"
  fi
  if docker exec -e MYSQL_PWD=wrong "$c" mariadb -h 127.0.0.1 -u smoke -e 'SELECT 1' > /dev/null 2>&1; then
    fail 'a wrong password was accepted'
  else
    pass 'a wrong password is refused'
  fi
  if out="$(docker exec -e MYSQL_PWD=smokepw "$c" mariadb-dump -u smoke smokedb)" \
    && [[ "$out" == *'CREATE TABLE `smoke`'* ]] \
    && docker exec "$c" mysqldump --version > /dev/null; then
    pass 'mariadb-dump works (mysqldump present)'
  else
    fail 'mariadb-dump'
  fi
  if [[ "$(docker exec "$c" sh -c 'stat -c %U /proc/1')" == mysql ]]; then
    pass 'server runs as mysql'
  else
    fail 'server does not run as mysql'
  fi
  docker restart "$c" > /dev/null
  if wait_for "$TIMEOUT" docker exec -e MYSQL_PWD=smokepw "$c" mariadb -h 127.0.0.1 -u smoke -e 'SELECT 1' \
    && [[ "$(docker exec -e MYSQL_PWD=smokepw "$c" mariadb -h 127.0.0.1 -u smoke -N -e 'SELECT x FROM smokedb.smoke')" == 42 ]] \
    && logs_contain "$c" 'skipping initialization'; then
    pass 'restart keeps the data and skips initialisation'
  else
    fail 'restart'; show_logs "$c"
  fi
  # Without a root password option the container must stop with an explanation.
  c="$(run_bg slipway/mariadb:10.11 --)"
  if expect_refusal "$c" MARIADB_ROOT_PASSWORD; then
    pass 'refuses to initialise without a root password option'
  else
    fail 'started without a root password option'; show_logs "$c"
  fi
}

# --- redis ---------------------------------------------------------------------------------------
smoke_redis() {
  local c out
  c="$(run_bg slipway/redis:7.0 -p 127.0.0.1::6379 -- redis-server --requirepass smokepw --appendonly yes)"
  if ! wait_for 15 docker exec "$c" redis-cli -a smokepw --no-auth-warning PING; then
    fail 'not ready'; show_logs "$c"; return
  fi
  if [[ "$(docker exec "$c" redis-cli -a smokepw --no-auth-warning PING)" == PONG ]]; then
    pass 'PING with requirepass: PONG'
  else
    fail 'PING with the password'
  fi
  if [[ "$(docker exec "$c" redis-cli PING 2>&1)" == NOAUTH* ]]; then
    pass 'PING without the password: NOAUTH'
  else
    fail 'PING without the password was not refused'
  fi
  if [[ "$(docker exec "$c" redis-cli -a smokepw --no-auth-warning CONFIG GET appendonly | tail -n 1)" == yes ]]; then
    pass 'extra arguments reach redis-server (appendonly yes)'
  else
    fail 'appendonly is not on'
  fi
  if command -v redis-cli > /dev/null; then
    local port
    port="$(host_port "$c" 6379)"
    if [[ "$(redis-cli -h 127.0.0.1 -p "$port" -a smokepw --no-auth-warning PING)" == PONG ]]; then
      pass "host redis-cli on 127.0.0.1:$port"
    else
      fail 'host redis-cli'
    fi
  fi
  if [[ "$(docker exec "$c" sh -c 'stat -c %U /proc/1')" == redis ]]; then
    pass 'server runs as redis'
  else
    fail 'server does not run as redis'
  fi
  # The default command: no password, protected mode off, data in /data.
  c="$(run_bg slipway/redis:7.0 --)"
  if wait_for 15 docker exec "$c" redis-cli PING \
    && out="$(docker exec "$c" redis-cli CONFIG GET dir | tail -n 1)" && [[ "$out" == /data ]]; then
    pass 'default command answers PING, dir /data'
  else
    fail "default command: $out"; show_logs "$c"
  fi
}

for name in "${selected[@]}"; do
  CURRENT="$name"
  case "$name" in
    node|python|static|postgres|mariadb|redis) "smoke_$name" ;;
    *) printf 'smoke.sh: unknown image: %s (known: %s)\n' "$name" "${ALL[*]}" >&2; exit 2 ;;
  esac
done

if ((failures > 0)); then
  printf '%d check(s) failed\n' "$failures"
  exit 1
fi
printf 'all checks passed\n'
