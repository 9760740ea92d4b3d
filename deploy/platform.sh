#!/usr/bin/env bash
# Starts, stops and reports the Slipway processes of this machine: the control plane (API),
# its workers, and the agent. With systemd (units installed by setup) it drives the units; without
# it, each process runs under deploy/lib/supervise.sh, which restarts it with backoff, with a pid
# file and a log.
#   deploy/platform.sh start|stop|restart|status [api|worker|agent]
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
    agent) echo "$node $REPO_ROOT/apps/agent/dist/main.js run" ;;
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
  echo "$pid"
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
  echo "$name: started (supervisor pid $(<"$SLIPWAY_RUN_DIR/$name.pid"), log $SLIPWAY_LOG_DIR/$name.log)"
}

stop_one() {
  local name=$1 pid
  if uses_systemd "$name"; then
    systemctl stop "slipway-$name"
    echo "$name: stopped"
    return
  fi
  if ! pid=$(pid_of "$name"); then
    echo "$name: not running"
    rm -f "$SLIPWAY_RUN_DIR/$name.pid" "$SLIPWAY_RUN_DIR/$name.child.pid"
    return
  fi
  # The supervisor forwards SIGTERM to the process and ends when it has.
  kill -TERM "$pid"
  for _ in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid" 2>/dev/null
  rm -f "$SLIPWAY_RUN_DIR/$name.pid" "$SLIPWAY_RUN_DIR/$name.child.pid"
  echo "$name: stopped"
}

status_one() {
  local pid child=
  if uses_systemd "$1"; then
    if systemctl is-active -q "slipway-$1"; then echo "$1: running (systemd unit slipway-$1)"; else echo "$1: stopped"; fi
    return
  fi
  if pid=$(pid_of "$1"); then
    [[ -f $SLIPWAY_RUN_DIR/$1.child.pid ]] && child=$(<"$SLIPWAY_RUN_DIR/$1.child.pid")
    echo "$1: running (supervisor pid $pid, process pid ${child:-restarting})"
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
