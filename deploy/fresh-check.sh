#!/usr/bin/env bash
# Proves the README's quick start on a machine where Node.js was never installed, without a second
# machine: in a private mount namespace (`unshare -m`), a hard-linked copy of /usr/bin without node,
# npm, npx, corepack and pnpm is bind-mounted over /usr/bin (so is any other folder of PATH holding them) and an empty tmpfs over the folder that holds
# the platform's Node, so that nothing there knows Node. There, in a fresh clone of this repository, it
# runs `bash deploy/setup.sh` (the platform of this machine is stopped first) and passes when
#   - /readyz answers 200,
#   - an image app created and deployed through the API serves its page through the ingress (HAProxy in front of
#     Caddy by default, its route in HAProxy's map; SLIPWAY_INGRESS=caddy: Caddy alone, its route in Caddy's config),
#   - setup run again with the other SLIPWAY_INGRESS switches the ingress over and back, the app served each time
#     (SLIPWAY_FRESH_SWITCH=0 leaves this out),
#   - every platform process runs the Node that setup installed.
# The platform it started is stopped at the end. Run by CI from deploy/test.sh; as root.
#   deploy/fresh-check.sh            (set SLIPWAY_FRESH_KEEP=1 to keep the clone and its logs)
set -euo pipefail
source "$(dirname "$0")/lib/services.sh"
need_root

HIDDEN=(node nodejs npm npx corepack pnpm pnpx yarn yarnpkg)
NODE_PARENT=$(dirname "$SLIPWAY_NODE_DIR")
repo=
API_PORT=${SLIPWAY_API_PORT:-7070}

outside() {
  command -v unshare >/dev/null || die "unshare (util-linux) is required"
  local work
  work=$(mktemp -d /tmp/slipway-fresh.XXXXXX)
  chmod 755 "$work" # setup runs psql as the postgres user from inside the clone
  # A clean clone of what is committed, as CI and a new operator have it (no node_modules, no build).
  git clone -q "$REPO_ROOT" "$work/slipway"
  git -C "$work/slipway" checkout -q "$(git -C "$REPO_ROOT" rev-parse HEAD)"
  # Every folder of PATH that holds one of them (/usr/bin here; /usr/local/bin or a version manager's elsewhere) is
  # copied without them, by hard links where it can (instant, no space), and the copy hides it in the namespace.
  local dir name i=0
  : >"$work/hidden-dirs"
  for dir in /usr/bin $(tr ':' '\n' <<<"$PATH" | awk '!seen[$0]++'); do
    [[ -d $dir && $dir != "$NODE_PARENT"/* ]] || continue
    grep -qxF "$(realpath "$dir")" "$work/hidden-dirs" 2>/dev/null && continue
    local found=0
    for name in "${HIDDEN[@]}"; do [[ -e $dir/$name || -L $dir/$name ]] && found=1; done
    ((found)) || continue
    i=$((i + 1))
    cp -al "$dir" "$work/bin-$i" 2>/dev/null || { rm -rf "$work/bin-$i"; cp -a "$dir" "$work/bin-$i"; }
    for name in "${HIDDEN[@]}"; do rm -f "$work/bin-$i/$name"; done
    realpath "$dir" >>"$work/hidden-dirs"
  done
  mkdir -p "$NODE_PARENT"

  local was_running=()
  for name in api worker agent; do
    bash "$REPO_ROOT/deploy/platform.sh" status "$name" 2>/dev/null | grep -q running && was_running+=("$name")
  done
  if ((${#was_running[@]})); then
    say "fresh check: stopping this machine's platform (${was_running[*]}; started again afterwards)"
    bash "$REPO_ROOT/deploy/platform.sh" stop >/dev/null
  fi

  local rc=0
  # The agent loop-mounts project folders from inside the namespace and dockerd, outside it, mounts them into
  # containers: that one folder is a shared mount, so its mounts propagate out. Nothing else does while / is private.
  local volumes=/var/lib/slipway/agent/volumes propagation=private
  mkdir -p "$volumes"
  mountpoint -q "$volumes" || mount --bind "$volumes" "$volumes"
  mount --make-shared "$volumes"
  [[ $(findmnt -no PROPAGATION /) == private ]] && propagation=unchanged
  unshare -m --propagation "$propagation" bash "$work/slipway/deploy/fresh-check.sh" --inside "$work" || rc=$?
  if ((${#was_running[@]})); then bash "$REPO_ROOT/deploy/platform.sh" start "${was_running[@]}"; fi
  if [[ ${SLIPWAY_FRESH_KEEP:-0} == 1 || $rc != 0 ]]; then
    say "fresh check: clone and logs kept in $work"
  else
    rm -rf "$work"
  fi
  return "$rc"
}

inside() {
  local work=$1
  repo=$1/slipway
  local dir i=0
  while read -r dir; do
    i=$((i + 1))
    mount --bind "$work/bin-$i" "$dir"
  done <"$work/hidden-dirs"
  mount -t tmpfs -o mode=0755 tmpfs "$NODE_PARENT"
  local name
  for name in "${HIDDEN[@]}"; do
    if p=$(command -v "$name"); then die "fresh check: $name is still visible at $p"; fi
  done
  say "fresh check: no Node.js on this machine now (PATH=$PATH)"

  trap 'bash "$repo/deploy/platform.sh" stop >/dev/null 2>&1 || true' EXIT
  local started=$SECONDS
  (cd "$repo" && bash deploy/setup.sh) >"$work/setup.log" 2>&1 ||
    { tail -n 40 "$work/setup.log" >&2; die "fresh check: deploy/setup.sh failed (log: $work/setup.log)"; }
  local took=$((SECONDS - started))
  say "fresh check: setup took ${took}s from a machine without Node.js"

  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$API_PORT/readyz")
  [[ $code == 200 ]] || die "fresh check: /readyz answered $code"
  say "fresh check: /readyz 200"

  check_processes
  check_image_app
  check_supervision
  check_rerun
  [[ ${SLIPWAY_FRESH_SWITCH:-1} == 0 ]] || check_ingress_switch
  # The check's workspace goes (its app with it). Right after the ingress switch the agent may still be coming back
  # (503 for a few seconds): tried for up to 30 s, so the check leaves nothing on a machine it runs on again.
  local tries=0
  until curl -fsS -o /dev/null "${app_auth[@]}" -X DELETE "${app_api%/apps/*}"; do
    ((++tries < 30)) || { echo "the check's workspace could not be deleted: delete \"Fresh check\" by hand"; break; }
    sleep 1
  done
  say "fresh check passed: setup ${took}s to /readyz 200, image app served, every process on $("$SLIPWAY_NODE_DIR/bin/node" --version) from $SLIPWAY_NODE_DIR"
}

# Every node process of the platform started from the clone runs $SLIPWAY_NODE_DIR/bin/node.
check_processes() {
  local want=$SLIPWAY_NODE_DIR/bin/node pid exe cmd seen=() wrong=0
  for pid in $(pgrep -f "$repo/" || true); do
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
    [[ $(basename "$exe") == node* ]] || continue
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline")
    if [[ $exe != "$want" ]]; then
      echo "  pid $pid runs $exe: $cmd" >&2
      wrong=1
    fi
    case $cmd in
      *apps/api/*) seen+=(api) ;;
      *apps/worker/*) seen+=(worker) ;;
      *apps/agent/*) seen+=(agent) ;;
    esac
  done
  ((wrong == 0)) || die "fresh check: a platform process runs another Node than $want"
  for name in api worker agent; do
    [[ " ${seen[*]} " == *" $name "* ]] || die "fresh check: no $name process running on $want"
  done
  say "fresh check: api, worker and agent all run $want"
}

# Each process killed with SIGKILL is running again, and the API answers /readyz 200, within 10 s.
check_supervision() {
  local name old new t0 deadline
  for name in api worker agent; do
    old=$(<"$SLIPWAY_RUN_DIR/$name.child.pid")
    t0=$(date +%s%N)
    deadline=$((SECONDS + 10))
    kill -KILL "$old"
    while :; do
      new=$(cat "$SLIPWAY_RUN_DIR/$name.child.pid" 2>/dev/null || true)
      if [[ -n $new && $new != "$old" ]] && kill -0 "$new" 2>/dev/null &&
        curl -fs -o /dev/null "http://127.0.0.1:$API_PORT/readyz"; then
        break
      fi
      ((SECONDS < deadline)) || die "fresh check: $name was not running again within 10 s of SIGKILL"
      sleep 0.1
    done
    say "fresh check: $name killed with SIGKILL, running again (pid $new) and /readyz 200 after $((($(date +%s%N) - t0) / 1000000)) ms"
  done
}

# Running setup again changes nothing: nothing installed, written, enrolled, restarted or started.
check_rerun() {
  (cd "$repo" && bash deploy/setup.sh) >"$work/setup-again.log" 2>&1 ||
    { tail -n 40 "$work/setup-again.log" >&2; die "fresh check: the second deploy/setup.sh failed"; }
  local changes
  # (pnpm install runs every time and changes nothing with the lockfile unchanged.)
  changes=$(sed 's/\x1b\[[0-9;]*m//g' "$work/setup-again.log" | grep -v '==> installing Node dependencies' |
    grep -E '==> (installing|writing|enrolling|restarting|starting|Redis:|Docker engine:)|: started' || true)
  [[ -z $changes ]] || die "fresh check: running setup again changed something:"$'\n'"$changes"
  say "fresh check: running setup again changed nothing"
}

json() { "$SLIPWAY_NODE_DIR/bin/node" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s);process.stdout.write(String(eval("v"+process.argv[1])??""))})' "$1"; }

# The image app of check_image_app: its host, its API path and the token's headers (its workspace is deleted at the end).
app_host='' app_id='' app_api='' app_auth=()

# Signs up, creates a workspace, a token and a web app from the local static image, deploys it
# through the API and reads its page through the ingress.
check_image_app() {
  local api=http://localhost:$API_PORT jar email ws token app dep status url
  jar=$(mktemp)
  email="fresh-$(date +%s)-$RANDOM@example.com"
  curl -fsS -c "$jar" -H 'Content-Type: application/json' -H "Origin: $api" \
    -d "{\"email\":\"$email\",\"password\":\"correct horse battery\",\"name\":\"Fresh\"}" "$api/v1/auth/signup" >/dev/null
  ws=$(curl -fsS -b "$jar" -H 'Content-Type: application/json' -H "Origin: $api" -d '{"name":"Fresh check"}' "$api/v1/workspaces" | json .id)
  token=$(curl -fsS -b "$jar" -H 'Content-Type: application/json' -H "Origin: $api" -d '{"name":"fresh"}' "$api/v1/workspaces/$ws/tokens" | json .token)
  rm -f "$jar"
  local auth=(-H "Authorization: Bearer $token" -H 'Content-Type: application/json')
  app=$(curl -fsS "${auth[@]}" -d '{"name":"fresh site","kind":"web","source":"image","image":"slipway/static:2","memoryMb":128,"cpuMillis":250}' \
    "$api/v1/workspaces/$ws/apps")
  url=$(json .url <<<"$app")
  app=$(json .id <<<"$app")
  dep=$(curl -fsS "${auth[@]}" -d '{}' "$api/v1/workspaces/$ws/apps/$app/deployments" | json .id)
  local deadline=$((SECONDS + 120))
  while :; do
    status=$(curl -fsS "${auth[@]}" "$api/v1/workspaces/$ws/apps/$app/deployments/$dep" | json .status)
    [[ $status == live ]] && break
    [[ $status == failed || $status == cancelled ]] && die "fresh check: the deployment ended $status"
    ((SECONDS < deadline)) || die "fresh check: the deployment is still $status after 120s"
    sleep 1
  done
  # The app's URL names port 80; the ingress listens on SLIPWAY_INGRESS_HTTP_PORT.
  local host=${url#*://}
  host=${host%%/*}
  host=${host%%:*}
  app_host=$host app_id=$app app_api=$api/v1/workspaces/$ws/apps/$app app_auth=("${auth[@]}")
  check_served "$SLIPWAY_INGRESS"
  say "fresh check: image app deployed through the API serves at $url (ingress: $SLIPWAY_INGRESS)"
}

# check_served INGRESS: within 30 s (a switch restarts the agent), the app's page through the ingress port and its
# route where that ingress keeps it: HAProxy's map (and no Caddy route of it left), or Caddy's config with HAProxy
# stopped and Caddy on the ingress port.
check_served() {
  local deadline=$((SECONDS + 30)) wrong
  while wrong=$(served_wrong "$1"); do
    ((SECONDS < deadline)) || die "fresh check: SLIPWAY_INGRESS=$1: $wrong"
    sleep 0.5
  done
}

# served_wrong INGRESS: prints what is not as check_served wants it (and succeeds), or fails when all is.
served_wrong() {
  local body routes
  body=$(curl -fsS -H "Host: $app_host" "http://127.0.0.1:$SLIPWAY_INGRESS_HTTP_PORT/" 2>&1) || { echo "$app_host did not answer through the ingress: ${body:0:200}"; return 0; }
  [[ $body == *"<html"* ]] || { echo "$app_host answered something else than the static page: ${body:0:200}"; return 0; }
  routes=$(curl -fsS http://127.0.0.1:2019/config/apps/http/servers/ingress/routes 2>&1) || { echo "Caddy's admin API did not answer: $routes"; return 0; }
  if [[ $1 == haproxy ]]; then
    haproxy_running || { echo "HAProxy is not running"; return 0; }
    grep -q "^$app_host [0-9]" "$SLIPWAY_HAPROXY_DIR/ingress.map" || { echo "HAProxy's map file holds no route of $app_host"; return 0; }
    [[ $routes != *"\"app-$app_id\""* ]] || { echo "Caddy still holds the app's route app-$app_id with HAProxy in front"; return 0; }
  else
    ! haproxy_running || { echo "HAProxy still runs"; return 0; }
    [[ $routes == *"\"app-$app_id\""* ]] || { echo "Caddy holds no route app-$app_id"; return 0; }
    [[ $(caddy_listen) == ":$SLIPWAY_INGRESS_HTTP_PORT" ]] || { echo "Caddy listens on $(caddy_listen), not :$SLIPWAY_INGRESS_HTTP_PORT"; return 0; }
  fi
  return 1
}

# Setup run again with the other SLIPWAY_INGRESS switches the ingress over (the app served, its route moved), and
# back with this one.
check_ingress_switch() {
  local other=caddy log=$work/setup-switch.log
  [[ $SLIPWAY_INGRESS == caddy ]] && other=haproxy
  for ingress in "$other" "$SLIPWAY_INGRESS"; do
    (cd "$repo" && SLIPWAY_INGRESS=$ingress bash deploy/setup.sh) >"$log" 2>&1 ||
      { tail -n 40 "$log" >&2; die "fresh check: deploy/setup.sh with SLIPWAY_INGRESS=$ingress failed (log: $log)"; }
    check_served "$ingress"
    say "fresh check: setup with SLIPWAY_INGRESS=$ingress switched the ingress; the app serves through it"
  done
}

if [[ ${1:-} == --inside ]]; then
  inside "$2"
else
  outside
fi
