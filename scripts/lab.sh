#!/usr/bin/env bash
# npm run lab [-- COMMAND]: a home router under `routerd serve` in network namespaces, with two ISPs and a
# LAN client, checked end to end. See docs/lab.md (and its "Adding a part" section).
# Settings: ROUTERD_LAB_NAME (namespace prefix, default rdlab), ROUTERD_LAB_DIR (default /tmp/routerd-lab),
# ROUTERD_LAB_BGP=0, ROUTERD_LAB_WIREGUARD=0, ROUTERD_LAB_NTP=0 (each leaves out an optional part, on by
# default: scripts/lab/parts/80-bgp.sh, 45-wireguard.sh, 88-ntp.sh).
set -Eeuo pipefail
# A command that fails where nothing expects it ends the script: say which one.
# (A function's own `return N` is its answer, not a failure.)
trap 'rc=$?; [[ "$BASH_COMMAND" == return* ]] || printf "lab: unexpected failure (exit %d) at %s line %d: %s\n" "$rc" "${BASH_SOURCE[0]##*/scripts/}" "$LINENO" "$BASH_COMMAND" >&2' ERR

LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lab"
# shellcheck source=lab/common.sh
source "$LIB/common.sh"
# shellcheck source=lab/deps.sh
source "$LIB/deps.sh"
# shellcheck source=lab/checks.sh
source "$LIB/checks.sh"
# shellcheck source=lab/topology.sh
source "$LIB/topology.sh"
# shellcheck source=lab/home.sh
source "$LIB/home.sh"
# shellcheck source=lab/nat.sh
source "$LIB/nat.sh"

# --- parts: scripts/lab/parts/NN-name.sh, in file order; each defines name_HOOK functions --------------
LAB_PARTS=()
LAB_COMMAND_NAMES=()
declare -A LAB_COMMAND_FN=() LAB_COMMAND_HELP=()

# lab_command NAME FUNCTION HELP: a part adds `npm run lab -- NAME ARGS...`.
lab_command() {
  LAB_COMMAND_NAMES+=("$1")
  LAB_COMMAND_FN[$1]="$2"
  LAB_COMMAND_HELP[$1]="$3"
}

# lab_failure "TARGET..." FAIL_FN HEAL_FN HELP: a part adds targets to `npm run lab -- fail|heal TARGET`
# (an ISP's internet, a web server, ...); the functions get the target as $1.
LAB_FAILURE_HELP=()
declare -A LAB_FAIL_FN=() LAB_HEAL_FN=()
lab_failure() {
  local target
  for target in $1; do
    LAB_FAIL_FN[$target]="$2"
    LAB_HEAL_FN[$target]="$3"
  done
  LAB_FAILURE_HELP+=("$(printf '%-18s %s' "${1// /|}" "$4")")
}

# cmd_failure fail|heal TARGET: runs the part's function for TARGET.
cmd_failure() {
  local action="$1" target="${2:-}" fn
  if [[ "$action" == fail ]]; then fn="${LAB_FAIL_FN[$target]:-}"; else fn="${LAB_HEAL_FN[$target]:-}"; fi
  [[ -n "$fn" ]] || die "say what to $action: one of ${!LAB_FAIL_FN[*]} (npm run lab -- help)"
  require_root "$action"
  check_settings
  [[ "$(lab_kind)" == home ]] || die "no home-router lab is up (npm run lab starts one)"
  "$fn" "$target"
}

for part in "$LIB"/parts/*.sh; do
  id="$(basename "$part" .sh)"
  LAB_PARTS+=("${id#*-}")
  # shellcheck disable=SC1090
  source "$part"
done
unset part id

# Every namespace either lab may have, the parts' own included (router and lan are in both: only one lab
# per name is up at a time).
mapfile -t LAB_NAMESPACES < <(printf '%s\n' "${HOME_NAMESPACES[@]}" "${NAT_NAMESPACES[@]}" "${OPTIONAL_NAMESPACES[@]}" | sort -u)

# run_hook HOOK: calls <part>_HOOK of every part that has one, in order (setup, converge, checks, show, poke).
run_hook() {
  local part fn
  for part in "${LAB_PARTS[@]}"; do
    fn="${part//-/_}_$1"
    if declare -F "$fn" >/dev/null; then "$fn"; fi
  done
}

lab_kind() { sed -n 's/^kind=//p' "$MARKER" 2>/dev/null | grep . || echo none; }

write_wrappers() {
  cat >"$LAB_DIR/routerd" <<EOF
#!/bin/sh
# routerd for this lab: runs in $NS_ROUTER with its state, root and run dirs under $LAB_DIR.
# Commands that work on no router state run as they are; every other one gets the lab's dirs.
case "\$1" in
  ""|validate|schema|version|completion|help|-h|--help|--version) exec node $ROUTERD_JS "\$@" ;;
  *)
    cmd="\$1"; shift
    exec ip netns exec $NS_ROUTER node $ROUTERD_JS "\$cmd" "\$@" --state-dir $LAB_DIR/state --root $LAB_DIR/root --run-dir $LAB_DIR/run ;;
esac
EOF
  cat >"$LAB_DIR/routerctl" <<EOF
#!/bin/sh
# routerctl for this lab: asks routerd and its daemons in $NS_ROUTER over their sockets in $LAB_DIR/run.
case "\$1" in
  ""|version|completion|help|-h|--help|--version) exec node $ROUTERCTL_JS "\$@" ;;
  *) exec ip netns exec $NS_ROUTER node $ROUTERCTL_JS "\$@" --run-dir $LAB_DIR/run ;;
esac
EOF
  chmod +x "$LAB_DIR/routerd" "$LAB_DIR/routerctl"
}

usage() {
  local name
  cat <<EOF
Usage: npm run lab [-- COMMAND]     (or: bash scripts/lab.sh [COMMAND])

Commands:
  up       (default) install what is missing, build, start the home-router lab under routerd serve,
           wait for it to converge and run the checks
  nat      the static NAT walkthrough instead: routerd reconcile --once of examples/nat-gateway.yaml
  check    run the checks again on a lab that is up
  status   say whether a lab is up and what runs in it (exit 0 up, 3 down)
  down     stop everything the lab started, delete its namespaces and its dir (safe to run twice)
  fail TARGET   break something and watch the router work around it (times measured); TARGET is one of
  heal TARGET   (heal puts it back):
EOF
  for name in "${LAB_FAILURE_HELP[@]}"; do printf '             %s\n' "$name"; done
  for name in "${LAB_COMMAND_NAMES[@]}"; do printf '  %s\n' "${LAB_COMMAND_HELP[$name]}"; done
  cat <<EOF
  help     this text

Parts:      ${LAB_PARTS[*]} (scripts/lab/parts/)
Namespaces: ${HOME_NAMESPACES[*]} (prefix from ROUTERD_LAB_NAME, now '$LAB_NAME')
Lab dir:    $LAB_DIR (ROUTERD_LAB_DIR): config, routerd's state, root and run dirs, logs, pids, wrappers
EOF
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
  local kind="$1"
  require_root
  check_settings
  if lab_is_up; then
    local present
    present="$(existing_namespaces | paste -sd' ')"
    printf 'A lab is already up (%s; namespaces: %s; dir %s).\n' "$(lab_kind)" "${present:-none, only a leftover lab dir}" "$LAB_DIR"
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
  mkdir -p "$LAB_DIR"/{root,run,run-lab,logs,pids}
  mkdir -m 700 "$LAB_DIR/state"
  printf 'name=%s\nkind=%s\ncreated=%s\n' "$LAB_NAME" "$kind" "$(date -Is)" >"$MARKER"
  write_wrappers
  if [[ "$kind" == nat ]]; then
    nat_up
    UP_STAGE=up
  else
    home_up
    UP_STAGE=up
    home_show
  fi
  local ok=0
  summary || ok=1
  if [[ "$kind" == nat ]]; then step "Poke around" && nat_poke && common_poke; else home_poke; fi
  if ((ok == 0)); then
    printf '\n%sThe lab is up: all checks passed in %s s.%s\n' "$C_GREEN" "$(elapsed)" "$C_OFF"
  else
    printf '\n%sSome checks failed (%s s); the lab stays up so you can look at it.%s\n' "$C_RED" "$(elapsed)" "$C_OFF"
  fi
  return $ok
}

common_poke() {
  cat <<EOF
    ls $LAB_DIR                       # config, state/ (ledger, status), root/, run/, logs/, pids/

    npm run lab -- status             # is it up?
    npm run lab -- check              # run the checks again
    npm run lab -- down               # remove everything the lab created
EOF
}

cmd_check() {
  require_root check
  check_settings
  lab_is_up || die "no lab is up (npm run lab starts one)"
  case "$(lab_kind)" in
    nat)
      step "Checking the NAT walkthrough"
      nat_checks
      ;;
    *) home_check ;;
  esac
  summary
}

cmd_status() {
  check_settings
  if ! lab_is_up; then
    echo "No lab is up (no namespaces named $LAB_NAME-*, no $LAB_DIR). Start one with: npm run lab"
    return 3
  fi
  require_root status
  echo "Lab '$LAB_NAME' ($(lab_kind)) is up; its dir is $LAB_DIR."
  local ns pidfile pid state
  echo "  namespaces:"
  for ns in $(existing_namespaces); do
    printf '    %-16s %s\n' "$ns" "$(ip -n "$ns" -br address | grep -v '^lo ' | sed 's/@[a-z0-9]*//' | awk '{ line = $1 " " $2; for (i = 3; i <= NF; i++) line = line " " $i; printf "%s; ", line }')"
  done
  echo "  processes the lab started:"
  for pidfile in "$LAB_DIR"/pids/*.pid; do
    [[ -f "$pidfile" ]] || continue
    pid="$(cat "$pidfile")"
    state=running
    kill -0 "$pid" 2>/dev/null || state="NOT running (see $LAB_DIR/logs/$(basename "$pidfile" .pid).log)"
    printf '    %-18s pid %-8s %s\n' "$(basename "$pidfile" .pid)" "$pid" "$state"
  done
  [[ "$(lab_kind)" != home ]] || home_status
  return 0
}

teardown() {
  stop_processes
  # What parts leave outside the lab dir and its namespaces (defined whether or not the part is on now).
  run_hook teardown
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
  echo "The lab is down: no namespaces, no processes, no lab dir left."
}

command="${1:-up}"
[[ $# -eq 0 ]] || shift
case "$command" in
  up) cmd_up home ;;
  nat) cmd_up nat ;;
  down) cmd_down ;;
  status) cmd_status ;;
  check) cmd_check ;;
  fail | heal) cmd_failure "$command" "$@" ;;
  help | -h | --help) usage ;;
  *)
    if [[ -n "${LAB_COMMAND_FN[$command]:-}" ]]; then
      "${LAB_COMMAND_FN[$command]}" "$@"
    else
      usage >&2
      exit 2
    fi
    ;;
esac
