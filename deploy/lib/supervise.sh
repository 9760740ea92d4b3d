#!/usr/bin/env bash
# Keeps one platform process running where systemd is not PID 1 (containers, CI): starts COMMAND,
# and when it exits for any reason other than a stop, starts it again after a backoff (1 s, doubling
# up to 30 s; back to 1 s once a run has lasted 60 s). SIGTERM/SIGINT stop the child gracefully and
# end the supervisor. Started by deploy/platform.sh, which keeps this script's pid.
#   supervise.sh NAME CHILD_PID_FILE -- COMMAND...
#
# The child dies with its supervisor: it runs under `setpriv --pdeathsig TERM` (util-linux), so the kernel sends
# it SIGTERM when the supervisor ends however it ends (SIGKILL included) — an unsupervised orphan would keep the
# port with old code and old settings. Every child carries SLIPWAY_SUPERVISED=<run dir>/<NAME> in its environment
# (how platform.sh finds what this platform runs, beyond pid files) and SLIPWAY_BOOT_ID, a new random id per start,
# also written to <run dir>/<NAME>.boot-id before the child starts (the API answers it on /healthz and /readyz: the
# scripts check that the process answering is the one started here).
set -uo pipefail
name=$1 child_pid_file=$2
shift 3
run_dir=$(dirname "$child_pid_file")
export SLIPWAY_SUPERVISED="$run_dir/$name"

stopping=0 child='' sleeper=''
stop() {
  stopping=1
  [[ -n $child ]] && kill -TERM "$child" 2>/dev/null
  [[ -n $sleeper ]] && kill "$sleeper" 2>/dev/null
}
trap stop TERM INT

log() { printf '%s supervise %s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" "$*"; }

# Without setpriv (util-linux older than 2.33) the child still runs, without the death signal.
die_with_me=()
setpriv --help 2>/dev/null | grep -q -- --pdeathsig && die_with_me=(setpriv --pdeathsig TERM --)

delay=1
while ((!stopping)); do
  started=$SECONDS
  boot_id=$(cat /proc/sys/kernel/random/uuid)
  echo "$boot_id" >"$run_dir/$name.boot-id.tmp" && mv -f "$run_dir/$name.boot-id.tmp" "$run_dir/$name.boot-id"
  SLIPWAY_BOOT_ID=$boot_id "${die_with_me[@]}" "$@" &
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
