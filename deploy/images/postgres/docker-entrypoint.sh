#!/usr/bin/env bash
# Entrypoint of slipway/postgres, compatible with the official postgres image for:
#   POSTGRES_PASSWORD (required unless POSTGRES_HOST_AUTH_METHOD=trust), POSTGRES_USER (postgres),
#   POSTGRES_DB (= user), POSTGRES_INITDB_ARGS, POSTGRES_HOST_AUTH_METHOD (scram-sha-256),
#   the *_FILE variants of the first four, PGDATA, and /docker-entrypoint-initdb.d/*.sh|*.sql|*.sql.gz.
set -Eeo pipefail

log() { printf '%s [entrypoint] %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" "$*"; }
error() { log "error: $*" >&2; exit 1; }

# file_env VAR [DEFAULT]: VAR from VAR or from the file named by VAR_FILE.
file_env() {
  local var="$1" file_var="${1}_FILE" def="${2:-}" val
  if [[ -n "${!var:-}" && -n "${!file_var:-}" ]]; then error "both $var and $file_var are set"; fi
  val="$def"
  if [[ -n "${!var:-}" ]]; then
    val="${!var}"
  elif [[ -n "${!file_var:-}" ]]; then
    val="$(< "${!file_var}")"
  fi
  export "$var"="$val"
  unset "$file_var"
}

# True when the arguments only ask postgres for help or its version.
want_help() {
  local arg
  for arg; do
    case "$arg" in -'?'|--help|--describe-config|-V|--version) return 0 ;; esac
  done
  return 1
}

setup_env() {
  file_env POSTGRES_PASSWORD
  file_env POSTGRES_USER postgres
  file_env POSTGRES_DB "$POSTGRES_USER"
  file_env POSTGRES_INITDB_ARGS
  export POSTGRES_HOST_AUTH_METHOD="${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}"
  DATABASE_ALREADY_EXISTS=
  if [[ -s "$PGDATA/PG_VERSION" ]]; then DATABASE_ALREADY_EXISTS=true; fi
}

create_directories() {
  mkdir -p "$PGDATA"
  chmod 00700 "$PGDATA" || :
  mkdir -p /var/run/postgresql || :
  chmod 03775 /var/run/postgresql || :
  if [[ "$(id -u)" == 0 ]]; then
    find "$PGDATA" \! -user postgres -exec chown postgres:postgres '{}' +
    find /var/run/postgresql \! -user postgres -exec chown postgres:postgres '{}' +
  fi
}

verify_minimum_env() {
  if [[ -z "$POSTGRES_PASSWORD" && "$POSTGRES_HOST_AUTH_METHOD" != trust ]]; then
    error 'the database is not initialized and no superuser password is set.
  Set POSTGRES_PASSWORD (or POSTGRES_PASSWORD_FILE) to a non-empty value, or
  POSTGRES_HOST_AUTH_METHOD=trust to allow every connection without a password (not recommended).'
  fi
  if [[ "${#POSTGRES_PASSWORD}" -gt 100 ]]; then
    log 'warning: POSTGRES_PASSWORD is longer than 100 characters; it may be cut by some clients' >&2
  fi
}

init_database_dir() {
  local extra=()
  # POSTGRES_INITDB_ARGS is split on whitespace (no quoting, no shell evaluation).
  if [[ -n "$POSTGRES_INITDB_ARGS" ]]; then read -r -a extra <<< "$POSTGRES_INITDB_ARGS"; fi
  if [[ -n "$POSTGRES_PASSWORD" ]]; then
    initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
      --auth-local=trust --auth-host="$POSTGRES_HOST_AUTH_METHOD" "${extra[@]}"
  else
    initdb --username="$POSTGRES_USER" \
      --auth-local=trust --auth-host="$POSTGRES_HOST_AUTH_METHOD" "${extra[@]}"
  fi
  # Connections from other containers: the same method as the loopback lines initdb wrote.
  printf '\n# Added by the entrypoint: every other host.\nhost all all all %s\n' \
    "$POSTGRES_HOST_AUTH_METHOD" >> "$PGDATA/pg_hba.conf"
}

psql_init() {
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc "$@"
}

temp_server_start() {
  # Unix socket only: nothing outside the container can connect during initialisation.
  PGUSER="$POSTGRES_USER" pg_ctl -D "$PGDATA" -w \
    -o "-c listen_addresses='' -p ${PGPORT:-5432}" start
}

temp_server_stop() {
  PGUSER="$POSTGRES_USER" pg_ctl -D "$PGDATA" -m fast -w stop
}

setup_database() {
  if [[ "$POSTGRES_DB" != postgres ]]; then
    local exists
    exists="$(psql_init --dbname postgres --set db="$POSTGRES_DB" --tuples-only --no-align \
      <<< "SELECT 1 FROM pg_database WHERE datname = :'db';")"
    if [[ -z "$exists" ]]; then
      psql_init --dbname postgres --set db="$POSTGRES_DB" <<< 'CREATE DATABASE :"db";'
    fi
  fi
}

process_init_files() {
  local f
  for f in /docker-entrypoint-initdb.d/*; do
    [[ -e "$f" ]] || continue
    case "$f" in
      *.sh)
        if [[ -x "$f" ]]; then log "running $f"; "$f"
        else log "sourcing $f"; # shellcheck disable=SC1090
          . "$f"; fi ;;
      *.sql) log "running $f"; psql_init --dbname "$POSTGRES_DB" -f "$f" ;;
      *.sql.gz) log "running $f"; gunzip -c "$f" | psql_init --dbname "$POSTGRES_DB" ;;
      *) log "ignoring $f" ;;
    esac
  done
}

main() {
  # `docker run IMAGE -c shared_buffers=256MB` passes options to postgres.
  if [[ "${1:0:1}" == '-' ]]; then set -- postgres "$@"; fi

  if [[ "$1" == postgres ]] && ! want_help "$@"; then
    setup_env
    create_directories
    if [[ "$(id -u)" == 0 ]]; then
      # Drop root: run this script again as postgres.
      exec gosu postgres "${BASH_SOURCE[0]}" "$@"
    fi

    if [[ -z "$DATABASE_ALREADY_EXISTS" ]]; then
      verify_minimum_env
      # Fail early when the init folder cannot be read by this user.
      ls /docker-entrypoint-initdb.d/ > /dev/null
      init_database_dir
      export PGPASSWORD="${PGPASSWORD:-$POSTGRES_PASSWORD}"
      temp_server_start
      setup_database
      process_init_files
      temp_server_stop
      unset PGPASSWORD
      log 'PostgreSQL init process complete; ready for start up.'
    else
      log 'PostgreSQL database directory appears to contain a database; skipping initialization.'
    fi
  fi

  exec "$@"
}

main "$@"
