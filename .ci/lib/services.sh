# shellcheck shell=bash
# Start/stop the real backing services for the integration/E2E test run:
# a standalone Redis, a 3-master Redis Cluster and PostgreSQL.
# Sourced by .ci/run (after lib/common.sh). Everything the scripts start lives
# under $CI_TMP so the EXIT trap can find and stop it again.

# ---- state (read by .ci/run and by the cleanup trap) ------------------------
CI_TMP=${CI_TMP:-}          # per-run temp dir (mktemp -d), set by .ci/run
REDIS_PORT=""               # standalone redis port
CLUSTER_PORTS=()            # redis cluster node ports
CHOSEN_PORTS=()             # every port handed out so far (avoid double use)
PG_VER="" PG_NAME="" PG_PORT="" PG_STATUS=""
PG_STARTED_BY_US=0          # only stop PostgreSQL in cleanup if we started it
PG_PASSWORD=""              # non-empty only if TCP auth needed a password
PG_ADMIN=""                 # function name used to run psql as superuser
DATABASE_URL_CI=""

# ---- port selection ---------------------------------------------------------

# pick_port BASE [BUS]: sets PICKED to the first port >= BASE that is free and not
# already handed out. With BUS=bus, PORT+10000 must be free too (Redis Cluster
# nodes also listen on their cluster-bus port = port + 10000).
pick_port() {
    local port=$1 bus=${2:-} tries=0 p
    while :; do
        local taken=0
        for p in "${CHOSEN_PORTS[@]}"; do
            [[ $p == "$port" ]] && taken=1
        done
        if ((taken == 0)) && ! port_in_use "$port" &&
            { [[ $bus != bus ]] || ! port_in_use $((port + 10000)); }; then
            break
        fi
        ((++tries < 200)) || die "no free port found starting at $1"
        port=$((port + 1))
    done
    CHOSEN_PORTS+=("$port")
    PICKED=$port
}

# ---- redis -----------------------------------------------------------------

# redis_is_ours PORT PIDFILE: true once the server on PORT answers and is the very
# process we launched (guards against a foreign redis that grabbed the port
# between our free-port check and our bind: PING alone would happily succeed).
redis_is_ours() {
    local port=$1 pidfile=$2 pid srv
    [[ -s $pidfile ]] || return 1
    pid=$(<"$pidfile")
    srv=$(redis-cli -h 127.0.0.1 -p "$port" info server 2>/dev/null | tr -d '\r' |
        sed -n 's/^process_id://p')
    [[ -n $srv && $srv == "$pid" ]]
}

# start_redis PORT [EXTRA redis-server ARGS...]
# Loopback only, no persistence (nothing to clean up but the temp dir).
#
# The server runs as a background job of this script rather than with
# --daemonize yes: a daemonized redis is re-parented to PID 1, and on machines
# whose PID 1 does not reap orphans (minimal container/VM inits) every stopped
# server would linger as a <defunct> zombie. As our own child we can `wait` for
# it. stdin/stdout/stderr are detached so a leftover server can never keep the
# CI log pipe open.
start_redis() {
    local port=$1; shift
    local dir="$CI_TMP/redis-$port" pid
    mkdir -p "$dir"
    log "starting redis-server on 127.0.0.1:$port $*"
    redis-server \
        --bind 127.0.0.1 --port "$port" --dir "$dir" \
        --save "" --appendonly no \
        --daemonize no --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
        "$@" </dev/null >>"$dir/redis.out" 2>&1 8>&- 9>&- &
    pid=$!
    # Record the pid ourselves right away (redis writes the same pid a moment
    # later): the EXIT trap finds servers through these files.
    echo "$pid" >"$dir/redis.pid"
    if ! wait_until 20 "redis-server on :$port" redis_up_or_dead "$port" "$pid" ||
        ! redis_is_ours "$port" "$dir/redis.pid"; then
        tail -n 30 "$dir/redis.log" "$dir/redis.out" >&2 2>/dev/null || true
        die "redis-server on port $port did not come up"
    fi
}

# redis_up_or_dead PORT PID: stop polling as soon as the server answers or has
# already exited (e.g. port taken, bad option), instead of waiting for the timeout.
redis_up_or_dead() {
    pid_alive "$2" || return 0
    redis_is_ours "$1" "$CI_TMP/redis-$1/redis.pid"
}

start_standalone_redis() {
    pick_port "${CI_REDIS_PORT:-6390}"
    REDIS_PORT=$PICKED
    start_redis "$REDIS_PORT"
    [[ $(redis-cli -p "$REDIS_PORT" ping) == PONG ]] || die "standalone redis does not answer PING"
    log "standalone redis ready on 127.0.0.1:$REDIS_PORT"
}

cluster_ok() {
    redis-cli -h 127.0.0.1 -p "$1" cluster info 2>/dev/null | grep -q '^cluster_state:ok'
}

start_redis_cluster() {
    local base=${CI_CLUSTER_PORT:-7101} i port addrs=()
    for i in 0 1 2; do
        pick_port $((base + i)) bus
        CLUSTER_PORTS+=("$PICKED")
    done
    for port in "${CLUSTER_PORTS[@]}"; do
        start_redis "$port" \
            --cluster-enabled yes \
            --cluster-config-file "$CI_TMP/redis-$port/nodes.conf" \
            --cluster-node-timeout 5000
        addrs+=("127.0.0.1:$port")
    done
    # --cluster-yes: there is no stdin to answer the "accept this config?" prompt.
    redis-cli --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes ||
        die "redis-cli --cluster create failed"
    # Slot assignment propagates via gossip: wait until *every* node reports ok,
    # since the cluster client may talk to any of them first.
    for port in "${CLUSTER_PORTS[@]}"; do
        wait_until 30 "cluster_state:ok on :$port" cluster_ok "$port" ||
            { redis-cli -p "$port" cluster info >&2 || true; die "redis cluster not ok"; }
    done
    log "redis cluster ready on ${addrs[*]}"
}

# Stops every redis-server whose pidfile is in $CI_TMP (so it also catches a
# server whose start failed half-way). Prefers a clean SHUTDOWN NOSAVE, then
# falls back to signals. Never signals a pid that is no longer a redis-server.
stop_all_redis() {
    [[ -n $CI_TMP && -d $CI_TMP ]] || return 0
    local pidfile dir port pid n
    for pidfile in "$CI_TMP"/redis-*/redis.pid; do
        [[ -s $pidfile ]] || continue
        dir=${pidfile%/redis.pid}
        port=${dir##*/redis-}
        pid=$(<"$pidfile")
        # A pid caught between fork and exec still shows bash's cmdline, not
        # redis-server's; give it a moment so it is not mistaken for a stranger.
        if pid_alive "$pid" && ! is_redis_pid "$pid"; then sleep 0.5; fi
        if is_redis_pid "$pid"; then
            if redis_is_ours "$port" "$pidfile"; then
                redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
            else
                kill -TERM "$pid" 2>/dev/null || true
            fi
            for ((n = 0; n < 50; n++)); do is_redis_pid "$pid" || break; sleep 0.1; done
            if is_redis_pid "$pid"; then
                warn "redis-server pid $pid (port $port) ignored shutdown; sending SIGKILL"
                kill -KILL "$pid" 2>/dev/null || true
                sleep 0.2
            fi
            log "stopped redis-server on port $port (pid $pid)"
        fi
        # Reap it (it is our child) so no <defunct> entry is left behind. Only
        # once it is dead: `wait` on a live process would block the cleanup.
        pid_alive "$pid" || wait "$pid" 2>/dev/null || true
    done
}

# pid_alive PID: running and not a zombie (kill -0 also succeeds for zombies).
# Reads /proc directly: minimal images may lack procps (ps, pgrep).
pid_alive() {
    local stat
    [[ $1 =~ ^[0-9]+$ ]] || return 1
    { stat=$(<"/proc/$1/stat"); } 2>/dev/null || return 1
    stat=${stat##*) }
    [[ ${stat:0:1} != Z ]]
}

# is_redis_pid PID: alive and still a redis-server (protects against pid reuse).
is_redis_pid() {
    pid_alive "$1" && grep -q redis-server "/proc/$1/cmdline" 2>/dev/null
}

# ---- postgresql -----------------------------------------------------------

# pg_pick_cluster: fills PG_VER/PG_NAME/PG_PORT/PG_STATUS from pg_lsclusters.
# Preference: an online cluster on 5432, any online cluster, then a stopped one
# (newest version first). Returns 1 if no cluster exists at all.
pg_pick_cluster() {
    local best="" best_rank=99 rank ver name port status
    while read -r ver name port status _; do
        [[ -n $ver ]] || continue
        if [[ $status == online* && $port == 5432 ]]; then rank=0
        elif [[ $status == online* ]]; then rank=1
        else rank=2
        fi
        # "<" keeps the first of equal rank; pg_lsclusters lists newest last, so
        # allow equal rank to override for stopped clusters (prefer newest).
        if ((rank < best_rank)) || { ((rank == best_rank)) && ((rank == 2)); }; then
            best_rank=$rank
            best="$ver $name $port $status"
        fi
    done < <(pg_lsclusters -h 2>/dev/null)
    [[ -n $best ]] || return 1
    read -r PG_VER PG_NAME PG_PORT PG_STATUS <<<"$best"
}

# Run a command as the postgres OS user (for peer auth over the unix socket).
# cd / first: postgres usually cannot read the repo dir, psql would complain.
as_postgres() {
    if command -v runuser >/dev/null 2>&1; then
        (cd / && runuser -u postgres -- "$@")
    else
        (cd / && su postgres -s /bin/sh -c "$(printf '%q ' "$@")")
    fi
}

# Superuser psql, two ways: TCP as user postgres (works with trust auth) or the
# unix socket as OS user postgres (works with Debian's default peer auth).
# -X: ignore any ~/.psqlrc, -w: never prompt for a password (no stdin in CI).
pg_admin_tcp() {
    psql -X -w -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres "$@"
}
pg_admin_socket() {
    as_postgres psql -X -w -q -v ON_ERROR_STOP=1 -p "$PG_PORT" -d postgres "$@"
}

start_postgres() {
    # Stray PG* variables from the CI environment would silently change where
    # psql connects and which password it uses; everything here is explicit.
    unset PGHOST PGHOSTADDR PGPORT PGUSER PGDATABASE PGPASSWORD PGPASSFILE PGSERVICE PGSSLMODE

    if ! pg_pick_cluster; then
        local ver
        # shellcheck disable=SC2012 # version dir names are plain numbers
        ver=$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)
        [[ -n $ver ]] || die "PostgreSQL server binaries not found under /usr/lib/postgresql"
        log "no PostgreSQL cluster exists; creating $ver/main"
        pg_createcluster "$ver" main || die "pg_createcluster failed"
        pg_pick_cluster || die "cluster still missing after pg_createcluster"
    fi
    log "PostgreSQL cluster: $PG_VER/$PG_NAME port $PG_PORT ($PG_STATUS)"

    if [[ $PG_STATUS != online* ]]; then
        # --skip-systemctl-redirect: CI containers have no systemd; drive pg_ctl directly.
        PG_STARTED_BY_US=1   # set first, so the trap stops it even if start half-fails
        log "starting PostgreSQL $PG_VER/$PG_NAME"
        pg_ctlcluster --skip-systemctl-redirect "$PG_VER" "$PG_NAME" start 8>&- 9>&- ||
            die "pg_ctlcluster start failed"
    fi
    if ! wait_until 60 "pg_isready on 127.0.0.1:$PG_PORT" pg_isready -h 127.0.0.1 -p "$PG_PORT" -t 1; then
        tail -n 30 "/var/log/postgresql/postgresql-$PG_VER-$PG_NAME.log" >&2 2>/dev/null || true
        die "PostgreSQL is not accepting connections on 127.0.0.1:$PG_PORT"
    fi

    # Pick a superuser access path that works on this machine's pg_hba.conf.
    if pg_admin_tcp -c 'select 1' >/dev/null 2>&1; then
        PG_ADMIN=pg_admin_tcp
    elif pg_admin_socket -c 'select 1' >/dev/null 2>&1; then
        PG_ADMIN=pg_admin_socket
    else
        die "cannot connect to PostgreSQL as superuser (tried TCP as postgres and peer auth as OS user postgres)"
    fi
    log "PostgreSQL superuser access via ${PG_ADMIN#pg_admin_}"

    # The Go tests connect over TCP. With trust auth no password is needed;
    # otherwise (md5/scram host lines) give postgres a known password.
    if ! psql -X -w -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -c 'select 1' >/dev/null 2>&1; then
        PG_PASSWORD=${CI_PG_PASSWORD:-postgres}
        log "TCP connections need a password; setting one for role postgres"
        "$PG_ADMIN" -c "ALTER USER postgres PASSWORD '$PG_PASSWORD'" ||
            die "could not set the postgres password"
        PGPASSWORD=$PG_PASSWORD psql -X -w -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres \
            -c 'select 1' >/dev/null ||
            die "password auth over TCP still fails; check pg_hba.conf for 127.0.0.1"
    fi

    # Fresh database every run; FORCE (PG13+) kicks out leftover sessions from an
    # aborted earlier run. Fall back to the plain form on older servers.
    "$PG_ADMIN" -c "DROP DATABASE IF EXISTS $CI_DB_NAME WITH (FORCE)" 2>/dev/null ||
        "$PG_ADMIN" -c "DROP DATABASE IF EXISTS $CI_DB_NAME" ||
        die "could not drop database $CI_DB_NAME"
    "$PG_ADMIN" -c "CREATE DATABASE $CI_DB_NAME OWNER postgres" ||
        die "could not create database $CI_DB_NAME"

    local cred=postgres
    [[ -n $PG_PASSWORD ]] && cred="postgres:$PG_PASSWORD"
    # shellcheck disable=SC2034 # read by .ci/run
    DATABASE_URL_CI="postgres://$cred@127.0.0.1:$PG_PORT/$CI_DB_NAME?sslmode=disable"
    log "PostgreSQL ready, database $CI_DB_NAME created"
}

stop_postgres_if_ours() {
    ((PG_STARTED_BY_US)) || return 0
    log "stopping PostgreSQL $PG_VER/$PG_NAME (started by this script)"
    pg_ctlcluster --skip-systemctl-redirect "$PG_VER" "$PG_NAME" stop -m fast ||
        warn "pg_ctlcluster stop failed"
}

# ---- diagnostics ---------------------------------------------------------

# dump_service_logs [LINES] [with-postgres]: tail of every service log, printed
# by the cleanup trap when the run failed. The PostgreSQL log is machine-wide and
# noisy, so it is only shown when asked for (failures while starting services).
dump_service_logs() {
    local lines=${1:-10} with_pg=${2:-} f
    for f in "$CI_TMP"/redis-*/redis.log; do
        [[ -s $f ]] || continue
        printf '\n--- last %s lines of %s ---\n' "$lines" "$f"
        tail -n "$lines" "$f"
    done
    if [[ $with_pg == with-postgres && -n $PG_VER ]]; then
        f="/var/log/postgresql/postgresql-$PG_VER-$PG_NAME.log"
        if [[ -r $f ]]; then
            printf '\n--- last %s lines of %s ---\n' "$lines" "$f"
            tail -n "$lines" "$f"
        fi
    fi
    return 0
}

# ---- stripe-mock ------------------------------------------------------------

# Card payment tests talk to stripe-mock (Stripe's API with canned answers)
# through STRIPE_MOCK / STRIPE_API_BASE. It is a Go program, installed from the
# module proxy into GOPATH/bin when missing.
STRIPE_MOCK_VERSION=v0.203.0
STRIPE_MOCK_PID=

install_stripe_mock() {
    if command -v stripe-mock >/dev/null 2>&1; then
        log "stripe-mock: $(command -v stripe-mock)"
        return 0
    fi
    log "installing stripe-mock $STRIPE_MOCK_VERSION (go install)"
    go install "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION" 8>&- 9>&- ||
        die "go install github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION failed"
    command -v stripe-mock >/dev/null || die "stripe-mock not on PATH after go install (GOPATH/bin)"
}

stripe_mock_answers() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# start_stripe_mock: stripe-mock on a free port (CI_STRIPE_PORT, default 12111),
# its log in $CI_TMP; sets STRIPE_MOCK_PORT. The cleanup trap stops it.
start_stripe_mock() {
    pick_port "${CI_STRIPE_PORT:-12111}"
    STRIPE_MOCK_PORT=$PICKED
    stripe-mock -http-addr "127.0.0.1:$STRIPE_MOCK_PORT" >"$CI_TMP/stripe-mock.log" 2>&1 8>&- 9>&- &
    STRIPE_MOCK_PID=$!
    wait_until 60 "stripe-mock on :$STRIPE_MOCK_PORT" stripe_mock_answers "$STRIPE_MOCK_PORT" ||
        { tail -n 20 "$CI_TMP/stripe-mock.log" >&2; die "stripe-mock did not start"; }
    log "stripe-mock ready on 127.0.0.1:$STRIPE_MOCK_PORT"
}

# stop_stripe_mock: stops the stripe-mock this script started (only that pid).
stop_stripe_mock() {
    [[ -n $STRIPE_MOCK_PID ]] || return 0
    if pid_alive "$STRIPE_MOCK_PID" && grep -q stripe-mock "/proc/$STRIPE_MOCK_PID/cmdline" 2>/dev/null; then
        kill "$STRIPE_MOCK_PID" 2>/dev/null || true
        wait "$STRIPE_MOCK_PID" 2>/dev/null || true
    fi
    STRIPE_MOCK_PID=
}
