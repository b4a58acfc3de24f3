#!/usr/bin/env bash
# CI check: fails (exit 1) when the committed packages/rpc/src/gen differs from what proto/ generates.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
committed="$root/packages/rpc/src/gen"
fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT

bash "$root/scripts/gen-proto.sh" "$fresh/gen" 2>/dev/null
if ! diff -r -u "$committed" "$fresh/gen"; then
  echo "check-gen: packages/rpc/src/gen is stale; run scripts/gen-proto.sh and commit the result" >&2
  exit 1
fi
echo "check-gen: packages/rpc/src/gen is up to date" >&2
