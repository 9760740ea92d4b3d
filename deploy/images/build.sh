#!/usr/bin/env bash
# Builds Slipway's local base images from Debian packages (no container registry needed).
#
#   deploy/images/build.sh                 # base + every image
#   deploy/images/build.sh node redis      # base + the named images only (node: every major)
#   deploy/images/build.sh node:24         # base + slipway/node:24 and slipway/node-build:24 only
#   deploy/images/build.sh debian          # the base only
#   SLIPWAY_IMAGES_FORCE=1 deploy/images/build.sh postgres   # rebuild even when up to date
#
# Environment:
#   SLIPWAY_IMAGES_FORCE=1           rebuild the named images even when up to date; the base too
#                                    when no image is named or `debian` is (then all images follow)
#   SLIPWAY_IMAGES_VERBOSE=1         stream build output to stderr (default: only shown on failure)
#   SLIPWAY_DEBIAN_MIRROR            Debian mirror (default http://deb.debian.org/debian)
#   SLIPWAY_DEBIAN_SECURITY_MIRROR   security mirror (default http://deb.debian.org/debian-security)
#   SLIPWAY_NPM_REGISTRY             where the Node.js tarballs come from (default https://registry.npmjs.org)
#   SLIPWAY_IMAGES_CACHE             where fetched tarballs are kept (default /var/cache/slipway/images)
#
# An image is rebuilt only when its label `slipway.image.hash` differs from the hash of its folder
# (file names, executable bits and contents) combined with the id of the base image. See README.md.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export LC_ALL=C

BASE_NAME=debian
BASE_TAG=slipway/debian:bookworm
SUITE=bookworm
MIRROR="${SLIPWAY_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SECURITY_MIRROR="${SLIPWAY_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
DEBOOTSTRAP_ARGS=(--variant=minbase --include=ca-certificates "$SUITE")
HASH_LABEL=slipway.image.hash

# Build order and tags. The folder deploy/images/<name>/ holds the Dockerfile and its files.
IMAGES=(node python static postgres mariadb redis)
declare -A TAGS=(
  [node]=slipway/node
  [python]=slipway/python:3.11
  [static]=slipway/static:2
  [postgres]=slipway/postgres:15
  [mariadb]=slipway/mariadb:10.11
  [redis]=slipway/redis:7.0
)

VERBOSE="${SLIPWAY_IMAGES_VERBOSE:-0}"
NPM_REGISTRY="${SLIPWAY_NPM_REGISTRY:-https://registry.npmjs.org}"
CACHE_DIR="${SLIPWAY_IMAGES_CACHE:-/var/cache/slipway/images}"

# Node.js majors and their releases, from node/versions (`package node <version> <arch> <integrity>` lines).
NODE_MAJORS=()
declare -A NODE_RELEASE=()
while read -r kind name version _arch _integrity; do
  [[ "$kind" == package && "$name" == node ]] || continue
  major="${version%%.*}"
  if [[ -z "${NODE_RELEASE[$major]:-}" ]]; then NODE_MAJORS+=("$major"); NODE_RELEASE[$major]="$version"; fi
done < "$HERE/node/versions"

die() { printf 'build.sh: %s\n' "$*" >&2; exit 1; }

usage() {
  local names=("$BASE_NAME" "${IMAGES[@]}")
  printf 'usage: %s [%s ...]\n' "$0" "$(IFS='|'; printf '%s' "${names[*]}")" >&2
  exit 2
}

# --- arguments -----------------------------------------------------------------------------------
selected=()
base_named=
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage ;;
    "$BASE_NAME"|"$BASE_TAG") base_named=1; continue ;;   # the base is always checked anyway
  esac
  # node:<major> (or slipway/node:<major>, slipway/node-build:<major>): that major only.
  if [[ "$arg" =~ ^(slipway/)?node(-build)?:([0-9]+)$ ]]; then
    major="${BASH_REMATCH[3]}"
    [[ -n "${NODE_RELEASE[$major]:-}" ]] || { printf 'build.sh: no Node.js %s in node/versions (has %s)\n' "$major" "${NODE_MAJORS[*]}" >&2; exit 2; }
    selected+=("node:$major")
    continue
  fi
  found=
  for name in "${IMAGES[@]}"; do
    if [[ "$arg" == "$name" || "$arg" == "${TAGS[$name]}" ]]; then found=$name; break; fi
  done
  [[ -n "$found" ]] || { printf 'build.sh: unknown image: %s\n' "$arg" >&2; usage; }
  selected+=("$found")
done
if [[ $# -eq 0 ]]; then selected=("${IMAGES[@]}"); fi
# `node` means every major.
expanded=()
for name in "${selected[@]}"; do
  if [[ "$name" == node ]]; then for major in "${NODE_MAJORS[@]}"; do expanded+=("node:$major"); done
  else expanded+=("$name"); fi
done
selected=("${expanded[@]}")

# SLIPWAY_IMAGES_FORCE=1 rebuilds the named images; the base only when it is named or no image is
# (a new base makes every other image out of date).
FORCE="${SLIPWAY_IMAGES_FORCE:-0}"
FORCE_BASE=0
if [[ "$FORCE" == 1 && ( $# -eq 0 || -n "$base_named" ) ]]; then FORCE_BASE=1; fi

# --- prerequisites -------------------------------------------------------------------------------
command -v docker >/dev/null || die 'docker is not installed'
docker info >/dev/null 2>&1 || die 'the Docker engine is not reachable (is dockerd running?)'
# The Docker CLI wants the buildx plugin when BuildKit is on; without it use the classic builder.
if ! docker buildx version >/dev/null 2>&1; then export DOCKER_BUILDKIT=0; fi

# One build at a time on this machine (CI jobs and people may call the script concurrently).
LOCK_FILE="${TMPDIR:-/tmp}/slipway-images-build.lock"
exec 9>"$LOCK_FILE"
flock 9

# --- helpers -------------------------------------------------------------------------------------

# Hash of a folder: every file's relative path, executable bit and content (symlinks by their
# target). Only the executable bit counts, as git keeps no other mode bits.
hash_dir() {
  local dir="$1" path
  (
    cd "$dir"
    find . \( -type f -o -type l \) -print0 | sort -z | while IFS= read -r -d '' path; do
      if [[ -L "$path" ]]; then
        printf 'l %s %s\n' "$path" "$(readlink "$path")"
      else
        printf 'f %s %s %s\n' "$path" "$([[ -x "$path" ]] && echo x || echo -)" \
          "$(sha256sum < "$path" | cut -d' ' -f1)"
      fi
    done
  ) | sha256sum | cut -d' ' -f1
}

image_id() { docker image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
image_hash() {
  docker image inspect --format "{{ index .Config.Labels \"$HASH_LABEL\" }}" "$1" 2>/dev/null || true
}

# Runs a build step with its output in a log; the log is shown when the step fails.
run_logged() {
  local log="$1"; shift
  if [[ "$VERBOSE" == 1 ]]; then
    "$@" 2>&1 | tee "$log" >&2
  else
    "$@" >"$log" 2>&1
  fi
}

fail_with_log() {
  local what="$1" log="$2"
  printf 'build.sh: %s failed; last lines of %s:\n' "$what" "$log" >&2
  tail -n 60 "$log" >&2 || true
  exit 1
}

# Removes an image replaced by a rebuild (ignored when something still uses it).
drop_old() {
  local old="$1" new="$2"
  if [[ -n "$old" && "$old" != "$new" ]]; then docker rmi "$old" >/dev/null 2>&1 || true; fi
}

LOG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/slipway-images-logs.XXXXXX")"
ROOTFS_DIR=
# Removes the debootstrap tree. debootstrap mounts /proc and /sys inside the target while it runs;
# never delete through a mount.
cleanup_rootfs() {
  local dir="$ROOTFS_DIR" mnt
  [[ -n "$dir" && -d "$dir" ]] || return 0
  while read -r mnt; do umount -l "$mnt" 2>/dev/null || true; done \
    < <(awk -v p="$dir/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r)
  rm -rf --one-file-system "$dir"
  ROOTFS_DIR=
}
cleanup() {
  cleanup_rootfs
  rm -rf "$LOG_DIR"
}
trap cleanup EXIT

# --- base image ----------------------------------------------------------------------------------
# Recipe hash: the files laid over the debootstrap tree, the debootstrap arguments and this
# function's own steps (bump BASE_RECIPE when changing them).
BASE_RECIPE=1
base_hash() {
  printf '%s\n' "recipe=$BASE_RECIPE" "${DEBOOTSTRAP_ARGS[*]}" "$(hash_dir "$HERE/debian")" \
    | sha256sum | cut -d' ' -f1
}

import_rootfs() {
  tar -C "$1" --numeric-owner -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' \
    --change "LABEL $HASH_LABEL=$2" \
    --message "debootstrap ${DEBOOTSTRAP_ARGS[*]} $MIRROR" \
    - "$BASE_TAG"
}

build_base() {
  local want old log root
  want="$(base_hash)"
  old="$(image_id "$BASE_TAG")"
  if [[ "$FORCE_BASE" != 1 && -n "$old" && "$(image_hash "$BASE_TAG")" == "$want" ]]; then
    printf '%s: up to date\n' "$BASE_TAG"
    return
  fi
  [[ "$(id -u)" == 0 ]] || die "building $BASE_TAG needs root (debootstrap, chroot)"
  command -v debootstrap >/dev/null || die 'debootstrap is not installed (apt-get install -y debootstrap)'

  ROOTFS_DIR="$(mktemp -d /var/tmp/slipway-debian.XXXXXX)"
  root="$ROOTFS_DIR/root"
  log="$LOG_DIR/debian.log"
  run_logged "$log" debootstrap "${DEBOOTSTRAP_ARGS[@]}" "$root" "$MIRROR" \
    || fail_with_log debootstrap "$log"

  # Image configuration (apt/dpkg settings for containers, policy-rc.d) and the package sources.
  cp -a "$HERE/debian/rootfs/." "$root/"
  printf '%s\n' \
    "deb $MIRROR $SUITE main" \
    "deb $MIRROR $SUITE-updates main" \
    "deb $SECURITY_MIRROR $SUITE-security main" > "$root/etc/apt/sources.list"

  # Bring the tree up to date with bookworm-updates and bookworm-security.
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  run_logged "$log.upgrade" chroot "$root" /bin/sh -c \
    'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get -y upgrade && apt-get clean' \
    || fail_with_log 'apt-get upgrade in the base' "$log.upgrade"

  # Slim it down and drop what belongs to the host or is provided by Docker at run time.
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/cache/debconf/*-old \
    "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/groff/* \
    "$root"/usr/share/lintian/* "$root"/dev/* "$root"/tmp/* "$root"/var/tmp/*
  find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
  find "$root/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
  find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
  find "$root/var/log" -type f -exec truncate -s 0 {} +
  : > "$root/etc/resolv.conf"
  : > "$root/etc/hostname"
  rm -f "$root/etc/machine-id" "$root/var/lib/dbus/machine-id"

  run_logged "$log.import" import_rootfs "$root" "$want" || fail_with_log 'docker import' "$log.import"

  cleanup_rootfs
  # The old base goes once no image is built on it any more (see the end of the script).
  OLD_BASE_ID="$old"
  drop_old "$old" "$(image_id "$BASE_TAG")"
  printf '%s: built\n' "$BASE_TAG"
}

# --- images --------------------------------------------------------------------------------------
build_image() {
  local name="$1" tag="${TAGS[$1]}" dir="$HERE/$1" base_id want old new log
  [[ -f "$dir/Dockerfile" ]] || die "missing $dir/Dockerfile"
  base_id="$(image_id "$BASE_TAG")"
  want="$(printf '%s\n' "$(hash_dir "$dir")" "$base_id" | sha256sum | cut -d' ' -f1)"
  old="$(image_id "$tag")"
  if [[ "$FORCE" != 1 && -n "$old" && "$(image_hash "$tag")" == "$want" ]]; then
    printf '%s: up to date\n' "$tag"
    return
  fi
  log="$LOG_DIR/$name.log"
  run_logged "$log" docker build --force-rm \
    --label "$HASH_LABEL=$want" \
    --label "slipway.image.source=deploy/images/$name" \
    --tag "$tag" "$dir" \
    || fail_with_log "building $tag" "$log"
  new="$(image_id "$tag")"
  drop_old "$old" "$new"
  printf '%s: built\n' "$tag"
}

# --- node ----------------------------------------------------------------------------------------
# The tarballs come from the npm registry over HTTPS with curl (the host's CA bundle), are checked against
# the sha512 pinned in node/versions and kept in $CACHE_DIR, so a rebuild downloads nothing.
docker_arch() {
  case "$(docker info --format '{{.Architecture}}')" in
    x86_64|amd64) echo x64 ;;
    aarch64|arm64) echo arm64 ;;
    *) die "no Node.js binaries for this architecture: $(docker info --format '{{.Architecture}}')" ;;
  esac
}

# integrity_hex sha512-BASE64 → the hex digest sha512sum prints.
integrity_hex() { printf '%s' "${1#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n'; }

# fetch_package NAME VERSION ARCH → prints the path of the checked tarball in the cache.
fetch_package() {
  local name="$1" version="$2" arch="$3" kind pname pversion parch integrity pkg file tmp
  integrity=
  while read -r kind pname pversion parch rest; do
    if [[ "$kind" == package && "$pname" == "$name" && "$pversion" == "$version" && ( "$parch" == "$arch" || "$parch" == any ) ]]; then
      integrity="$rest"; break
    fi
  done < "$HERE/node/versions"
  [[ -n "$integrity" ]] || die "node/versions pins no $name $version for $arch"
  pkg="$name"; [[ "$name" == node ]] && pkg="node-linux-$arch"
  file="$CACHE_DIR/$pkg-$version.tgz"
  if [[ -f "$file" && "$(sha512sum < "$file" | cut -d' ' -f1)" == "$(integrity_hex "$integrity")" ]]; then
    printf '%s' "$file"; return
  fi
  mkdir -p "$CACHE_DIR"
  tmp="$(mktemp "$CACHE_DIR/.fetch.XXXXXX")"
  curl -fsSL --retry 3 -o "$tmp" "$NPM_REGISTRY/$pkg/-/$pkg-$version.tgz" || { rm -f "$tmp"; die "could not fetch $pkg $version from $NPM_REGISTRY"; }
  if [[ "$(sha512sum < "$tmp" | cut -d' ' -f1)" != "$(integrity_hex "$integrity")" ]]; then
    rm -f "$tmp"; die "$pkg-$version.tgz does not match the sha512 pinned in node/versions"
  fi
  mv "$tmp" "$file"
  printf '%s' "$file"
}

pinned_version() { awk -v n="$1" '$1 == "package" && $2 == n { print $3; exit }' "$HERE/node/versions"; }

# build_node MAJOR: slipway/node:MAJOR (runtime: no compiler) and slipway/node-build:MAJOR (Debian's
# build-essential, python3 and git, the Node headers for node-gyp) from one Dockerfile. The build images
# share one cached layer with the compiler, so each further major adds seconds.
build_node() {
  local major="$1" version="${NODE_RELEASE[$1]}" runtime="slipway/node:$1" build="slipway/node-build:$1"
  local dir="$HERE/node" base_id want old_runtime old_build ctx log arch started
  base_id="$(image_id "$BASE_TAG")"
  want="$(printf '%s\n' "$(hash_dir "$dir")" "$base_id" "node=$version" | sha256sum | cut -d' ' -f1)"
  old_runtime="$(image_id "$runtime")"
  old_build="$(image_id "$build")"
  if [[ "$FORCE" != 1 && -n "$old_runtime" && -n "$old_build" \
    && "$(image_hash "$runtime")" == "$want" && "$(image_hash "$build")" == "$want" ]]; then
    printf '%s, %s: up to date\n' "$runtime" "$build"
    return
  fi
  started=$SECONDS
  arch="$(docker_arch)"
  ctx="$(mktemp -d "${TMPDIR:-/tmp}/slipway-node-context.XXXXXX")"
  mkdir -p "$ctx/dist"
  cp "$dir/Dockerfile" "$ctx/Dockerfile"
  cp "$(fetch_package node "$version" "$arch")" "$ctx/dist/node.tgz"
  cp "$(fetch_package npm "$(pinned_version npm)" any)" "$ctx/dist/npm.tgz"
  cp "$(fetch_package corepack "$(pinned_version corepack)" any)" "$ctx/dist/corepack.tgz"
  log="$LOG_DIR/node-$major.log"
  local common=(--force-rm --build-arg "NODE_VERSION=$version" --label "$HASH_LABEL=$want"
    --label "slipway.image.source=deploy/images/node" --label "slipway.node.version=$version")
  run_logged "$log" docker build "${common[@]}" --target runtime --tag "$runtime" "$ctx" \
    || { rm -rf "$ctx"; fail_with_log "building $runtime" "$log"; }
  run_logged "$log.build" docker build "${common[@]}" --target build --tag "$build" "$ctx" \
    || { rm -rf "$ctx"; fail_with_log "building $build" "$log.build"; }
  rm -rf "$ctx"
  drop_old "$old_runtime" "$(image_id "$runtime")"
  drop_old "$old_build" "$(image_id "$build")"
  printf '%s, %s: built (Node.js %s, %d s)\n' "$runtime" "$build" "$version" $((SECONDS - started))
}

OLD_BASE_ID=
build_base
for name in "${selected[@]}"; do
  case "$name" in
    node:*) build_node "${name#node:}" ;;
    *) build_image "$name" ;;
  esac
done
drop_old "$OLD_BASE_ID" "$(image_id "$BASE_TAG")"
