# Shared settings and helpers for scripts/lab.sh (sourced, not run).
# Everything the lab creates is named from LAB_NAME and lives in LAB_DIR, so two labs never collide and
# `down` knows exactly what to remove. Nothing here touches the host's own network namespace.

LAB_NAME="${ROUTERD_LAB_NAME:-rdlab}"
LAB_DIR="${ROUTERD_LAB_DIR:-/tmp/routerd-lab}"
NS_ISP="$LAB_NAME-isp"
NS_ROUTER="$LAB_NAME-router"
NS_LAN="$LAB_NAME-lan"
LAB_NAMESPACES=("$NS_ISP" "$NS_ROUTER" "$NS_LAN")
MARKER="$LAB_DIR/.routerd-lab"

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LAB_JS="$REPO/scripts/lab"
CONFIG="$REPO/examples/nat-gateway.yaml"
ROUTERD_JS="$REPO/apps/routerd/bin/routerd.js"

# Addresses of the lab (the router side comes from examples/nat-gateway.yaml, applied by routerd).
ISP_ADDR=203.0.113.1
ROUTER_WAN_ADDR=203.0.113.2
ROUTER_LAN_ADDR=192.168.50.1
WEB_ADDR=192.168.50.10
GAME_ADDR=192.168.50.20

if [[ -t 1 ]]; then
  C_BOLD=$'\e[1m' C_GREEN=$'\e[32m' C_RED=$'\e[31m' C_YELLOW=$'\e[33m' C_OFF=$'\e[0m'
else
  C_BOLD="" C_GREEN="" C_RED="" C_YELLOW="" C_OFF=""
fi

step() { printf '\n%s==> %s%s\n' "$C_BOLD" "$*" "$C_OFF"; }
info() { printf '    %s\n' "$*"; }
warn() { printf '%swarning:%s %s\n' "$C_YELLOW" "$C_OFF" "$*" >&2; }
die() {
  printf '%serror:%s %s\n' "$C_RED" "$C_OFF" "$*" >&2
  exit 1
}

ns_exists() { [[ -e "/run/netns/$1" ]]; }

existing_namespaces() {
  local ns
  for ns in "${LAB_NAMESPACES[@]}"; do ns_exists "$ns" && printf '%s\n' "$ns"; done
  return 0
}

lab_is_up() { [[ -e "$MARKER" ]] || [[ -n "$(existing_namespaces)" ]]; }

require_root() {
  [[ "$(id -u)" == 0 ]] || die "the lab creates network namespaces and needs root: run it as root (sudo npm run lab${1:+ -- $1})"
}

# Refuse names and directories that could make `down` remove something that is not the lab's.
check_settings() {
  [[ "$LAB_NAME" =~ ^[a-z][a-z0-9]{0,11}$ ]] || die "ROUTERD_LAB_NAME must be 1-12 lowercase letters/digits starting with a letter (got '$LAB_NAME')"
  [[ "$LAB_DIR" == /* ]] || die "ROUTERD_LAB_DIR must be an absolute path (got '$LAB_DIR')"
  LAB_DIR="${LAB_DIR%/}"
  if [[ -z "$LAB_DIR" || "$LAB_DIR" =~ ^/(etc|var/lib|usr|boot|bin|sbin|lib|lib64|proc|sys|dev|root|home|run)(/|$) ]]; then
    die "ROUTERD_LAB_DIR=$LAB_DIR is a system location; the lab keeps its state in a scratch dir such as /tmp/routerd-lab"
  fi
  MARKER="$LAB_DIR/.routerd-lab"
}

# routerd inside the router namespace, with every file it reads or writes under the lab dir.
routerd_lab() {
  local cmd="$1"
  shift
  ip netns exec "$NS_ROUTER" node "$ROUTERD_JS" "$cmd" "$@" \
    --state-dir "$LAB_DIR/state" --root "$LAB_DIR/root" --run-dir "$LAB_DIR/run"
}
