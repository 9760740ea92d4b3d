# shellcheck shell=bash
# systemd units for the platform's processes, installed by deploy/setup.sh on a server where systemd is
# PID 1: slipway-api, slipway-worker, slipway-agent, each the compiled bundle on the platform's Node,
# restarted always (1 s apart, never given up on), ordered after the services it talks to, logging to
# the journal (`journalctl -u slipway-api`). Enabled, so a reboot brings everything back. The ingress too
# (install_ingress_units, from services.sh's start_caddy): slipway-caddy (Caddy from setup's bootstrap config, in place
# of Debian's caddy.service and its Caddyfile) and, with SLIPWAY_INGRESS=haproxy, slipway-haproxy in front of it.
# Needs services.sh (REPO_ROOT, SLIPWAY_NODE_DIR, say) and, for install_units, ENV_FILE.

# unit_text NAME DESCRIPTION AFTER COMMAND...
unit_text() {
  local name=$1 description=$2 after=$3
  shift 3
  cat <<UNIT
# Written by deploy/setup.sh; setup rewrites it. Local changes belong in a drop-in (systemctl edit slipway-$name).
[Unit]
Description=$description
After=network-online.target $after
Wants=network-online.target $after
StartLimitIntervalSec=0

[Service]
Type=simple
EnvironmentFile=$ENV_FILE
Environment=PATH=$SLIPWAY_NODE_DIR/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
WorkingDirectory=$REPO_ROOT
ExecStart=$*
Restart=always
RestartSec=1
KillSignal=SIGTERM
TimeoutStopSec=15
StandardOutput=journal
StandardError=journal
SyslogIdentifier=slipway-$name

[Install]
WantedBy=multi-user.target
UNIT
}

# install_units: writes the three units when they differ from what is installed, reloads and enables them.
install_units() {
  local node="$SLIPWAY_NODE_DIR/bin/node ${SLIPWAY_NODE_FLAGS[*]}" changed=0 name text file
  declare -A texts=(
    [api]=$(unit_text api 'Slipway API (control plane)' 'postgresql.service redis-server.service' "$node" "$REPO_ROOT/apps/api/dist/main.js")
    [worker]=$(unit_text worker 'Slipway workers' 'postgresql.service redis-server.service slipway-api.service' "$node" "$REPO_ROOT/apps/worker/dist/main.js")
    [agent]=$(unit_text agent 'Slipway agent (Docker, the ingress, files of this server)' "docker.service slipway-caddy.service$([[ $SLIPWAY_INGRESS == haproxy ]] && echo ' slipway-haproxy.service')" /usr/bin/env "${SLIPWAY_AGENT_ENV[@]}" "$node" "$REPO_ROOT/apps/agent/dist/main.js" run)
  )
  for name in api worker agent; do
    file=/etc/systemd/system/slipway-$name.service
    text=${texts[$name]}
    if [[ ! -f $file || $(<"$file") != "$text" ]]; then
      printf '%s\n' "$text" >"$file"
      changed=1
    fi
  done
  if ((changed)); then
    say "installing systemd units slipway-api, slipway-worker, slipway-agent"
    systemctl daemon-reload
  fi
  for name in api worker agent; do
    systemctl is-enabled -q "slipway-$name" 2>/dev/null || systemctl enable -q "slipway-$name"
  done
}

# write_unit NAME TEXT: /etc/systemd/system/NAME.service when it differs; succeeds when it wrote it.
write_unit() {
  local file=/etc/systemd/system/$1.service
  [[ -f $file && $(<"$file") == "$2" ]] && return 1
  printf '%s\n' "$2" >"$file"
}

caddy_unit_text() {
  cat <<UNIT
# Written by deploy/setup.sh; setup rewrites it. The ingress's Caddy (decision 0040): TLS, certificates, custom domains,
# the mesh listener, and with HAProxy in front its internal HTTP listener. It starts from setup's bootstrap config
# ($SLIPWAY_CADDY_CONFIG); the agent's watchdog puts its routes back within seconds.
[Unit]
Description=Slipway ingress: Caddy
After=network-online.target
Wants=network-online.target
Conflicts=caddy.service
StartLimitIntervalSec=0

[Service]
Type=notify
Environment=HOME=${HOME:-/root}
ExecStart=$(command -v caddy) run --environ --config $SLIPWAY_CADDY_CONFIG
Restart=always
RestartSec=1
TimeoutStopSec=10
LimitNOFILE=1048576

[Install]
WantedBy=multi-user.target
UNIT
}

haproxy_unit_text() {
  local haproxy config=$REPO_ROOT/deploy/haproxy/haproxy.cfg
  haproxy=$(command -v haproxy)
  cat <<UNIT
# Written by deploy/setup.sh; setup rewrites it. The ingress (decision 0040): HAProxy on the ingress port, the app routes
# in its map ($SLIPWAY_HAPROXY_DIR/ingress.map, loaded at start, changed at runtime by the agent), Caddy behind it.
[Unit]
Description=Slipway ingress: HAProxy (app routes)
After=network-online.target slipway-caddy.service
Wants=network-online.target
StartLimitIntervalSec=0

[Service]
Type=notify
Environment=SLIPWAY_HAPROXY_DIR=$SLIPWAY_HAPROXY_DIR "SLIPWAY_INGRESS_HTTP_ADDRESS=" SLIPWAY_INGRESS_HTTP_PORT=$SLIPWAY_INGRESS_HTTP_PORT SLIPWAY_CADDY_HTTP_ADDRESS=127.0.0.1:$SLIPWAY_CADDY_INTERNAL_HTTP_PORT SLIPWAY_HAPROXY_THREADS=$SLIPWAY_HAPROXY_THREADS
ExecStartPre=/bin/mkdir -p $SLIPWAY_HAPROXY_DIR
ExecStartPre=/usr/bin/touch $SLIPWAY_HAPROXY_DIR/ingress.map
ExecStartPre=$haproxy -c -q -f $config
ExecStart=$haproxy -Ws -f $config -p /run/slipway-haproxy.pid
ExecReload=$haproxy -c -q -f $config
ExecReload=/bin/kill -USR2 \$MAINPID
KillMode=mixed
Restart=always
RestartSec=1

[Install]
WantedBy=multi-user.target
UNIT
}

# install_ingress_units: Caddy's bootstrap config and the ingress's units written; Debian's caddy.service (its
# Caddyfile on :80) replaced by slipway-caddy, which is started when not running. slipway-haproxy is enabled and
# started by start_haproxy, disabled by stop_haproxy.
install_ingress_units() {
  local changed=0 tmp
  mkdir -p "$(dirname "$SLIPWAY_CADDY_CONFIG")"
  tmp=$(mktemp)
  caddy_bootstrap "$tmp"
  if [[ ! -f $SLIPWAY_CADDY_CONFIG ]] || ! cmp -s "$tmp" "$SLIPWAY_CADDY_CONFIG"; then mv "$tmp" "$SLIPWAY_CADDY_CONFIG"; else rm -f "$tmp"; fi
  chmod 644 "$SLIPWAY_CADDY_CONFIG"
  write_unit slipway-caddy "$(caddy_unit_text)" && changed=1
  write_unit slipway-haproxy "$(haproxy_unit_text)" && changed=1
  if ((changed)); then
    say "installing systemd units slipway-caddy, slipway-haproxy (the ingress)"
    systemctl daemon-reload
  fi
  if systemctl is-enabled -q caddy.service 2>/dev/null || systemctl is-active -q caddy.service 2>/dev/null; then
    say "Debian's caddy.service (its Caddyfile) is replaced by slipway-caddy"
    systemctl disable -q --now caddy.service || true
  fi
  systemctl is-enabled -q slipway-caddy 2>/dev/null || systemctl enable -q slipway-caddy
  if ! systemctl is-active -q slipway-caddy; then
    # A Caddy started outside systemd by an older setup: stopped (the agent puts its routes back into the new one).
    curl -fsS -X POST http://127.0.0.1:2019/stop >/dev/null 2>&1 && sleep 1
    say "starting Caddy (systemd unit slipway-caddy, admin API on 127.0.0.1:2019)"
    systemctl start slipway-caddy || die "Caddy did not start (journalctl -u slipway-caddy)"
    wait_for 15 Caddy curl -fsS http://127.0.0.1:2019/config/
  fi
}
