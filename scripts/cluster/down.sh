#!/usr/bin/env bash
# Stops what scripts/cluster/up.sh started, and only that: the processes named by the pid files under
# .cluster/run/ (checked against their recorded start times, so a recycled pid is never signalled),
# in reverse start order, waiting until each has exited. State (etcd data, images, registry content,
# certificates) stays in .cluster/ for the next up.sh; `down.sh --purge` removes .cluster/ as well.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

purge=false
case "${1:-}" in
  "") ;;
  --purge) purge=true ;;
  *) echo "usage: $0 [--purge]" >&2; exit 2 ;;
esac

[ -d "$RUN_DIR" ] || { log "nothing to stop ($RUN_DIR does not exist)"; exit 0; }
exec 9>"$RUN_DIR/lock"
flock -w 600 9 || die "another up.sh or down.sh holds $RUN_DIR/lock"

# The extra clusters of clusters.sh first (their components are named NAME-N), each in reverse order.
for pidfile in "$RUN_DIR"/kube-apiserver-[0-9].pid; do
  [ -e "$pidfile" ] || continue
  n=${pidfile%.pid}
  n=${n##*-}
  for c in kwok kube-scheduler kube-controller-manager kube-apiserver; do stop_component "$c-$n"; done
done
rm -f "$CLUSTER_DIR/clusters.env"
for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
  stop_component "${COMPONENTS[i]}"
done
rm -f "$CLUSTER_DIR/env"
log "stopped"

if $purge; then
  # dockerd's mounts lived in its private mount namespace and ended with it; refuse to delete
  # anything that is still a mount point on the host.
  if awk -v d="$CLUSTER_DIR/" 'index($2 "/", d) == 1 { found = 1 } END { exit !found }' /proc/self/mounts; then
    die "something is still mounted under $CLUSTER_DIR; not removing it"
  fi
  rm -rf "$CLUSTER_DIR"
  log "removed $CLUSTER_DIR"
fi
