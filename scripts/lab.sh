#!/usr/bin/env bash
# npm run lab [-- up|down|status|check|help]
#
# A three-namespace lab (isp, router, lan) where routerd reconciles examples/nat-gateway.yaml inside the
# router namespace, then checks that NAT, port forwards and hairpin really work. See docs/lab.md.
# Settings: ROUTERD_LAB_NAME (namespace prefix, default rdlab), ROUTERD_LAB_DIR (default /tmp/routerd-lab).
set -euo pipefail

LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lab"
# shellcheck source=lab/common.sh
source "$LIB/common.sh"
# shellcheck source=lab/deps.sh
source "$LIB/deps.sh"
# shellcheck source=lab/topology.sh
source "$LIB/topology.sh"
# shellcheck source=lab/checks.sh
source "$LIB/checks.sh"

usage() {
  cat <<EOF
Usage: npm run lab [-- COMMAND]     (or: bash scripts/lab.sh [COMMAND])

Commands:
  up       (default) install what is missing, build, create the lab, reconcile, run the checks
  check    run the checks again on a lab that is up
  status   say whether the lab is up and what runs in it (exit 0 up, 3 down)
  down     stop the lab's servers and delete its namespaces and lab dir (safe to run twice)
  help     this text

Namespaces: $NS_ISP, $NS_ROUTER, $NS_LAN (prefix from ROUTERD_LAB_NAME, now '$LAB_NAME')
Lab dir:    $LAB_DIR (ROUTERD_LAB_DIR): routerd's state, root and run dirs, server logs and pids
EOF
}

write_wrapper() {
  cat >"$LAB_DIR/routerd" <<EOF
#!/bin/sh
# routerd for this lab: runs in $NS_ROUTER with its state, root and run dirs under $LAB_DIR.
case "\$1" in
  plan|reconcile|adopt|ledger)
    cmd="\$1"; shift
    exec ip netns exec $NS_ROUTER node $ROUTERD_JS "\$cmd" "\$@" --state-dir $LAB_DIR/state --root $LAB_DIR/root --run-dir $LAB_DIR/run ;;
  *) exec node $ROUTERD_JS "\$@" ;;
esac
EOF
  chmod +x "$LAB_DIR/routerd"
}

# If `up` stops before the lab is complete, remove the half-built lab instead of leaving it behind.
UP_STAGE=""
on_exit() {
  local code=$?
  if [[ "$UP_STAGE" == building && $code -ne 0 ]]; then
    warn "the lab could not be built; removing what was created"
    teardown >/dev/null 2>&1 || true
  fi
}
trap on_exit EXIT

cmd_up() {
  require_root
  check_settings
  if lab_is_up; then
    local present
    present="$(existing_namespaces | paste -sd' ')"
    printf 'A lab is already up (namespaces: %s; dir %s).\n' "${present:-none, only a leftover lab dir}" "$LAB_DIR"
    printf 'Use it as it is (npm run lab -- status / check), or remove it first: npm run lab -- down\n'
    printf 'A second, separate lab needs other names: ROUTERD_LAB_NAME=rdlab2 ROUTERD_LAB_DIR=/tmp/routerd-lab2 npm run lab\n'
    exit 1
  fi
  if [[ -d "$LAB_DIR" && -n "$(ls -A "$LAB_DIR")" ]]; then
    die "$LAB_DIR exists, is not empty and is not a lab dir; choose another with ROUTERD_LAB_DIR"
  fi

  step "Checking what the lab needs"
  ensure_node
  ensure_packages
  ensure_build

  UP_STAGE=building
  step "Creating the lab: namespaces $NS_ISP, $NS_ROUTER, $NS_LAN"
  mkdir -p "$LAB_DIR"/{root,run,logs,pids}
  mkdir -m 700 "$LAB_DIR/state"
  printf 'name=%s\ncreated=%s\n' "$LAB_NAME" "$(date -Is)" >"$MARKER"
  write_wrapper
  create_topology
  info "$NS_ISP: isp0 $ISP_ADDR/24 (no route to the LAN)"
  info "$NS_ROUTER: wan0, lan0 (down, no addresses: routerd configures them)"
  info "$NS_LAN: eth0 $WEB_ADDR/24 and $GAME_ADDR/24, default via $ROUTER_LAN_ADDR"
  start_servers
  UP_STAGE=up

  step "routerd validate --config examples/nat-gateway.yaml"
  check "config is valid" node "$ROUTERD_JS" validate --config "$CONFIG"

  step "routerd plan (in $NS_ROUTER; nothing is changed yet)"
  routerd_lab plan --config "$CONFIG" | sed 's/^/    /' || true

  step "routerd reconcile --once (in $NS_ROUTER)"
  local out code=0
  out="$(routerd_lab reconcile --once --config "$CONFIG" 2>&1)" || code=$?
  sed 's/^/    /' <<<"$out"
  if ((code == 0)); then record "routerd reconcile --once" PASS "$(tail -n 1 <<<"$out")"; else record "routerd reconcile --once" FAIL "exit $code"; fi

  step "Checking that the router works"
  run_checks
  local ok=0
  summary || ok=1
  poke_around
  return $ok
}

cmd_check() {
  require_root check
  check_settings
  ns_exists "$NS_ROUTER" || die "no lab is up (npm run lab starts one)"
  ensure_packages >/dev/null
  step "Checking the lab"
  run_checks
  summary
}

cmd_status() {
  check_settings
  if ! lab_is_up; then
    echo "No lab is up (namespaces $NS_ISP, $NS_ROUTER, $NS_LAN absent). Start one with: npm run lab"
    return 3
  fi
  require_root status
  echo "Lab '$LAB_NAME' is up (dir $LAB_DIR)."
  local ns pidfile pid
  for ns in "${LAB_NAMESPACES[@]}"; do
    if ns_exists "$ns"; then
      printf '  %-16s %s\n' "$ns" "$(ip -n "$ns" -br address | grep -v '^lo ' | awk '{ line = $1 " " $2; for (i = 3; i <= NF; i++) line = line " " $i; printf "%s; ", line }')"
    else
      printf '  %-16s missing\n' "$ns"
    fi
  done
  for pidfile in "$LAB_DIR"/pids/*.pid; do
    [[ -f "$pidfile" ]] || continue
    pid="$(cat "$pidfile")"
    if kill -0 "$pid" 2>/dev/null; then printf '  server %-10s pid %s running\n' "$(basename "$pidfile" .pid)" "$pid"; else printf '  server %-10s pid %s NOT running\n' "$(basename "$pidfile" .pid)" "$pid"; fi
  done
  if ns_exists "$NS_ROUTER"; then
    printf '  nft tables in %s: %s\n' "$NS_ROUTER" "$(ip netns exec "$NS_ROUTER" nft list tables | awk '{printf "%s %s  ", $2, $3}')"
  fi
  [[ -f "$LAB_DIR/state/artifacts.json" ]] && printf '  ledger: %s entries (%s/routerd ledger)\n' "$(grep -c '"kind"' "$LAB_DIR/state/artifacts.json")" "$LAB_DIR"
  return 0
}

teardown() {
  stop_servers
  destroy_topology
  if [[ -e "$MARKER" ]]; then
    rm -rf -- "$LAB_DIR"
    info "removed $LAB_DIR"
  fi
}

cmd_down() {
  require_root down
  check_settings
  if ! lab_is_up; then
    echo "No lab is up; nothing to remove."
    return 0
  fi
  step "Removing lab '$LAB_NAME'"
  teardown
  [[ -z "$(existing_namespaces)" ]] || die "namespaces remain: $(existing_namespaces | paste -sd' ')"
  echo "The lab is down: no namespaces, no servers, no lab dir left."
}

case "${1:-up}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  check) cmd_check ;;
  help | -h | --help) usage ;;
  *)
    usage >&2
    exit 2
    ;;
esac
