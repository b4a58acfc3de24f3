# Installs only what is missing (Debian/apt) and builds routerd (sourced by scripts/lab.sh).
# Each part says what it needs with `needs COMMAND PACKAGE` when it is sourced.

NEEDED_COMMANDS=(ip nft ping)
NEEDED_PACKAGES=(iproute2 nftables iputils-ping)

# needs COMMAND PACKAGE: the lab needs COMMAND, which Debian's PACKAGE provides.
needs() {
  local i
  for i in "${!NEEDED_COMMANDS[@]}"; do [[ "${NEEDED_COMMANDS[i]}" == "$1" ]] && return 0; done
  NEEDED_COMMANDS+=("$1")
  NEEDED_PACKAGES+=("$2")
}

missing_packages() {
  local i
  for i in "${!NEEDED_COMMANDS[@]}"; do
    command -v "${NEEDED_COMMANDS[i]}" >/dev/null 2>&1 || printf '%s\n' "${NEEDED_PACKAGES[i]}"
  done | sort -u
}

ensure_packages() {
  local missing
  mapfile -t missing < <(missing_packages)
  if ((${#missing[@]})); then
    step "Installing missing packages: ${missing[*]}"
    if command -v apt-get >/dev/null 2>&1; then
      export DEBIAN_FRONTEND=noninteractive
      # Package scripts must not start the servers they install (kea, dnsmasq): the lab runs its own.
      local policy=/usr/sbin/policy-rc.d made=""
      if [[ ! -e "$policy" ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made=1
      fi
      if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; }; then
        warn "apt-get could not install ${missing[*]}"
      fi
      [[ -z "$made" ]] || rm -f "$policy"
    else
      warn "no apt-get on this host; install these yourself: ${missing[*]}"
    fi
  fi
  mapfile -t missing < <(missing_packages)
  ((${#missing[@]} == 0)) || die "still missing: ${missing[*]} (apt-get install ${missing[*]})"
}

ensure_node() {
  command -v node >/dev/null 2>&1 || die "Node.js 20 or newer is required (Debian 12's nodejs package is 18: use the nodejs.org or NodeSource build)"
  local major
  major="$(node --version)"
  major="${major#v}"
  major="${major%%.*}"
  ((major >= 20)) || die "Node.js $(node --version) is too old; routerd needs 20 or newer"
}

ensure_build() {
  if [[ ! -d "$REPO/node_modules" ]]; then
    step "Installing npm dependencies (npm ci)"
    (cd "$REPO" && npm ci --no-audit --no-fund) || die "npm ci failed"
  fi
  step "Building routerd, routerctl and the daemons (turbo, cached after the first time)"
  # turbo itself, not through npx (which costs seconds to start).
  (cd "$REPO" && node_modules/.bin/turbo run build --output-logs=errors-only) ||
    die "the build failed; see the compiler errors above"
  local bin
  for bin in routerd routerctl routerd-dhcpv4-client routerd-dhcpv6-client routerd-healthcheck; do
    [[ -f "$REPO/apps/$bin/dist/main.js" ]] || die "the build did not produce apps/$bin/dist/main.js"
  done
}
