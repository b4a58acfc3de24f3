# Installs only what is missing (Debian/apt) and builds routerd (sourced by scripts/lab.sh).

PING=(ping)

ensure_packages() {
  local missing=()
  command -v ip >/dev/null 2>&1 || missing+=(iproute2)
  command -v nft >/dev/null 2>&1 || missing+=(nftables)
  command -v ping >/dev/null 2>&1 || missing+=(iputils-ping)
  if ((${#missing[@]})); then
    step "Installing missing packages: ${missing[*]}"
    if command -v apt-get >/dev/null 2>&1; then
      export DEBIAN_FRONTEND=noninteractive
      if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; }; then
        warn "apt-get could not install ${missing[*]}"
      fi
    else
      warn "no apt-get on this host; install these yourself: ${missing[*]}"
    fi
  fi
  command -v ip >/dev/null 2>&1 || die "ip (iproute2) is required"
  command -v nft >/dev/null 2>&1 || die "nft (nftables) is required"
  if ! command -v ping >/dev/null 2>&1; then
    # busybox has a ping applet; good enough for the reachability check.
    if command -v busybox >/dev/null 2>&1 && busybox --list 2>/dev/null | grep -qx ping; then
      PING=(busybox ping)
      warn "using busybox ping (install iputils-ping for the usual one)"
    else
      die "ping is required (apt-get install iputils-ping)"
    fi
  fi
}

ensure_node() {
  command -v node >/dev/null 2>&1 || die "Node.js 20 or newer is required (Debian 12's nodejs package is 18: use the nodejs.org or NodeSource build)"
  local major
  major="$(node -p 'process.versions.node.split(".")[0]')"
  ((major >= 20)) || die "Node.js $(node --version) is too old; routerd needs 20 or newer"
}

ensure_build() {
  if [[ ! -d "$REPO/node_modules" ]]; then
    step "Installing npm dependencies (npm ci)"
    (cd "$REPO" && npm ci --no-audit --no-fund) || die "npm ci failed"
  fi
  step "Building routerd (turbo, cached after the first time)"
  (cd "$REPO" && npx --no-install turbo run build --filter='routerd...' --output-logs=errors-only) || die "the build failed; see the compiler errors above"
  [[ -f "$REPO/apps/routerd/dist/main.js" ]] || die "the build did not produce apps/routerd/dist/main.js"
}
