#!/usr/bin/env bash
# Plateau's two-host demo on one Linux machine (root): a Plateau server on one "host", the demo
# agent on another, each in its own network namespace, joined by a veth pair.
#
#   server host  netns plateau-srv-<pid>  10.231.0.1/24  plateau serve --host 10.231.0.1
#   agent host   netns plateau-agt-<pid>  10.231.0.2/24  python -m demo.harness --remote 10.231.0.1:PORT
#
# The two addresses exist only inside the two namespaces this script creates; no route leaves
# them. Everything (server, namespaces, veth pair, temp files) is removed on exit, on failure
# and on Ctrl-C; namespaces left by an earlier run that was killed with SIGKILL are removed at
# the next start (only plateau-srv-<pid>/plateau-agt-<pid> whose <pid> is gone).
#
# Usage: demo/run.sh [--port N] [--timeout SECONDS] [--summary FILE] [--] [AGENT ARGS...]
#   AGENT ARGS go to `python -m demo.harness` (paths of runs, streams, trajectories, --check,
#   --live URL ...). Default: the repository's examples/ and demo/ with --check.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${PLATEAU_VENV:-$ROOT/.venv}
PORT=50051
TIMEOUT=180
SUMMARY=""
AGENT_ARGS=()

usage() { sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "demo/run.sh: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
    case $1 in
        --port) PORT=${2:?--port needs a number}; shift 2 ;;
        --timeout) TIMEOUT=${2:?--timeout needs seconds}; shift 2 ;;
        --summary) SUMMARY=${2:?--summary needs a file}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        --) shift; AGENT_ARGS+=("$@"); break ;;
        *) AGENT_ARGS+=("$1"); shift ;;
    esac
done
[[ ${#AGENT_ARGS[@]} -gt 0 ]] || AGENT_ARGS=("$ROOT/examples" "$ROOT/demo" --check)
[[ -n $SUMMARY ]] && AGENT_ARGS+=(--summary "$SUMMARY")

[[ $(id -u) -eq 0 ]] || die "needs root to create network namespaces (try: sudo $0)"
command -v ip >/dev/null || die "needs the ip command (Debian/Ubuntu: apt-get install -y iproute2)"
if [[ ! -x $VENV/bin/plateau ]]; then
    echo "demo/run.sh: no $VENV yet; creating it with 'make install' (torch CPU build, once)" >&2
    make -s -C "$ROOT" install
fi
PY=$VENV/bin/python

SRV_NS=plateau-srv-$$
AGT_NS=plateau-agt-$$
SRV_IF=pl-s-$$
AGT_IF=pl-a-$$
SRV_ADDR=10.231.0.1
AGT_ADDR=10.231.0.2
TARGET=$SRV_ADDR:$PORT
SRV_PID=""
AGT_PID=""
LOG=$(mktemp "${TMPDIR:-/tmp}/plateau-demo-server.XXXXXX")
STARTED=$SECONDS

# A process is alive when /proc has it and it is not a zombie (our child until we wait for it).
alive() { local st; st=$(sed -E 's/^.*\) (.).*$/\1/' "/proc/$1/stat" 2>/dev/null) || return 1; [[ $st != Z ]]; }

has_ns() { ip netns list | awk '{print $1}' | grep -qx -- "$1"; }

remove_ns() {  # kill what still runs inside the namespace, then delete it (its veth end goes with it)
    local ns=$1 pids
    has_ns "$ns" || return 0
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [[ -n $pids ]] && kill -KILL $pids 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
}

server_log() { grep -v -e 'Loading weights' -e '^\s*$' "$LOG" 2>/dev/null | sed 's/^/  [server host] /' || true; }

stop() {  # SIGTERM, up to 10 s, then SIGKILL; reap the child
    local pid=$1 what=$2
    [[ -n $pid ]] && alive "$pid" || return 0
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 50); do alive "$pid" || break; sleep 0.2; done
    alive "$pid" && kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    echo "demo/run.sh: $what stopped" >&2
}

cleanup() {
    local code=$?
    trap - EXIT INT TERM
    set +e
    stop "$AGT_PID" agent
    stop "$SRV_PID" server
    remove_ns "$SRV_NS"
    remove_ns "$AGT_NS"
    ip link del "$SRV_IF" 2>/dev/null   # only if it never left the root namespace
    rm -f "$LOG"
    echo "demo/run.sh: removed namespaces $SRV_NS and $AGT_NS (exit $code, $((SECONDS - STARTED)) s)" >&2
    exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Namespaces of earlier runs killed without a chance to clean up (their pid is gone).
for ns in $(ip netns list | awk '{print $1}' | grep -E '^plateau-(srv|agt)-[0-9]+$' || true); do
    pid=${ns##*-}
    if [[ $pid != "$$" ]] && ! kill -0 "$pid" 2>/dev/null; then
        echo "demo/run.sh: removing stale namespace $ns (its run, pid $pid, is gone)" >&2
        remove_ns "$ns"
    fi
done

# ---------------------------------------------------------------- two hosts, one link
ip netns add "$SRV_NS" || die "ip netns add failed: this machine does not allow network namespaces"
ip netns add "$AGT_NS"
ip link add "$SRV_IF" type veth peer name "$AGT_IF"
ip link set "$SRV_IF" netns "$SRV_NS"
ip link set "$AGT_IF" netns "$AGT_NS"
ip -n "$SRV_NS" addr add "$SRV_ADDR/24" dev "$SRV_IF"
ip -n "$AGT_NS" addr add "$AGT_ADDR/24" dev "$AGT_IF"
for ns in "$SRV_NS" "$AGT_NS"; do ip -n "$ns" link set lo up; done
ip -n "$SRV_NS" link set "$SRV_IF" up
ip -n "$AGT_NS" link set "$AGT_IF" up

echo "plateau demo: two hosts on this machine, network namespaces joined by a veth pair"
echo "  server host  netns $SRV_NS  $SRV_ADDR/24 on $SRV_IF   plateau serve --host $SRV_ADDR --port $PORT"
echo "  agent host   netns $AGT_NS  $AGT_ADDR/24 on $AGT_IF   python -m demo.harness --remote $TARGET"
echo "  agent host's routes: $(ip -n "$AGT_NS" route | sed 's/ *$//' | paste -sd ';')"

# ---------------------------------------------------------------------------- server
ip netns exec "$SRV_NS" env HF_HUB_OFFLINE=1 "$VENV/bin/plateau" serve --host "$SRV_ADDR" --port "$PORT" --store memory >"$LOG" 2>&1 &
SRV_PID=$!
echo "plateau demo: server starting on the server host (pid $SRV_PID; the model loads in about a second on onnx, ~10 s on torch)"

# Wait for the gRPC health check to answer SERVING, asked from the agent host across the link.
deadline=$((SECONDS + TIMEOUT))
until ip netns exec "$AGT_NS" env PYTHONPATH="$ROOT" "$PY" -m demo.harness --remote "$TARGET" --wait 2 --wait-only 2>/dev/null; do
    if ! alive "$SRV_PID"; then
        server_log >&2
        die "the server exited before it was healthy"
    fi
    if [[ $SECONDS -ge $deadline ]]; then
        server_log >&2
        die "the server was not SERVING after $TIMEOUT s"
    fi
    sleep 0.5
done
server_log
echo "plateau demo: the agent host sees $TARGET SERVING (gRPC health check); running the agent there"

# ----------------------------------------------------------------------------- agent
# In the background so that a signal to this script runs its trap at once (a trap waits for a
# foreground command to finish); `wait` returns the agent's exit status.
ip netns exec "$AGT_NS" env HF_HUB_OFFLINE=1 PYTHONPATH="$ROOT" "$PY" -m demo.harness --remote "$TARGET" "${AGENT_ARGS[@]}" &
AGT_PID=$!
code=0
wait "$AGT_PID" || code=$?
AGT_PID=""
exit "$code"
