# shellcheck shell=bash
# systemd units for the platform's processes, installed by deploy/setup.sh on a server where systemd is
# PID 1: slipway-api, slipway-worker, slipway-agent, each the compiled bundle on the platform's Node,
# restarted always (1 s apart, never given up on), ordered after the services it talks to, logging to
# the journal (`journalctl -u slipway-api`). Enabled, so a reboot brings everything back.
# Needs services.sh (REPO_ROOT, SLIPWAY_NODE_DIR, say) and ENV_FILE.

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
    [agent]=$(unit_text agent 'Slipway agent (Docker, Caddy, files of this server)' 'docker.service caddy.service' "$node" "$REPO_ROOT/apps/agent/dist/main.js" run)
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
