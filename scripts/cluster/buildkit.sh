#!/usr/bin/env bash
# Starts the standalone BuildKit builder of spread's tests, the way docker/setup-buildx-action gives a
# GitHub job a BuildKit of its own: buildkitd (OCI worker, runc) on a unix socket in .cluster/buildkit/,
# and the docker CLI's buildx plugin with a `remote` builder named `spread` pointing at it. buildkitd
# also listens on tcp://127.0.0.1:$SPREAD_BUILDKIT_PORT (written to .cluster/env as SPREAD_BUILDKIT_TCP)
# for a builder made inside a container on the host's network.
#   - the native snapshotter: the overlay snapshotter needs overlayfs mounts this container may refuse;
#   - host networking for RUN steps and for BuildKit itself, so the loopback registry and the local
#     Actions cache stand-in are reachable; everything stays on 127.0.0.1;
#   - buildkitd.toml marks the loopback registry as plain HTTP;
#   - like dockerd, it runs in a private mount namespace (private-run.sh), so runc's state and
#     BuildKit's mounts stay off the host.
# The plugin goes to $DOCKER_CONFIG/cli-plugins (.cluster/docker), the builder to $BUILDX_CONFIG
# (.cluster/buildx); nothing is written outside the cluster directory. Called by up.sh (which holds
# the lock); idempotent. Stopped by down.sh (the buildkitd component).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

[ -x "$BUILDKITD_BIN" ] || die "missing binary $BUILDKITD_BIN (see scripts/cluster/build-binaries.sh)"
[ -x "$BUILDX_BIN" ] || die "missing binary $BUILDX_BIN (see scripts/cluster/build-binaries.sh)"
command -v runc >/dev/null || die "runc is missing (scripts/install-system.sh installs it)"
mkdir -p "$BUILDKIT_DIR/root" "$BUILDX_DIR" "$DOCKER_DIR/cli-plugins" "$RUN_DIR" "$LOG_DIR"

cat >"$BUILDKIT_DIR/buildkitd.toml.new" <<EOT
[registry."$REGISTRY_HOST"]
  http = true
  insecure = true
[registry."127.0.0.1:$SPREAD_REGISTRY_PORT"]
  http = true
  insecure = true
EOT
# The fault tests' Toxiproxy in front of the registry (test/faults/toxiproxy.ts: the third of three
# ports from SPREAD_TOXIPROXY_PORT, in steps of 3 while taken) is the same plain-HTTP registry.
for ((p = ${SPREAD_TOXIPROXY_PORT:-18474} + 2; p < ${SPREAD_TOXIPROXY_PORT:-18474} + 32; p += 3)); do
  printf '[registry."127.0.0.1:%s"]\n  http = true\n  insecure = true\n' "$p" >>"$BUILDKIT_DIR/buildkitd.toml.new"
done
if cmp -s "$BUILDKIT_DIR/buildkitd.toml.new" "$BUILDKIT_DIR/buildkitd.toml"; then
  rm -f "$BUILDKIT_DIR/buildkitd.toml.new"
else
  mv -f "$BUILDKIT_DIR/buildkitd.toml.new" "$BUILDKIT_DIR/buildkitd.toml"
fi

start_component buildkitd "$SPREAD_BUILDKIT_PORT" "$BUILDKIT_DIR/buildkitd.toml" -- \
  unshare --mount --propagation private -- bash "$here/private-run.sh" "$BUILDKIT_DIR/ns" \
  "$BUILDKITD_BIN" --config "$BUILDKIT_DIR/buildkitd.toml" \
  --root "$BUILDKIT_DIR/root" \
  --addr "unix://$BUILDKIT_SOCK" \
  --addr "tcp://127.0.0.1:$SPREAD_BUILDKIT_PORT" \
  --containerd-worker=false \
  --oci-worker=true \
  --oci-worker-snapshotter=native \
  --oci-worker-net=host \
  --cdi-disabled

buildkit_up() { "$BUILDCTL_BIN" --addr "unix://$BUILDKIT_SOCK" debug workers >/dev/null; }
wait_healthy buildkitd buildkit_up

ln -sfn "$BUILDX_BIN" "$DOCKER_DIR/cli-plugins/docker-buildx"
buildx() { DOCKER_CONFIG=$DOCKER_DIR BUILDX_CONFIG=$BUILDX_DIR docker buildx "$@"; }
if ! buildx inspect spread >/dev/null 2>&1; then
  buildx create --name spread --driver remote "unix://$BUILDKIT_SOCK" >/dev/null
fi
buildx inspect --bootstrap spread >/dev/null || die "the buildx builder spread does not answer"
log "buildkitd ready on $BUILDKIT_SOCK (buildx builder spread)"
