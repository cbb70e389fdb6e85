# Puts the Node.js this project is tested on (the version in .node-version) first on PATH, installing it from the npm
# registry's `node` package (the binary ships inside the package: no download from anywhere else) into .tools/ the
# first time. Source it from bash (npm stays the one already installed):
#
#   source scripts/pinned-node.sh && npm ci && npm test
#
# A user who already has Node 22 or 24 does not need this; CI (.ci/run) and developers on an older system Node do.
# It fails (returns 1, PATH unchanged) rather than leave the shell on another Node.
if [ -z "${BASH_VERSION:-}" ]; then
  echo "scripts/pinned-node.sh: source it from bash" >&2
  return 1 2>/dev/null || exit 1
fi
_gateway_pinned_node() {
  local root version dir binary
  root="$(cd "$(dirname "${BASH_SOURCE[1]}")/.." && pwd)" || return 1
  version="$(tr -d '[:space:]' <"$root/.node-version" 2>/dev/null)"
  if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "scripts/pinned-node.sh: $root/.node-version must hold a version such as 24.21.0" >&2
    return 1
  fi
  dir="$root/.tools/node-$version"
  binary="$dir/node_modules/node/bin/node"
  if [ "$("$binary" --version 2>/dev/null)" != "v$version" ]; then
    # A Node pinned before is not needed any more (each is ~190 MB).
    rm -rf "$root"/.tools/node-* && mkdir -p "$dir" || return 1
    echo "== installing Node.js $version into .tools/node-$version (npm package node@$version)" >&2
    # The package's own preinstall script fetches the platform's binary package from the registry.
    npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node@$version" >&2 ||
      true
    if [ "$("$binary" --version 2>/dev/null)" != "v$version" ]; then
      rm -rf "$dir"
      echo "scripts/pinned-node.sh: could not install Node.js $version from the npm registry (see above)" >&2
      return 1
    fi
  fi
  export PATH="$dir/node_modules/node/bin:$PATH"
  hash -r
}
_gateway_pinned_node
_gateway_status=$?
unset -f _gateway_pinned_node
if [ "$_gateway_status" -ne 0 ]; then
  unset _gateway_status
  return 1 2>/dev/null || exit 1
fi
unset _gateway_status
