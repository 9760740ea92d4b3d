#!/usr/bin/env bash
# Starts, stops and reports the Slipway processes of this machine: the control plane (API),
# its workers, and the agent. With systemd (units installed by setup) it drives the units; without
# it, each process runs under deploy/lib/supervise.sh, which restarts it with backoff, with a pid
# file and a log.
#   deploy/platform.sh start|stop|restart|status [api|worker|agent]
# Without systemd, `stop` (and `restart`) stop whatever this platform runs, found by more than the pid
# files: supervisors by their command line, their processes by the SLIPWAY_SUPERVISED marker in their
# environment, and any Slipway process holding the API's or the agent's port (an orphan of an older
# supervisor). `start` refuses while such a process runs unsupervised, and after starting the API it
# waits until the process answering /healthz is the one it started (its boot id), failing loudly
# otherwise. Another platform on the same machine (a test's) is told apart by its own settings:
# SLIPWAY_ENV_FILE, SLIPWAY_RUN_DIR and SLIPWAY_LOG_DIR.
set -euo pipefail
source "$(dirname "$0")/lib/services.sh"

ENV_FILE=${SLIPWAY_ENV_FILE:-/etc/slipway/slipway.env}
PROCESSES=(api worker agent)

# Each process is the compiled bundle (node deploy/build.mjs, run by setup) on the platform's Node.
command_of() {
  local node="$SLIPWAY_NODE_DIR/bin/node ${SLIPWAY_NODE_FLAGS[*]}"
  case $1 in
    api) echo "$node $REPO_ROOT/apps/api/dist/main.js" ;;
    worker) echo "$node $REPO_ROOT/apps/worker/dist/main.js" ;;
    agent) echo "env ${SLIPWAY_AGENT_ENV[*]} $node $REPO_ROOT/apps/agent/dist/main.js run" ;;
  esac
}

# With systemd as PID 1 and the units installed by setup, systemd supervises the processes.
uses_systemd() { [[ -d /run/systemd/system && -f /etc/systemd/system/slipway-$1.service ]]; }

pid_of() {
  local file="$SLIPWAY_RUN_DIR/$1.pid"
  [[ -f $file ]] || return 1
  local pid
  pid=$(<"$file")
  kill -0 "$pid" 2>/dev/null || return 1
  is_supervisor_of "$pid" "$1" || return 1
  echo "$pid"
}

# setting NAME: its value in the platform's settings file (empty when unset).
setting() {
  [[ -f $ENV_FILE ]] || return 0
  (
    set +eu -a
    # shellcheck disable=SC1090
    source "$ENV_FILE" >/dev/null 2>&1
    printf '%s' "${!1:-}"
  )
}

# The TCP port a process listens on (none for the worker).
port_of() {
  local listen
  case $1 in
    api) listen=$(setting SLIPWAY_API_PORT) && echo "${listen:-7070}" ;;
    agent) listen=$(setting SLIPWAY_AGENT_LISTEN) && listen=${listen:-127.0.0.1:7443} && echo "${listen##*:}" ;;
  esac
}

cmdline_of() { tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline"; }

is_supervisor_of() {
  local cmd
  cmd=$(cmdline_of "$1") || return 1
  [[ $cmd == *"deploy/lib/supervise.sh $2 $SLIPWAY_RUN_DIR/$2.child.pid "* ]]
}

# Every process of this platform's NAME, one pid a line: its supervisors (command line), what they started
# (SLIPWAY_SUPERVISED in the environment, inherited by their children), and a Slipway process of that role
# holding its port (an orphan of a supervisor that predates the marker).
processes_of() {
  local name=$1 marker="SLIPWAY_SUPERVISED=$SLIPWAY_RUN_DIR/$1" dir pid port bundle
  {
    for dir in /proc/[0-9]*; do
      pid=${dir#/proc/}
      ((pid == $$ || pid == BASHPID)) && continue
      if is_supervisor_of "$pid" "$name" || grep -qzxF -- "$marker" "$dir/environ" 2>/dev/null; then echo "$pid"; fi
    done
    port=$(port_of "$name")
    if [[ -n $port ]] && command -v ss >/dev/null; then
      bundle=$(bundle_of "$name")
      for pid in $(ss -Hltnp "sport = :$port" 2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2); do
        if [[ $(cmdline_of "$pid") == *"$bundle"* ]]; then echo "$pid"; fi
      done
    fi
    true
  } | sort -un
}

bundle_of() { echo "apps/$1/dist/main.js"; }

# wait_gone SECONDS PID...: true once none of them runs.
wait_gone() {
  local deadline=$((SECONDS + $1)) pid alive
  shift
  while :; do
    alive=0
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || return 0
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

describe_pids() {
  local pid
  for pid in "$@"; do printf '  pid %s: %s\n' "$pid" "$(cmdline_of "$pid" | cut -c1-200)"; done
}

# After the API's supervisor started it: the process answering /healthz must be that one (same boot id).
verify_api() {
  local port host expected answer deadline=$((SECONDS + ${SLIPWAY_START_TIMEOUT:-60}))
  port=$(port_of api)
  host=$(setting SLIPWAY_API_HOST)
  [[ -z $host || $host == 0.0.0.0 || $host == :: ]] && host=127.0.0.1
  while ((SECONDS < deadline)); do
    expected=$(cat "$SLIPWAY_RUN_DIR/api.boot-id" 2>/dev/null || true)
    answer=$(curl -fsS --max-time 2 "http://$host:$port/healthz" 2>/dev/null | grep -o '"bootId":"[^"]*"' | cut -d'"' -f4 || true)
    [[ -n $answer && $answer == "$expected" ]] && return 0
    sleep 0.3
  done
  if [[ -n $answer ]]; then
    printf 'error: the API answering on %s:%s is not the one just started: it says boot id %s, the one started has %s.\n' "$host" "$port" "$answer" "${expected:-none}" >&2
    printf 'Another process holds the port:\n%s\n' "$(ss -Hltnp "sport = :$port" 2>/dev/null)" >&2
  else
    printf 'error: the API started did not answer on %s:%s within %s s (log %s):\n' "$host" "$port" "${SLIPWAY_START_TIMEOUT:-60}" "$SLIPWAY_LOG_DIR/api.log" >&2
    tail -n 20 "$SLIPWAY_LOG_DIR/api.log" >&2 2>/dev/null || true
  fi
  exit 1
}

start_one() {
  local name=$1
  if uses_systemd "$name"; then
    if systemctl is-active -q "slipway-$name"; then
      echo "$name: already running (systemd unit slipway-$name)"
    else
      systemctl start "slipway-$name"
      echo "$name: started (systemd unit slipway-$name, logs: journalctl -u slipway-$name)"
    fi
    return
  fi
  if pid=$(pid_of "$name"); then
    echo "$name: already running (supervisor pid $pid)"
    return
  fi
  local strays
  strays=$(processes_of "$name")
  if [[ -n $strays ]]; then
    # shellcheck disable=SC2086
    die "$name runs unsupervised (its supervisor is gone): $(describe_pids $strays)
stop it with: deploy/platform.sh restart $name"
  fi
  [[ -f $ENV_FILE ]] || die "$ENV_FILE is missing: run deploy/setup.sh first"
  # The platform runs on the Node setup installed, whatever else is on PATH.
  use_node
  local argv
  read -r -a argv <<<"$(command_of "$name")"
  [[ -f ${argv[-1]} || -f ${argv[-2]} ]] || die "the bundle of $name is missing: run deploy/setup.sh (or node deploy/build.mjs) first"
  mkdir -p "$SLIPWAY_RUN_DIR" "$SLIPWAY_LOG_DIR"
  (
    set -a
    # shellcheck disable=SC1090
    source "$ENV_FILE"
    set +a
    cd "$REPO_ROOT"
    # The supervisor starts the process again, with backoff, whenever it exits without being stopped.
    setsid nohup bash "$REPO_ROOT/deploy/lib/supervise.sh" "$name" "$SLIPWAY_RUN_DIR/$name.child.pid" -- "${argv[@]}" \
      >>"$SLIPWAY_LOG_DIR/$name.log" 2>&1 </dev/null &
    echo $! >"$SLIPWAY_RUN_DIR/$name.pid"
  )
  [[ $name == api ]] && verify_api
  echo "$name: started (supervisor pid $(<"$SLIPWAY_RUN_DIR/$name.pid"), log $SLIPWAY_LOG_DIR/$name.log)"
}

stop_one() {
  local name=$1 pid all supervisors=() others=() left
  if uses_systemd "$name"; then
    systemctl stop "slipway-$name"
    echo "$name: stopped"
    return
  fi
  all=$(processes_of "$name")
  if [[ -z $all ]]; then
    echo "$name: not running"
    rm -f "$SLIPWAY_RUN_DIR/$name.pid" "$SLIPWAY_RUN_DIR/$name.child.pid"
    return
  fi
  for pid in $all; do
    if is_supervisor_of "$pid" "$name"; then supervisors+=("$pid"); else others+=("$pid"); fi
  done
  # A supervisor forwards SIGTERM to its process and ends when it has.
  if ((${#supervisors[@]})); then
    kill -TERM "${supervisors[@]}" 2>/dev/null || true
    wait_gone 15 "${supervisors[@]}" || kill -KILL "${supervisors[@]}" 2>/dev/null || true
  fi
  # What is left ran without a supervisor (an orphan), or outlived it: SIGTERM, then SIGKILL after 15 s.
  left=$(processes_of "$name")
  if [[ -n $left ]]; then
    # shellcheck disable=SC2086
    ((${#supervisors[@]})) || echo "$name: stopping processes that ran unsupervised:"$'\n'"$(describe_pids $left)"
    # shellcheck disable=SC2086
    kill -TERM $left 2>/dev/null || true
    # shellcheck disable=SC2086
    wait_gone 15 $left || kill -KILL $left 2>/dev/null || true
    # shellcheck disable=SC2086
    wait_gone 5 $left || die "$name: could not stop $(describe_pids $left)"
  fi
  rm -f "$SLIPWAY_RUN_DIR/$name.pid" "$SLIPWAY_RUN_DIR/$name.child.pid"
  echo "$name: stopped"
}

status_one() {
  local pid child= strays
  if uses_systemd "$1"; then
    if systemctl is-active -q "slipway-$1"; then echo "$1: running (systemd unit slipway-$1)"; else echo "$1: stopped"; fi
    return
  fi
  if pid=$(pid_of "$1"); then
    [[ -f $SLIPWAY_RUN_DIR/$1.child.pid ]] && child=$(<"$SLIPWAY_RUN_DIR/$1.child.pid")
    echo "$1: running (supervisor pid $pid, process pid ${child:-restarting})"
  elif strays=$(processes_of "$1") && [[ -n $strays ]]; then
    # shellcheck disable=SC2086
    echo "$1: running UNSUPERVISED (its supervisor is gone; deploy/platform.sh restart $1 replaces it):"$'\n'"$(describe_pids $strays)"
  else
    echo "$1: stopped"
  fi
}

action=${1:-status}
shift || true
targets=("$@")
((${#targets[@]})) || targets=("${PROCESSES[@]}")
case $action in
  start) for p in "${targets[@]}"; do start_one "$p"; done ;;
  stop) for ((i = ${#targets[@]} - 1; i >= 0; i--)); do stop_one "${targets[i]}"; done ;;
  restart) for p in "${targets[@]}"; do stop_one "$p"; start_one "$p"; done ;;
  status) for p in "${targets[@]}"; do status_one "$p"; done ;;
  *) die "usage: deploy/platform.sh start|stop|restart|status [api|worker|agent]" ;;
esac
