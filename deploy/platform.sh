#!/usr/bin/env bash
# Starts, stops and reports the Slipway processes of this machine: the control plane (API),
# its workers, and the agent. No systemd needed: each runs detached with a pid file and a log.
#   deploy/platform.sh start|stop|restart|status [api|worker|agent]
set -euo pipefail
source "$(dirname "$0")/lib/services.sh"

ENV_FILE=${SLIPWAY_ENV_FILE:-/etc/slipway/slipway.env}
PROCESSES=(api worker agent)

command_of() {
  case $1 in
    api) echo "$REPO_ROOT/node_modules/.bin/tsx $REPO_ROOT/apps/api/src/main.ts" ;;
    worker) echo "$REPO_ROOT/node_modules/.bin/tsx $REPO_ROOT/apps/worker/src/main.ts" ;;
    agent) echo "$REPO_ROOT/node_modules/.bin/tsx $REPO_ROOT/apps/agent/src/main.ts run" ;;
  esac
}

pid_of() {
  local file="$SLIPWAY_RUN_DIR/$1.pid"
  [[ -f $file ]] || return 1
  local pid
  pid=$(<"$file")
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

start_one() {
  local name=$1
  if pid=$(pid_of "$name"); then
    echo "$name: already running (pid $pid)"
    return
  fi
  [[ -f $ENV_FILE ]] || die "$ENV_FILE is missing: run deploy/setup.sh first"
  # The platform runs on the Node setup installed, whatever else is on PATH.
  use_node
  mkdir -p "$SLIPWAY_RUN_DIR" "$SLIPWAY_LOG_DIR"
  # shellcheck disable=SC2046
  (
    set -a
    source "$ENV_FILE"
    set +a
    cd "$REPO_ROOT"
    read -r -a argv <<<"$(command_of "$name")"
    setsid nohup "${argv[@]}" >>"$SLIPWAY_LOG_DIR/$name.log" 2>&1 </dev/null &
    echo $! >"$SLIPWAY_RUN_DIR/$name.pid"
  )
  echo "$name: started (pid $(<"$SLIPWAY_RUN_DIR/$name.pid"), log $SLIPWAY_LOG_DIR/$name.log)"
}

stop_one() {
  local name=$1 pid
  if ! pid=$(pid_of "$name"); then
    echo "$name: not running"
    rm -f "$SLIPWAY_RUN_DIR/$name.pid"
    return
  fi
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid"
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid" 2>/dev/null
  rm -f "$SLIPWAY_RUN_DIR/$name.pid"
  echo "$name: stopped"
}

status_one() {
  local pid
  if pid=$(pid_of "$1"); then echo "$1: running (pid $pid)"; else echo "$1: stopped"; fi
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
