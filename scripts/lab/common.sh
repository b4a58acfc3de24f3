# Shared settings and helpers for scripts/lab.sh and the parts (sourced, not run).
# Everything the lab creates is named from LAB_NAME and lives in LAB_DIR, so two labs never collide and
# `down` knows exactly what to remove. Nothing here touches the host's own network namespace.

LAB_NAME="${ROUTERD_LAB_NAME:-rdlab}"
LAB_DIR="${ROUTERD_LAB_DIR:-/tmp/routerd-lab}"
MARKER="$LAB_DIR/.routerd-lab"

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LAB_JS="$REPO/scripts/lab"
ROUTERD_JS="$REPO/apps/routerd/bin/routerd.js"
ROUTERCTL_JS="$REPO/apps/routerctl/bin/routerctl.js"

# The lab's clock: every progress line says how long the command has been running.
LAB_T0="${EPOCHREALTIME/./}"

if [[ -t 1 ]]; then
  C_BOLD=$'\e[1m' C_GREEN=$'\e[32m' C_RED=$'\e[31m' C_YELLOW=$'\e[33m' C_DIM=$'\e[2m' C_OFF=$'\e[0m'
else
  C_BOLD="" C_GREEN="" C_RED="" C_YELLOW="" C_DIM="" C_OFF=""
fi

# Seconds since the command started, one decimal ("12.3").
elapsed() {
  local us=$((${EPOCHREALTIME/./} - LAB_T0))
  printf '%d.%d' $((us / 1000000)) $((us % 1000000 / 100000))
}
now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }
# ms_since SINCE_MS: "1.8s".
ms_since() { awk -v d=$(($(now_ms) - $1)) 'BEGIN { printf "%.1fs", d / 1000 }'; }

step() { printf '\n%s==> %s%s %s(%ss)%s\n' "$C_BOLD" "$*" "$C_OFF" "$C_DIM" "$(elapsed)" "$C_OFF"; }
info() { printf '    %s\n' "$*"; }
# progress TEXT: one line of convergence, stamped with the elapsed time.
progress() { printf '    %s[%6ss]%s %s\n' "$C_DIM" "$(elapsed)" "$C_OFF" "$*"; }
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

# inns NS COMMAND...: run a command inside one of the lab's namespaces.
inns() {
  local ns="$1"
  shift
  ip netns exec "$ns" "$@"
}

# routerd and routerctl inside the router namespace, with every file they read or write under the lab dir.
routerd_lab() {
  local cmd="$1"
  shift
  inns "$NS_ROUTER" node "$ROUTERD_JS" "$cmd" "$@" --state-dir "$LAB_DIR/state" --root "$LAB_DIR/root" --run-dir "$LAB_DIR/run"
}
routerctl_lab() { inns "$NS_ROUTER" node "$ROUTERCTL_JS" "$@" --run-dir "$LAB_DIR/run"; }

# lab_config_add < YAML: appends resources (a YAML list, written as in examples/home-router.yaml) to the lab's
# copy of the config, those it does not have yet, and prints what it added. For the parts whose resources are
# optional or hold what only the lab knows (a generated public key); serve applies a change within a second.
lab_config_add() {
  node -e '
    const fs = require("fs");
    const [, repo, file] = process.argv;
    const YAML = require(require.resolve("yaml", { paths: [repo] }));
    const doc = YAML.parseDocument(fs.readFileSync(file, "utf8"));
    const id = (r) => `${r.kind}/${r.metadata.name}`;
    const have = new Set(doc.toJS().spec.resources.map(id));
    const added = YAML.parseDocument(fs.readFileSync(0, "utf8")).contents.items.filter((item) => !have.has(id(item.toJSON())));
    for (const item of added) doc.addIn(["spec", "resources"], item);
    if (added.length) fs.writeFileSync(file, doc.toString());
    console.log(`${added.map((item) => id(item.toJSON())).join(", ") || "nothing new"} added to ${file}`);' "$REPO" "$LAB_CONFIG"
}

# within TIMEOUT_S COMMAND...: runs COMMAND until it succeeds, every 0.5 s, for TIMEOUT_S at most; its
# output is that of the last try. For checks of a state that a loaded machine can miss for a moment.
within() {
  local timeout="$1" out deadline
  shift
  deadline=$(($(now_ms) + timeout * 1000))
  until out="$("$@" 2>&1)"; do
    (($(now_ms) < deadline)) || { echo "$out"; return 1; }
    sleep 0.5
  done
  echo "$out"
}

# wait_for WHAT TIMEOUT_S COMMAND...: polls COMMAND every 0.1 s until it succeeds; prints a progress line
# with WHAT and the command's last output line. On timeout it prints why and returns 1, and every later
# wait_for returns 1 at once: once one step did not converge, the checks say what works.
WAIT_FAILED=""
wait_for() {
  local what="$1" timeout="$2" out deadline
  shift 2
  if [[ -n "$WAIT_FAILED" ]]; then
    progress "${C_YELLOW}skipped:${C_OFF} $what"
    return 1
  fi
  deadline=$(($(now_ms) + timeout * 1000))
  while :; do
    if out="$("$@" 2>&1)"; then
      progress "$what${out:+: $(tail -n 1 <<<"$out")}"
      return 0
    fi
    if (($(now_ms) > deadline)); then
      progress "${C_RED}not within ${timeout} s:${C_OFF} $what${out:+ (last: $(tail -n 1 <<<"$out"))}"
      WAIT_FAILED=1
      return 1
    fi
    sleep 0.1
  done
}

# last_event_after TOPIC SINCE_MS: when routerd serve acted, from the event log it keeps in its state dir
# (what `routerctl events` replays): "1.8 s (its message)" for the last TOPIC event since SINCE_MS.
last_event_after() {
  node -e '
    const [file, topic, since] = process.argv.slice(1);
    const events = require("fs").readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const last = events.filter((e) => e.topic === topic && Date.parse(e.time) >= Number(since)).at(-1);
    if (last) console.log(`${((Date.parse(last.time) - Number(since)) / 1000).toFixed(1)} s (${last.message})`);' "$LAB_DIR/state/routerd/core/events.jsonl" "$1" "$2" 2>/dev/null
}
