# shellcheck shell=bash
# Extra servers on this one machine (issue 31): each in its own network namespace with its own address on a host
# bridge, its own Docker engine (data root, exec root, socket, bridge) and its own Caddy (with SLIPWAY_INGRESS=haproxy,
# its own HAProxy in front of it). The agent is started by
# the caller (deploy/fleet.sh for people, @slipway/testing/fleet for tests) under `nsenter --net=…`.
# Addresses come from 198.18.0.0/15 (RFC 2544, benchmarking) only: never a LAN range.
#   bridge slwfleet0   198.18.0.1/24 on the host (the control plane's address for the servers)
#   server i (1..200)  198.18.0.<10+i>/24 in namespace slw-f<i>, veth slwf<i>h (host) <-> eth0 (namespace)
#   its docker0        198.19.<i>.1/24, its address pool 198.19.<64+i>... is not needed: workspace networks
#                      use the agent's own range inside the namespace, which no other engine sees.
# Every function is idempotent and fleet_server_down / fleet_down clean up after a crashed run too.

FLEET_BRIDGE=slwfleet0
FLEET_HOST_ADDRESS=198.18.0.1
FLEET_ROOT=${SLIPWAY_FLEET_ROOT:-/var/lib/slipway-fleet}
FLEET_RUN=${SLIPWAY_FLEET_RUN:-/run/slipway-fleet}

fleet_ns() { echo "slw-f$1"; }
fleet_address() { echo "198.18.0.$((10 + $1))"; }
fleet_in() { local i=$1; shift; nsenter --net="/run/netns/$(fleet_ns "$i")" "$@"; }
fleet_alive() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

fleet_check_index() {
  [[ $1 =~ ^[0-9]+$ ]] && (($1 >= 1 && $1 <= 200)) || { echo "server index must be 1..200, not '$1'" >&2; return 2; }
}

fleet_net_up() {
  if ! ip link show "$FLEET_BRIDGE" >/dev/null 2>&1; then
    ip link add "$FLEET_BRIDGE" type bridge
    ip addr add "$FLEET_HOST_ADDRESS/24" dev "$FLEET_BRIDGE"
  fi
  ip link set "$FLEET_BRIDGE" up
  # Docker's FORWARD policy is DROP and bridged packets pass through it (br_netfilter): let the servers talk to
  # each other (one server's ingress proxies to another's), and nothing else.
  local chain=FORWARD
  iptables -n -L DOCKER-USER >/dev/null 2>&1 && chain=DOCKER-USER
  iptables -C "$chain" -s 198.18.0.0/24 -d 198.18.0.0/24 -j ACCEPT 2>/dev/null ||
    iptables -I "$chain" -s 198.18.0.0/24 -d 198.18.0.0/24 -j ACCEPT
}

fleet_net_down() {
  local chain
  for chain in DOCKER-USER FORWARD; do
    while iptables -C "$chain" -s 198.18.0.0/24 -d 198.18.0.0/24 -j ACCEPT 2>/dev/null; do
      iptables -D "$chain" -s 198.18.0.0/24 -d 198.18.0.0/24 -j ACCEPT
    done
  done
  ip link del "$FLEET_BRIDGE" 2>/dev/null || true
}

# fleet_server_up INDEX: namespace, veth, engine and Caddy of server INDEX (the agent is the caller's).
fleet_server_up() {
  local i=$1
  fleet_check_index "$i" || return 2
  local ns root run addr
  ns=$(fleet_ns "$i") root="$FLEET_ROOT/$i" run="$FLEET_RUN/$i" addr=$(fleet_address "$i")
  fleet_net_up
  mkdir -p "$root/docker" "$root/caddy" "$root/agent" "$run" "$run/exec"
  if [[ ! -e /run/netns/$ns ]]; then ip netns add "$ns"; fi
  if ! ip link show "slwf${i}h" >/dev/null 2>&1; then
    ip link add "slwf${i}h" type veth peer name "slwf${i}n"
    ip link set "slwf${i}n" netns "$ns"
    fleet_in "$i" ip link set "slwf${i}n" name eth0
  fi
  ip link set "slwf${i}h" master "$FLEET_BRIDGE" up
  fleet_in "$i" ip link set lo up
  fleet_in "$i" ip link set eth0 up
  fleet_in "$i" ip addr replace "$addr/24" dev eth0
  fleet_in "$i" ip route replace default via "$FLEET_HOST_ADDRESS"

  # The engine: its own config file (the host's /etc/docker/daemon.json is not read), socket, roots and bridge.
  if ! fleet_alive "$run/docker.pid"; then
    cat >"$run/daemon.json" <<JSON
{ "userland-proxy": false, "bip": "198.19.$i.1/24" }
JSON
    setsid nsenter --net="/run/netns/$ns" dockerd --config-file "$run/daemon.json" -H "unix://$run/docker.sock" \
      --data-root "$root/docker" --exec-root "$run/exec" --pidfile "$run/docker.pid" --cgroup-parent "/slipway-fleet-$i" \
      </dev/null >"$run/dockerd.log" 2>&1 &
  fi
  local deadline=$((SECONDS + 60))
  until docker -H "unix://$run/docker.sock" version >/dev/null 2>&1; do
    ((SECONDS < deadline)) || { echo "server $i: its Docker engine did not start (see $run/dockerd.log)" >&2; return 1; }
    sleep 0.3
  done

  # Its Caddy: admin API on the namespace's own loopback (127.0.0.1:2019 there is not the host's), ingress on :80,
  # its storage (certificates) under the server's root.
  ingress_handover "$ns"
  if ! fleet_alive "$run/caddy.pid"; then
    SLIPWAY_INGRESS_HTTP_PORT=80 caddy_bootstrap "$run/caddy.json"
    XDG_DATA_HOME="$root/caddy/data" XDG_CONFIG_HOME="$root/caddy/config" HOME="$root/caddy" \
      setsid nsenter --net="/run/netns/$ns" caddy run --config "$run/caddy.json" --pidfile "$run/caddy.pid" \
      </dev/null >"$run/caddy.log" 2>&1 &
  fi
  deadline=$((SECONDS + 30))
  until fleet_in "$i" curl -fsS -o /dev/null http://127.0.0.1:2019/config/ 2>/dev/null; do
    ((SECONDS < deadline)) || { echo "server $i: its Caddy did not start (see $run/caddy.log)" >&2; return 1; }
    sleep 0.2
  done

  # SLIPWAY_INGRESS=haproxy: its HAProxy on :80 in front of that Caddy (decision 0040), the map under the server's root
  # (the agent's SLIPWAY_HAPROXY_DIR: fleet_haproxy_dir INDEX).
  if [[ $SLIPWAY_INGRESS == haproxy ]] && ! fleet_alive "$run/haproxy.pid"; then
    local dir
    dir=$(fleet_haproxy_dir "$i")
    mkdir -p "$dir"
    [[ -f $dir/ingress.map ]] || : >"$dir/ingress.map"
    # shellcheck disable=SC2046 # one word per variable
    env $(haproxy_env "$dir" 80 "127.0.0.1:$SLIPWAY_CADDY_INTERNAL_HTTP_PORT") \
      nsenter --net="/run/netns/$ns" haproxy -W -D -p "$run/haproxy.pid" -f "$REPO_ROOT/deploy/haproxy/haproxy.cfg" \
      </dev/null >"$run/haproxy.log" 2>&1 || { echo "server $i: its HAProxy did not start (see $run/haproxy.log)" >&2; return 1; }
    deadline=$((SECONDS + 15))
    until [[ -S $dir/admin.sock ]]; do
      ((SECONDS < deadline)) || { echo "server $i: its HAProxy's admin socket did not appear (see $run/haproxy.log)" >&2; return 1; }
      sleep 0.1
    done
  fi
}

fleet_haproxy_dir() { echo "$FLEET_ROOT/$1/haproxy"; }

# fleet_load_images INDEX IMAGE...: copies images from the host's engine into server INDEX's (skips those it has).
fleet_load_images() {
  local i=$1
  shift
  local sock="unix://$FLEET_RUN/$i/docker.sock" missing=() image
  for image in "$@"; do
    docker -H "$sock" image inspect "$image" >/dev/null 2>&1 || missing+=("$image")
  done
  if ((${#missing[@]})); then docker save "${missing[@]}" | docker -H "$sock" load -q >/dev/null; fi
}

fleet_stop_pid() {
  local file=$1 seconds=${2:-20}
  [[ -f $file ]] || return 0
  local pid
  pid=$(cat "$file")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + seconds))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

# fleet_server_down INDEX: the agent, Caddy and engine stopped (by their pid files), mounts under the server's
# roots unmounted, namespace, veth and roots removed. Safe on a half-made or crashed server.
fleet_server_down() {
  local i=$1
  fleet_check_index "$i" || return 2
  local root="$FLEET_ROOT/$i" run="$FLEET_RUN/$i" ns
  ns=$(fleet_ns "$i")
  fleet_stop_pid "$run/agent.pid" 10
  # The engine stops its containers itself (it is not live-restore).
  if [[ -S $run/docker.sock ]] && fleet_alive "$run/docker.pid"; then
    docker -H "unix://$run/docker.sock" ps -aq 2>/dev/null | xargs -r docker -H "unix://$run/docker.sock" rm -f >/dev/null 2>&1 || true
  fi
  fleet_stop_pid "$run/docker.pid" 30
  fleet_stop_pid "$run/caddy.pid" 10
  fleet_stop_pid "$run/haproxy.pid" 10
  # Whatever is still mounted below the roots (project folders' loop mounts, overlay layers, netns files), deepest first.
  local m
  for m in $(awk -v a="$root/" -v b="$run/" 'index($2, a) == 1 || index($2, b) == 1 { print $2 }' /proc/self/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  # Project folders are ext4 files on loop devices, their mount points immutable while unmounted (apps/agent/src/storage).
  local dev file
  while read -r dev file; do
    [[ $file == "$root/"* ]] && losetup -d "$dev" 2>/dev/null || true
  done < <(losetup -l -n -O NAME,BACK-FILE 2>/dev/null)
  if [[ -d $root ]]; then find "$root" -maxdepth 4 -type d -path '*/volumes/*' -exec chattr -i {} + 2>/dev/null || true; fi
  ip link del "slwf${i}h" 2>/dev/null || true
  if [[ -e /run/netns/$ns ]]; then ip netns del "$ns" 2>/dev/null || true; fi
  rm -rf "$root" "$run"
}

fleet_indexes() {
  local f
  for f in /run/netns/slw-f*; do [[ -e $f ]] && echo "${f##*/slw-f}"; done
  local d
  for d in "$FLEET_RUN" "$FLEET_ROOT"; do
    if [[ -d $d ]]; then ls "$d"; fi
  done
}

# fleet_down: every server of the fleet, then the bridge and its firewall rule.
fleet_down() {
  local i
  for i in $(fleet_indexes | sort -un); do
    [[ $i =~ ^[0-9]+$ ]] && fleet_server_down "$i"
  done
  fleet_net_down
  rm -rf "$FLEET_ROOT" "$FLEET_RUN"
}
