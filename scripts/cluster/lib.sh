# Shared settings and helpers of scripts/cluster/{up,down,pki}.sh; sourced, never run.
# Everything the local cluster writes lives under $CLUSTER_DIR (.cluster/, git-ignored); binaries are
# cached by version under $SPREAD_CACHE (see versions.sh). Every listener binds 127.0.0.1 only.
# shellcheck shell=bash disable=SC2034 # the settings are used by the scripts that source this file

LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$LIB_DIR/../.." && pwd)
# shellcheck source=versions.sh
. "$LIB_DIR/versions.sh"

# dockerd lives in /usr/sbin, which a non-login shell of a plain user may lack.
PATH="$PATH:/usr/sbin:/sbin"

: "${SPREAD_CLUSTER_DIR:=$REPO_ROOT/.cluster}"
# Ports: all on 127.0.0.1 and, except the API server's and the registry's, away from the defaults so
# that a developer's own etcd or kubeadm cluster on the same machine does not collide with this one.
: "${SPREAD_API_PORT:=6443}"
: "${SPREAD_ETCD_PORT:=23790}"
: "${SPREAD_ETCD_PEER_PORT:=23800}"
: "${SPREAD_CONTROLLER_MANAGER_PORT:=10357}"
: "${SPREAD_SCHEDULER_PORT:=10359}"
: "${SPREAD_REGISTRY_PORT:=5000}"
# buildkitd's TCP listener (beside its unix socket), for builders in containers on the host's network
# (the GitLab component's job in gitlab.itg.test.ts): plain gRPC on loopback only.
: "${SPREAD_BUILDKIT_PORT:=11234}"
# How long up.sh waits for one component to become healthy before it gives up.
: "${SPREAD_START_TIMEOUT:=120}"

# Service ClusterIPs come from here; its first address is the `kubernetes` Service's, which in-cluster
# clients dial and which the API server's serving certificate must therefore name.
SERVICE_CIDR=10.96.0.0/16
KUBERNETES_SVC_IP=10.96.0.1

CLUSTER_DIR=$SPREAD_CLUSTER_DIR
PKI_DIR=$CLUSTER_DIR/pki
RUN_DIR=$CLUSTER_DIR/run
LOG_DIR=$CLUSTER_DIR/logs
KUBE_BIN_DIR=$SPREAD_CACHE/bin/kubernetes-$SPREAD_KUBE_VERSION
ETCD_BIN=$SPREAD_CACHE/bin/etcd-$SPREAD_ETCD_VERSION/etcd
KWOK_BIN=$SPREAD_CACHE/bin/kwok-$SPREAD_KWOK_VERSION/kwok
KUBECTL=$KUBE_BIN_DIR/kubectl
KUBECONFIG_FILE=$CLUSTER_DIR/kubeconfig
ADMIN_KUBECONFIG=$CLUSTER_DIR/kubeconfigs/admin.kubeconfig
API_URL=https://127.0.0.1:$SPREAD_API_PORT
DOCKER_DIR=$CLUSTER_DIR/docker
DOCKER_SOCK=$DOCKER_DIR/docker.sock
REGISTRY_DIR=$CLUSTER_DIR/registry
REGISTRY_HOST=localhost:$SPREAD_REGISTRY_PORT
REGISTRY_USER=spread
BUILDKIT_DIR=$CLUSTER_DIR/buildkit
BUILDKIT_SOCK=$BUILDKIT_DIR/buildkitd.sock
BUILDX_DIR=$CLUSTER_DIR/buildx
BUILDKITD_BIN=$SPREAD_CACHE/bin/buildkit-$SPREAD_BUILDKIT_VERSION/buildkitd
BUILDCTL_BIN=$SPREAD_CACHE/bin/buildkit-$SPREAD_BUILDKIT_VERSION/buildctl
BUILDX_BIN=$SPREAD_CACHE/bin/buildx-$SPREAD_BUILDX_VERSION/buildx
# Helm 4 (`helm` on the cluster's PATH) and Helm 3, both named in .cluster/env for the chart tests.
HELM_BIN=$SPREAD_CACHE/bin/helm-$SPREAD_HELM_VERSION/helm
HELM3_BIN=$SPREAD_CACHE/bin/helm-$SPREAD_HELM3_VERSION/helm

# kubectl's discovery cache, which would otherwise go to ~/.kube/cache.
export KUBECACHEDIR=$CLUSTER_DIR/kube-cache

# The order in which up.sh starts the processes; down.sh stops them in reverse.
COMPONENTS=(etcd dockerd registry buildkitd kube-apiserver kube-controller-manager kube-scheduler kwok)

log() { printf '[cluster] %s\n' "$*" >&2; }
die() { printf '[cluster] error: %s\n' "$*" >&2; exit 1; }

# Prints the last lines of a component's log, so a failed start explains itself.
tail_log() {
  local f="$LOG_DIR/$1.log"
  [ -f "$f" ] || return 0
  printf '[cluster] ---- last lines of %s ----\n' "$f" >&2
  tail -n "${2:-40}" "$f" >&2
  printf '[cluster] ---- end of %s ----\n' "$f" >&2
}

# proc_start_time PID: prints the start time of a live process (field 22 of /proc/PID/stat, clock
# ticks since boot); fails for a process that is gone or a zombie (field 3 is Z). A pid file
# is trusted only while pid and start time both match, so a recycled pid is never taken for ours; a
# zombie counts as exited because its reaper may be slow (ours is whatever pid 1 is, e.g. in a container).
proc_start_time() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  # The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  stat=${stat##*) }
  # shellcheck disable=SC2086 # word splitting of the remaining fields is the point
  set -- $stat
  [ "$1" != Z ] || return 1
  printf '%s\n' "${20}"
}

# True while PID is a live process (not gone, not a zombie).
proc_alive() { proc_start_time "$1" >/dev/null; }

# Prints the pid of a component started by up.sh that is still running; fails otherwise.
component_pid() {
  local name=$1 pid start
  pid=$(cat "$RUN_DIR/$name.pid" 2>/dev/null) || return 1
  start=$(cat "$RUN_DIR/$name.start" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ "$(proc_start_time "$pid" 2>/dev/null)" = "$start" ] || return 1
  printf '%s\n' "$pid"
}

# require_free_space DIR MIB WHAT: dies unless the filesystem holding DIR (or its nearest existing
# parent) has MIB MiB free. A disk that fills mid-run makes etcd and the API server fail every
# request, so every test after that point times out far from the cause; this names it up front.
require_free_space() {
  local dir=$1 need=$2 what=$3 free
  case $need in
    '' | *[!0-9]*) die "the free space $what needs must be a whole number of MiB, not '$need'" ;;
  esac
  while [ ! -e "$dir" ]; do dir=$(dirname "$dir"); done
  free=$(df -Pm "$dir" | awk 'NR == 2 { print $4 }')
  [ "$free" -ge "$need" ] ||
    die "$what needs $need MiB free on the filesystem of $dir, which has $free MiB; free some space (a stopped cluster's state goes with scripts/cluster/down.sh --purge) or point SPREAD_CLUSTER_DIR at a larger disk"
}

# True when something listens on 127.0.0.1:PORT (or any address with that port).
port_in_use() {
  [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]
}

# start_component NAME PORT|- [INPUT_FILE...] -- COMMAND...: starts COMMAND in its own session (so that
# a Ctrl-C in the terminal, or the exit of the test runner that ran up.sh, does not take it down) with
# its output appended to logs/NAME.log, and records its pid, start time and command line under run/.
# When the component already runs with the same command line, the same executable files (the command
# and those among its arguments; device, inode, size, modification time: a new binary restarts it)
# and the same contents of its input files (configuration it reads at start) it is left alone;
# otherwise it is restarted. PORT, when given, must be free before the start.
start_component() {
  local name=$1 port=$2 pid want inputs=()
  shift 2
  while [ "$1" != -- ]; do
    inputs+=("$1")
    shift
  done
  shift
  want=$(printf '%q ' "$@")
  if [ ${#inputs[@]} -gt 0 ]; then
    want+="# inputs $(cat "${inputs[@]}" | sha256sum | cut -d' ' -f1)"
  fi
  # The command and, among its arguments, every executable file, shell script and word that names a
  # command on PATH (wrappers such as unshare and private-run.sh run the component's own binary).
  local word exe files=()
  for word in "$@"; do
    case $word in
      -*) continue ;;
      */*) if [ -f "$word" ] && { [ -x "$word" ] || [[ $word == *.sh ]]; }; then files+=("$word"); fi ;;
      *) if exe=$(type -P -- "$word"); then files+=("$exe"); fi ;;
    esac
  done
  if [ ${#files[@]} -gt 0 ]; then
    want+=" # binary $(stat -Lc '%d:%i:%s:%Y' -- "${files[@]}" | tr '\n' ' ')"
  fi
  if pid=$(component_pid "$name"); then
    if [ "$(cat "$RUN_DIR/$name.cmd" 2>/dev/null)" = "$want" ]; then
      log "$name already running (pid $pid)"
      return 0
    fi
    log "$name runs with other arguments, inputs or binaries (pid $pid); restarting it"
    stop_component "$name"
  fi
  if [ "$port" != - ] && port_in_use "$port"; then
    ss -Hltnp "sport = :$port" >&2 || true
    die "port $port, needed by $name, is taken by another process (see SPREAD_*_PORT in scripts/cluster/lib.sh)"
  fi
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  printf '\n==== %s starting %s ====\n' "$(date -u +%FT%TZ)" "$name" >>"$LOG_DIR/$name.log"
  # setsid does not fork here (a child of a non-interactive shell is no process group leader), so
  # $! is the component's own pid. fd 9 is up.sh's lock; the component must not inherit it.
  setsid "$@" </dev/null >>"$LOG_DIR/$name.log" 2>&1 9>&- &
  pid=$!
  printf '%s\n' "$pid" >"$RUN_DIR/$name.pid"
  proc_start_time "$pid" >"$RUN_DIR/$name.start" || {
    tail_log "$name"
    die "$name exited immediately"
  }
  printf '%s\n' "$want" >"$RUN_DIR/$name.cmd"
  log "started $name (pid $pid, log $LOG_DIR/$name.log)"
}

# stop_component NAME: stops a component started by up.sh (only that process and what it spawned in
# its session), waits until all of them have exited, and removes its run files.
stop_component() {
  local name=$1 pid i t0=$SECONDS
  if ! pid=$(component_pid "$name"); then
    rm -f "$RUN_DIR/$name".{pid,start,cmd}
    return 0
  fi
  log "stopping $name (pid $pid)"
  # SPREAD_STOP_SIGNAL=KILL (restart.sh's third argument): a crash rather than a graceful stop.
  kill -"${SPREAD_STOP_SIGNAL:-TERM}" "$pid" 2>/dev/null || true
  # dockerd may need ~15 s to stop its containerd; the others stop in well under a second.
  for ((i = 0; i < 300; i++)); do
    proc_alive "$pid" || break
    sleep 0.1
  done
  if proc_alive "$pid"; then
    log "$name did not stop in 30 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  # Children left in the component's session (the session id is the component's pid, see setsid
  # above), e.g. a containerd whose dockerd was killed, are ours too.
  local rest
  for ((i = 0; i < 100; i++)); do
    rest=$(ps -e -o pid= -o sid= -o stat= | awk -v s="$pid" '$2 == s && $3 !~ /^Z/ { print $1 }')
    [ -z "$rest" ] && break
    # shellcheck disable=SC2086 # one pid per word
    if ((i == 0)); then kill -TERM $rest 2>/dev/null || true; fi
    # shellcheck disable=SC2086
    if ((i == 50)); then kill -KILL $rest 2>/dev/null || true; fi
    sleep 0.1
  done
  [ -z "$rest" ] || die "processes of $name did not exit: $rest"
  rm -f "$RUN_DIR/$name".{pid,start,cmd}
  log "stopped $name in $((SECONDS - t0))s"
}

# wait_healthy NAME COMMAND...: runs COMMAND until it succeeds. When the component's process exits
# or SPREAD_START_TIMEOUT passes first, prints the tail of its log and exits non-zero.
wait_healthy() {
  local name=$1 deadline=$((SECONDS + SPREAD_START_TIMEOUT))
  shift
  until "$@" >/dev/null 2>&1; do
    if ! component_pid "$name" >/dev/null; then
      tail_log "$name"
      die "$name exited during start-up (log above: $LOG_DIR/$name.log)"
    fi
    if ((SECONDS >= deadline)); then
      tail_log "$name"
      die "$name not healthy after ${SPREAD_START_TIMEOUT}s (log above: $LOG_DIR/$name.log)"
    fi
    sleep 0.5
  done
}

# The admin's kubectl, independent of the user's KUBECONFIG and of the current context they chose.
kubectl_admin() { "$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG" "$@"; }

# GET an API server path with the admin's client certificate.
api_get() {
  curl -fsS --max-time 5 --cacert "$PKI_DIR/ca.crt" --cert "$PKI_DIR/admin.crt" --key "$PKI_DIR/admin.key" \
    "$API_URL$1"
}

# Replaces FILE with standard input when the content differs, atomically (a process reading it, e.g. a
# test run's kubectl, never sees half a file); unchanged files keep their timestamps.
write_if_changed() {
  local f=$1
  cat >"$f.new"
  if cmp -s "$f.new" "$f"; then rm -f "$f.new"; else mv -f "$f.new" "$f"; fi
}

b64() { base64 -w0 <"$1"; }

# kube_start NAME PORT [INPUT_FILE...] -- ARG...: start_component for the Kubernetes component NAME (with
# a `-N` suffix: that component of cluster N, see clusters.sh) of
# $SPREAD_KUBE_VERSION with ARGs plus the version's own flags (kube_version_flags in versions.sh).
# Every flag is first checked against the binary's --help, so a flag that a minor renamed or removed
# fails the start at once, naming the flag and the version, instead of a crash in the component's log.
kube_start() {
  local name=$1 port=$2 inputs=() extra=() unknown=() help a flag
  shift 2
  while [ "$1" != -- ]; do
    inputs+=("$1")
    shift
  done
  shift
  local bin=${name%-[0-9]}
  mapfile -t extra < <(kube_version_flags "$bin" "$SPREAD_KUBE_VERSION")
  set -- "$@" "${extra[@]}"
  help=$("$KUBE_BIN_DIR/$bin" --help 2>&1) || true
  for a in "$@"; do
    [[ $a == --* ]] || continue
    flag=${a%%=*}
    grep -qE -- "^ +(-[a-z], )?$flag( |$)" <<<"$help" || unknown+=("$flag")
  done
  [ ${#unknown[@]} -eq 0 ] ||
    die "$name of Kubernetes $SPREAD_KUBE_VERSION does not know ${unknown[*]}: set the flags of this minor in kube_version_flags (scripts/cluster/versions.sh)"
  start_component "$name" "$port" "${inputs[@]}" -- "$KUBE_BIN_DIR/$bin" "$@"
}
