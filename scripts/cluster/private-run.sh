#!/usr/bin/env bash
# Usage: unshare --mount --propagation private -- bash private-run.sh STATE_DIR COMMAND...
# Runs COMMAND (dockerd) in the private mount namespace unshare made, with /run and /opt replaced by
# empty tmpfs, so that paths the daemon hardcodes stay off the host:
#   - Debian's dockerd 20.10 always creates /run/docker/plugins, whatever --exec-root says;
#   - its containerd creates /opt/containerd (the "opt" plugin) and, for running containers,
#     shim sockets under /run/containerd/s; runc keeps state under /run/runc.
# The host's other entries of /run and /opt are linked back in (e.g. /run/systemd/resolve, where
# /etc/resolv.conf often points, so the daemon can still resolve names), reached through a bind mount
# of the host's directories under STATE_DIR. Every mount is private to the namespace and disappears
# with its last process; `mount -n` keeps mount(8) from writing /run/mount/utab on the host.
set -euo pipefail
state=$1
shift
for d in run opt; do
  [ -d "/$d" ] || continue
  host="$state/host-$d"
  mkdir -p "$host"
  mount -n --rbind "/$d" "$host"
  mount -n -t tmpfs -o mode=0755,size=64m "spread-$d" "/$d"
  for e in "$host"/* "$host"/.[!.]*; do
    [ -e "$e" ] || [ -L "$e" ] || continue
    case ${e##*/} in
      docker | docker.sock | docker.pid | containerd | runc) continue ;;
    esac
    ln -s "$e" "/$d/${e##*/}"
  done
done
exec "$@"
