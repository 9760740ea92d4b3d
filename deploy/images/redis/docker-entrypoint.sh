#!/bin/sh
# Entrypoint of slipway/redis, compatible with the official redis image:
#   `docker run IMAGE --appendonly yes` and `docker run IMAGE /path/redis.conf` run redis-server;
#   redis-server runs as the redis user in /data (files there are given to redis first).
# The official image's redis-server is built with protected mode off (the container's network is
# the boundary); Debian's is not, so `--protected-mode no` is added unless the command names a
# config file or sets --protected-mode itself.
set -e

# First argument is an option (-x / --x) or a config file: the command is redis-server.
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi

if [ "$1" = redis-server ]; then
  case "${2:-}" in
    ''|--*)
      has_protected_mode=
      for arg; do
        if [ "$arg" = --protected-mode ]; then has_protected_mode=1; fi
      done
      if [ -z "$has_protected_mode" ]; then
        shift
        set -- redis-server --protected-mode no "$@"
      fi
      ;;
  esac

  if [ "$(id -u)" = 0 ]; then
    # Drop root: run this script again as redis.
    find . \! -user redis -exec chown redis '{}' +
    exec gosu redis "$0" "$@"
  fi
fi

# Files redis writes (dump.rdb, appendonly) are private unless a umask was chosen.
if [ "$(umask)" = 0022 ]; then
  umask 0077
fi

exec "$@"
