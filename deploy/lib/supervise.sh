#!/usr/bin/env bash
# Keeps one platform process running where systemd is not PID 1 (containers, CI): starts COMMAND,
# and when it exits for any reason other than a stop, starts it again after a backoff (1 s, doubling
# up to 30 s; back to 1 s once a run has lasted 60 s). SIGTERM/SIGINT stop the child gracefully and
# end the supervisor. Started by deploy/platform.sh, which keeps this script's pid.
#   supervise.sh NAME CHILD_PID_FILE -- COMMAND...
set -uo pipefail
name=$1 child_pid_file=$2
shift 3

stopping=0 child='' sleeper=''
stop() {
  stopping=1
  [[ -n $child ]] && kill -TERM "$child" 2>/dev/null
  [[ -n $sleeper ]] && kill "$sleeper" 2>/dev/null
}
trap stop TERM INT

log() { printf '%s supervise %s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" "$*"; }

delay=1
while ((!stopping)); do
  started=$SECONDS
  "$@" &
  child=$!
  echo "$child" >"$child_pid_file"
  # `wait` returns early when a signal arrives; wait again until the child is really gone.
  while :; do
    wait "$child"
    code=$?
    kill -0 "$child" 2>/dev/null || break
  done
  child=
  rm -f "$child_pid_file"
  ((stopping)) && break
  ((SECONDS - started >= 60)) && delay=1
  log "exited with status $code after $((SECONDS - started)) s; starting again in ${delay} s"
  sleep "$delay" &
  sleeper=$!
  wait "$sleeper"
  sleeper=
  delay=$((delay * 2 > 30 ? 30 : delay * 2))
done
log "stopped"
