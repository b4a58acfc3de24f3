#!/usr/bin/env bash
# CI check: fails (exit 1) when the committed packages/gobgp-api/src/gen differs from what GoBGP's .proto
# files generate. On a fresh machine scripts/gen-gobgp-proto.sh fetches them from Debian first.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
committed="$root/packages/gobgp-api/src/gen"
fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT

bash "$root/scripts/gen-gobgp-proto.sh" "$fresh/gen" 2>"$fresh/log" || { cat "$fresh/log" >&2; exit 1; }
if ! diff -r -u "$committed" "$fresh/gen"; then
  echo "check-gen-gobgp: packages/gobgp-api/src/gen is stale; run scripts/gen-gobgp-proto.sh and commit the result" >&2
  exit 1
fi
echo "check-gen-gobgp: packages/gobgp-api/src/gen is up to date" >&2
