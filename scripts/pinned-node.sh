# Puts the Node.js this project is tested on (the version in .node-version) first on PATH, installing it from the npm
# registry's `node` package (the binary ships inside the package: no download from anywhere else) into .tools/ the
# first time. Source it, in bash:
#
#   source scripts/pinned-node.sh && npm ci && npm test
#
# A user who already has Node 22 or 24 does not need this; CI (.ci/run) and developers on an older system Node do.
_gateway_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_gateway_node_version="$(tr -d '[:space:]' <"$_gateway_root/.node-version")"
_gateway_node_dir="$_gateway_root/.tools/node-$_gateway_node_version"
if [ ! -x "$_gateway_node_dir/node_modules/node/bin/node" ] ||
  [ "$("$_gateway_node_dir/node_modules/node/bin/node" --version)" != "v$_gateway_node_version" ]; then
  rm -rf "$_gateway_node_dir"
  mkdir -p "$_gateway_node_dir"
  echo "== installing Node.js $_gateway_node_version into ${_gateway_node_dir#"$_gateway_root"/} (npm package node@$_gateway_node_version)" >&2
  npm install --prefix "$_gateway_node_dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node@$_gateway_node_version" >&2
fi
export PATH="$_gateway_node_dir/node_modules/node/bin:$PATH"
hash -r
unset _gateway_root _gateway_node_version _gateway_node_dir
