# shellcheck shell=bash
# Shared helpers for the CI scripts. Sourced by .ci/run; not executable on its own.

# ---- logging ---------------------------------------------------------------

# Section headers make the (long, -v) CI log easy to navigate.
section() { printf '\n===== %s =====\n' "$*"; }
log()     { printf 'CI: %s\n' "$*"; }
warn()    { printf 'CI: WARNING: %s\n' "$*" >&2; }
# die prints to stderr and exits non-zero; the EXIT trap in .ci/run does the cleanup.
die()     { printf 'CI: ERROR: %s\n' "$*" >&2; exit 1; }

# ---- polling ---------------------------------------------------------------

# wait_until TIMEOUT_SECONDS DESCRIPTION CMD [ARGS...]
# Retries CMD every 0.5s until it succeeds; returns 1 (it does not exit) after the
# timeout so the caller can print diagnostics (e.g. a server log) before dying.
wait_until() {
    local timeout=$1 what=$2; shift 2
    local deadline=$((SECONDS + timeout))
    until "$@" >/dev/null 2>&1; do
        if ((SECONDS >= deadline)); then
            warn "timed out after ${timeout}s waiting for: ${what}"
            return 1
        fi
        sleep 0.5
    done
}

# ---- ports -----------------------------------------------------------------

# port_in_use PORT: true if something listens on (or accepts connections at) PORT
# on loopback. `ss` sees listeners on any address; the /dev/tcp probe is a fallback
# for machines without iproute2 and also catches anything ss might miss.
port_in_use() {
    local port=$1
    if command -v ss >/dev/null 2>&1 &&
        ss -Hltn "( sport = :${port} )" 2>/dev/null | grep -q .; then
        return 0
    fi
    # Connect probe in a subshell so the fd never leaks; `timeout` guards against a
    # filtered port hanging the connect.
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/${port}" 2>/dev/null
}

# ---- apt -------------------------------------------------------------------

# Someone else (another job, unattended-upgrades) may be running apt. For
# dpkg/install, apt itself can wait for the lock (DPkg::Lock::Timeout), but
# `apt-get update` takes the lists lock, which that option does not cover on every
# apt version, so update is additionally retried.
APT_LOCK_TIMEOUT=${APT_LOCK_TIMEOUT:-300}

# 8>&- 9>&-: package scripts may start daemons (e.g. the distro redis-server);
# they must not inherit .ci/run's saved copies of the CI log pipe.
apt_get() {
    DEBIAN_FRONTEND=noninteractive apt-get -o "DPkg::Lock::Timeout=${APT_LOCK_TIMEOUT}" "$@" 8>&- 9>&-
}

apt_update() {
    local attempt
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        if apt_get update -q; then
            return 0
        fi
        warn "apt-get update failed (attempt ${attempt}/10; apt lock held?), retrying in 15s"
        sleep 15
    done
    die "apt-get update kept failing"
}

# apt_install PKG...: `apt-get update` once per run (only when something is
# actually missing, i.e. only when this is called), then install.
APT_UPDATED=0
apt_install() {
    if ((APT_UPDATED == 0)); then
        apt_update
        APT_UPDATED=1
    fi
    apt_get install -y -q "$@" || die "apt-get install $* failed"
}
