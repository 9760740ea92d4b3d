#!/usr/bin/env bash
# Entrypoint of slipway/mariadb, compatible with the official mariadb image (and mysql's names):
#   MARIADB_ROOT_PASSWORD / MYSQL_ROOT_PASSWORD, MARIADB_ALLOW_EMPTY_ROOT_PASSWORD /
#   MYSQL_ALLOW_EMPTY_PASSWORD, MARIADB_RANDOM_ROOT_PASSWORD / MYSQL_RANDOM_ROOT_PASSWORD,
#   MARIADB_ROOT_HOST / MYSQL_ROOT_HOST ('%'), MARIADB_DATABASE / MYSQL_DATABASE,
#   MARIADB_USER / MYSQL_USER, MARIADB_PASSWORD / MYSQL_PASSWORD, MARIADB_INITDB_SKIP_TZINFO /
#   MYSQL_INITDB_SKIP_TZINFO, the *_FILE variant of each, and
#   /docker-entrypoint-initdb.d/*.sh|*.sql|*.sql.gz (run against MARIADB_DATABASE when set).
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

# mariadb_env NAME [DEFAULT]: MARIADB_NAME from MARIADB_NAME(_FILE), else MYSQL_NAME(_FILE).
mariadb_env() {
  local name="$1" def="${2:-}"
  file_env "MYSQL_$name" "$def"
  file_env "MARIADB_$name" "$(value_of "MYSQL_$name")"
}
value_of() { printf '%s' "${!1:-}"; }

want_help() {
  local arg
  for arg; do
    case "$arg" in -'?'|--help|--print-defaults|-V|--version) return 0 ;; esac
  done
  return 1
}

# A value of the server's configuration, as the server would read it with these arguments.
server_config() {
  local key="$1"; shift
  "$@" --verbose --help 2>/dev/null | awk -v key="$key" '$1 == key { print $2; exit }'
}

setup_env() {
  mariadb_env ROOT_PASSWORD
  mariadb_env ROOT_HOST '%'
  mariadb_env DATABASE
  mariadb_env USER
  mariadb_env PASSWORD
  mariadb_env RANDOM_ROOT_PASSWORD
  mariadb_env INITDB_SKIP_TZINFO
  # MySQL's name is MYSQL_ALLOW_EMPTY_PASSWORD.
  file_env MYSQL_ALLOW_EMPTY_PASSWORD
  file_env MARIADB_ALLOW_EMPTY_ROOT_PASSWORD "$MYSQL_ALLOW_EMPTY_PASSWORD"

  DATADIR="$(server_config datadir "$@")"
  SOCKET="$(server_config socket "$@")"
  DATADIR="${DATADIR:-/var/lib/mysql/}"
  SOCKET="${SOCKET:-/run/mysqld/mysqld.sock}"
  DATABASE_ALREADY_EXISTS=
  if [[ -d "$DATADIR/mysql" ]]; then DATABASE_ALREADY_EXISTS=true; fi
}

create_directories() {
  mkdir -p "$DATADIR" "$(dirname "$SOCKET")"
  if [[ "$(id -u)" == 0 ]]; then
    find "$DATADIR" \! -user mysql -exec chown mysql:mysql '{}' +
    chown mysql:mysql "$(dirname "$SOCKET")" || :
  fi
}

verify_minimum_env() {
  if [[ -z "$MARIADB_ROOT_PASSWORD" && -z "$MARIADB_ALLOW_EMPTY_ROOT_PASSWORD" && -z "$MARIADB_RANDOM_ROOT_PASSWORD" ]]; then
    error 'the database is not initialized and no root password option is set.
  Set one of MARIADB_ROOT_PASSWORD (or MYSQL_ROOT_PASSWORD), MARIADB_ALLOW_EMPTY_ROOT_PASSWORD,
  MARIADB_RANDOM_ROOT_PASSWORD.'
  fi
  if [[ -n "$MARIADB_USER" && "$MARIADB_USER" == root ]]; then
    error 'MARIADB_USER="root" is not allowed: use MARIADB_ROOT_PASSWORD for root.'
  fi
  if [[ -n "$MARIADB_USER" && -z "$MARIADB_PASSWORD" ]]; then
    error 'MARIADB_USER is set but MARIADB_PASSWORD (or MYSQL_PASSWORD) is not.'
  fi
}

# String literal body for SQL (the session has backslash escapes enabled).
sql_string() {
  local s="$1"
  s="${s//\\/\\\\}"
  s="${s//$'\n'/\\n}"
  s="${s//\'/\\\'}"
  printf '%s' "$s"
}
# Identifier body for backquotes.
sql_ident() { printf '%s' "${1//\`/\`\`}"; }

# Runs the mariadb client on the temporary server's socket as root. The root password travels in
# MYSQL_PWD (this process's environment only), never on a command line.
process_sql() {
  local pwd="$MARIADB_ROOT_PASSWORD"
  if [[ "${1:-}" == --no-root-password ]]; then pwd=; shift; fi
  MYSQL_PWD="$pwd" mariadb --protocol=socket --user=root --host=localhost --socket="$SOCKET" "$@"
}

temp_server_start() {
  "$@" --skip-networking --socket="$SOCKET" --default-time-zone=SYSTEM \
    --loose-wsrep-on=OFF --expire-logs-days=0 --skip-slave-start \
    --loose-innodb-buffer-pool-load-at-startup=0 &
  TEMP_SERVER_PID=$!
  local i
  for i in $(seq 60); do
    if process_sql --no-root-password --database=mysql <<< 'SELECT 1' &> /dev/null; then return 0; fi
    if ! kill -0 "$TEMP_SERVER_PID" 2> /dev/null; then error 'the temporary server exited during initialisation'; fi
    sleep 1
  done
  error 'the temporary server did not start in 60 seconds'
}

temp_server_stop() {
  kill "$TEMP_SERVER_PID"
  wait "$TEMP_SERVER_PID" || :
}

init_database_dir() {
  log 'initialising the database directory'
  # "${@:2}": server options given to the container also apply to the bootstrap.
  mariadb-install-db --datadir="$DATADIR" --rpm --auth-root-authentication-method=normal \
    --skip-test-db --default-time-zone=SYSTEM --skip-log-bin \
    --expire-logs-days=0 --loose-innodb-buffer-pool-load-at-startup=0 \
    --loose-innodb-buffer-pool-dump-at-shutdown=0 "${@:2}"
  log 'database directory initialised'
}

setup_db() {
  local root_pw root_host sql
  if [[ -n "$MARIADB_RANDOM_ROOT_PASSWORD" && -z "$MARIADB_ROOT_PASSWORD" ]]; then
    MARIADB_ROOT_PASSWORD="$(head -c 24 /dev/urandom | base64 | tr -d '/+=\n')"
    export MARIADB_ROOT_PASSWORD
    log "GENERATED ROOT PASSWORD: $MARIADB_ROOT_PASSWORD"
  fi

  if [[ -z "$MARIADB_INITDB_SKIP_TZINFO" && -d /usr/share/zoneinfo ]]; then
    # Time zone names for CONVERT_TZ() and time_zone; some files of tzdata are not zones.
    mariadb-tzinfo-to-sql --skip-write-binlog /usr/share/zoneinfo 2> /dev/null \
      | process_sql --no-root-password --database=mysql
  fi

  root_pw="$(sql_string "$MARIADB_ROOT_PASSWORD")"
  root_host="$(sql_string "$MARIADB_ROOT_HOST")"
  sql="SET @@SESSION.SQL_LOG_BIN=0;
SET @@SESSION.SQL_MODE=REPLACE(@@SESSION.SQL_MODE, 'NO_BACKSLASH_ESCAPES', '');
DROP USER IF EXISTS root@'127.0.0.1', root@'::1';
EXECUTE IMMEDIATE CONCAT('DROP USER IF EXISTS root@\\'', @@hostname, '\\'');
SET PASSWORD FOR 'root'@'localhost' = PASSWORD('$root_pw');"
  if [[ -n "$MARIADB_ROOT_HOST" && "$MARIADB_ROOT_HOST" != localhost ]]; then
    sql+="
CREATE USER 'root'@'$root_host' IDENTIFIED BY '$root_pw';
GRANT ALL ON *.* TO 'root'@'$root_host' WITH GRANT OPTION;
GRANT PROXY ON ''@'%' TO 'root'@'$root_host' WITH GRANT OPTION;"
  fi
  if [[ -n "$MARIADB_DATABASE" ]]; then
    log "creating database $MARIADB_DATABASE"
    sql+="
CREATE DATABASE IF NOT EXISTS \`$(sql_ident "$MARIADB_DATABASE")\`;"
  fi
  if [[ -n "$MARIADB_USER" ]]; then
    log "creating user $MARIADB_USER"
    local user pw
    user="$(sql_string "$MARIADB_USER")"
    pw="$(sql_string "$MARIADB_PASSWORD")"
    sql+="
CREATE USER '$user'@'%' IDENTIFIED BY '$pw';"
    if [[ -n "$MARIADB_DATABASE" ]]; then
      sql+="
GRANT ALL ON \`$(sql_ident "$MARIADB_DATABASE")\`.* TO '$user'@'%';"
    fi
  fi
  process_sql --no-root-password --database=mysql --binary-mode <<< "$sql"
}

process_init_files() {
  local f db_args=()
  if [[ -n "$MARIADB_DATABASE" ]]; then db_args=(--database="$MARIADB_DATABASE"); fi
  for f in /docker-entrypoint-initdb.d/*; do
    [[ -e "$f" ]] || continue
    case "$f" in
      *.sh)
        if [[ -x "$f" ]]; then log "running $f"; "$f"
        else log "sourcing $f"; # shellcheck disable=SC1090
          . "$f"; fi ;;
      *.sql) log "running $f"; process_sql "${db_args[@]}" < "$f" ;;
      *.sql.gz) log "running $f"; gunzip -c "$f" | process_sql "${db_args[@]}" ;;
      *) log "ignoring $f" ;;
    esac
  done
}

main() {
  # `docker run IMAGE --character-set-server=utf8mb4` passes options to the server.
  if [[ "${1:0:1}" == '-' ]]; then set -- mariadbd "$@"; fi

  if [[ "$1" == mariadbd || "$1" == mysqld ]] && ! want_help "$@"; then
    setup_env "$@"
    create_directories
    if [[ "$(id -u)" == 0 ]]; then
      # Drop root: run this script again as mysql.
      exec gosu mysql "${BASH_SOURCE[0]}" "$@"
    fi

    if [[ -z "$DATABASE_ALREADY_EXISTS" ]]; then
      verify_minimum_env
      # Fail early when the init folder cannot be read by this user.
      ls /docker-entrypoint-initdb.d/ > /dev/null
      init_database_dir "$@"
      log 'starting a temporary server'
      temp_server_start "$@"
      setup_db
      process_init_files
      log 'stopping the temporary server'
      temp_server_stop
      log 'MariaDB init process done; ready for start up.'
    else
      log 'MariaDB database directory appears to contain a database; skipping initialization.'
    fi
  fi

  exec "$@"
}

main "$@"
