#!/usr/bin/env bash
# Starts spread's local test environment, everything on 127.0.0.1 and all state under .cluster/:
#   etcd, kube-apiserver (TLS, Node,RBAC), kube-controller-manager, kube-scheduler and kwok with three
#   fake Nodes (Pods get scheduled and become Running and Ready without a container runtime);
#   a Docker engine (Debian's dockerd) on a unix socket in .cluster/docker/;
#   a Docker registry (Debian's docker-registry) with htpasswd auth on localhost:$SPREAD_REGISTRY_PORT.
#   a standalone buildkitd and the buildx builder `spread` (scripts/cluster/buildkit.sh).
# Idempotent: components already running with the same configuration are left alone, so a second run
# only checks health. Ends with a readiness check and writes .cluster/env (source it, or let
# test/integration/env.ts read it). Stop everything with scripts/cluster/down.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
started=$SECONDS
# --kube-only (npm run quickstart): the API server, controllers and kwok's Nodes only, built and started
# without the Docker engine, registry and BuildKit (and their Go builds), which only & images and the
# tests need; a later up.sh without it adds them and leaves the rest running.
kube_only= build=all
case "${1:-}" in
  --kube-only) kube_only=1 build=cluster ;;
  "") ;;
  *) die "usage: up.sh [--kube-only]" ;;
esac
# A cluster already running whole stays whole: its .cluster/env keeps naming the Docker engine and registry.
if [ -n "$kube_only" ] && component_pid dockerd >/dev/null; then kube_only= build=all; fi

# An unsupported or malformed SPREAD_KUBE_VERSION fails before anything is installed or started.
problem=$(kube_check_version "$SPREAD_KUBE_VERSION") || die "$problem"
mkdir -p "$RUN_DIR" "$LOG_DIR"
# One up.sh or down.sh at a time (e.g. two test runs starting together). The components are started
# with fd 9 closed, so the lock ends with this script.
exec 9>"$RUN_DIR/lock"
flock -w 1800 9 || die "another up.sh or down.sh holds $RUN_DIR/lock"
# Docker's vfs storage copies every layer: one integration run writes about 4 GiB under .cluster/.
# A cluster already running has most of that written; it only needs room to go on.
if component_pid kube-apiserver >/dev/null; then
  require_free_space "$CLUSTER_DIR" 1024 "the running local cluster"
else
  require_free_space "$CLUSTER_DIR" "${SPREAD_MIN_FREE_MIB:-6144}" "the local cluster"
fi

# A fresh machine gets the Debian packages and the binaries; both are no-ops when already there.
bash "$REPO_ROOT/scripts/install-system.sh"
bash "$here/build-binaries.sh" "$build"
for b in "$ETCD_BIN" "$KWOK_BIN" "$KUBE_BIN_DIR"/{kube-apiserver,kube-controller-manager,kube-scheduler,kubectl}; do
  [ -x "$b" ] || die "missing binary $b (see scripts/cluster/build-binaries.sh)"
done
bash "$here/pki.sh"

umask 077
mkdir -p "$CLUSTER_DIR/kubeconfigs" "$CLUSTER_DIR/etcd" "$CLUSTER_DIR/kwok" "$CLUSTER_DIR/bin" \
  "$DOCKER_DIR/data" "$REGISTRY_DIR/data"

# ---- kubeconfigs: one per component, and the user's with two contexts ------------------------------
kubeconfig_user() { # NAME CERT_BASENAME
  cat <<EOF
  - name: $1
    user:
      client-certificate-data: $(b64 "$PKI_DIR/$2.crt")
      client-key-data: $(b64 "$PKI_DIR/$2.key")
EOF
}
kubeconfig_cluster() {
  cat <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: spread-local
    cluster:
      server: $API_URL
      certificate-authority-data: $(b64 "$PKI_DIR/ca.crt")
EOF
}
component_kubeconfig() { # FILE USER CERT_BASENAME
  {
    kubeconfig_cluster
    echo "users:"
    kubeconfig_user "$2" "$3"
    cat <<EOF
contexts:
  - name: spread-local
    context: {cluster: spread-local, user: "$2", namespace: default}
current-context: spread-local
EOF
  } | write_if_changed "$1"
}
component_kubeconfig "$ADMIN_KUBECONFIG" spread-admin admin
component_kubeconfig "$CLUSTER_DIR/kubeconfigs/controller-manager.kubeconfig" system:kube-controller-manager controller-manager
component_kubeconfig "$CLUSTER_DIR/kubeconfigs/scheduler.kubeconfig" system:kube-scheduler scheduler
{
  kubeconfig_cluster
  echo "users:"
  kubeconfig_user spread-admin admin
  kubeconfig_user team-a-deployer team-a
  cat <<EOF
contexts:
  - name: spread-local
    context: {cluster: spread-local, user: spread-admin, namespace: default}
  - name: spread-team-a
    context: {cluster: spread-local, user: team-a-deployer, namespace: team-a}
current-context: spread-local
EOF
} | write_if_changed "$KUBECONFIG_FILE"
# Only kubectl, act (the workflow runner of the Action's tests), Helm 4 (`helm`, which renders
# charts for spread as a user's would) and kustomize (which renders kustomizations, as a user's PATH
# has it) go on PATH through .cluster/env, not the server binaries next to kubectl. Helm 3 is named by
# SPREAD_HELM3 only.
ln -sfn "$KUBECTL" "$CLUSTER_DIR/bin/kubectl"
if [ -x "$SPREAD_CACHE/bin/act-$SPREAD_ACT_VERSION/act" ]; then
  ln -sfn "$SPREAD_CACHE/bin/act-$SPREAD_ACT_VERSION/act" "$CLUSTER_DIR/bin/act"
fi
if [ -x "$HELM_BIN" ]; then ln -sfn "$HELM_BIN" "$CLUSTER_DIR/bin/helm"; fi
if [ -x "$SPREAD_CACHE/bin/kustomize-$SPREAD_KUSTOMIZE_VERSION/kustomize" ]; then
  ln -sfn "$SPREAD_CACHE/bin/kustomize-$SPREAD_KUSTOMIZE_VERSION/kustomize" "$CLUSTER_DIR/bin/kustomize"
fi

# ---- registry: htpasswd (bcrypt) auth with a generated password -----------------------------------
[ -s "$REGISTRY_DIR/password" ] || openssl rand -hex 24 >"$REGISTRY_DIR/password"
[ -s "$REGISTRY_DIR/http-secret" ] || openssl rand -hex 32 >"$REGISTRY_DIR/http-secret"
chmod 600 "$REGISTRY_DIR/password" "$REGISTRY_DIR/http-secret"
registry_password=$(cat "$REGISTRY_DIR/password")
if ! htpasswd -vb "$REGISTRY_DIR/htpasswd" "$REGISTRY_USER" "$registry_password" >/dev/null 2>&1; then
  htpasswd -Bbn "$REGISTRY_USER" "$registry_password" >"$REGISTRY_DIR/htpasswd"
fi
# draintimeout: on SIGTERM (restart.sh; the fault tests' "registry restarted mid-push") the registry
# finishes the requests it serves, as a graceful restart does. Without it distribution 2.8 exits at
# once, and a stop while it writes a link file (written in place) leaves the file empty: that blob
# then answers 500 "invalid checksum digest format" until the file is removed, so every later push of
# it fails (distribution/distribution#1960).
write_if_changed "$REGISTRY_DIR/config.yml" <<EOF
# Generated by scripts/cluster/up.sh.
version: 0.1
log:
  level: info
  formatter: text
storage:
  filesystem:
    rootdirectory: $REGISTRY_DIR/data
  delete:
    enabled: true
  cache:
    blobdescriptor: inmemory
http:
  addr: 127.0.0.1:$SPREAD_REGISTRY_PORT
  draintimeout: 5s
  secret: $(cat "$REGISTRY_DIR/http-secret")
  headers:
    X-Content-Type-Options: [nosniff]
auth:
  htpasswd:
    realm: spread-registry
    path: $REGISTRY_DIR/htpasswd
EOF
# The Docker client config (DOCKER_CONFIG=.cluster/docker) with the registry's credentials, under both
# names of the loopback address; the Docker engine treats 127.0.0.0/8 registries as plain HTTP.
registry_auth=$(printf '%s:%s' "$REGISTRY_USER" "$registry_password" | base64 -w0)
write_if_changed "$DOCKER_DIR/config.json" <<EOF
{
  "auths": {
    "$REGISTRY_HOST": { "auth": "$registry_auth" },
    "127.0.0.1:$SPREAD_REGISTRY_PORT": { "auth": "$registry_auth" }
  }
}
EOF

# ---- Docker engine ----------------------------------------------------------------------------------
# A unix socket path must fit in 108 bytes; a deep checkout falls back to a short path in /tmp.
if [ ${#DOCKER_SOCK} -gt 100 ]; then
  DOCKER_SOCK=/tmp/spread-docker-$(printf '%s' "$CLUSTER_DIR" | sha256sum | cut -c1-12).sock
  log "the checkout's path is too long for a unix socket; the Docker socket is $DOCKER_SOCK"
fi
# Its own daemon.json (not /etc/docker/daemon.json); the key path keeps dockerd 20.10 from creating
# /etc/docker/key.json.
write_if_changed "$DOCKER_DIR/daemon.json" <<EOF
{
  "deprecated-key-path": "$DOCKER_DIR/key.json"
}
EOF
# dockerd's pid file must not point at a live process of someone else from an earlier run.
component_pid dockerd >/dev/null || rm -f "$DOCKER_DIR/dockerd.pid"
# vfs needs no kernel overlay support; no iptables, no bridge, no IP forwarding: the daemon changes
# nothing in the host's network. It runs in a private mount namespace (see private-run.sh) whose
# /run holds its exec-root, so the exec-root's unix sockets have short paths wherever the checkout is.
if [ -z "$kube_only" ]; then
  start_component dockerd - "$DOCKER_DIR/daemon.json" -- \
    unshare --mount --propagation private -- bash "$here/private-run.sh" "$DOCKER_DIR/ns" \
    dockerd --config-file "$DOCKER_DIR/daemon.json" \
    --host "unix://$DOCKER_SOCK" \
    --data-root "$DOCKER_DIR/data" \
    --exec-root /run/spread-docker \
    --pidfile "$DOCKER_DIR/dockerd.pid" \
    --storage-driver=vfs --iptables=false --ip6tables=false --ip-forward=false --ip-masq=false --bridge=none

  # ---- registry --------------------------------------------------------------------------------------
  start_component registry "$SPREAD_REGISTRY_PORT" "$REGISTRY_DIR/config.yml" "$REGISTRY_DIR/htpasswd" -- \
    docker-registry serve "$REGISTRY_DIR/config.yml"
fi

# ---- etcd ------------------------------------------------------------------------------------------
start_component etcd "$SPREAD_ETCD_PORT" -- \
  "$ETCD_BIN" --name spread --data-dir "$CLUSTER_DIR/etcd" \
  --listen-client-urls "http://127.0.0.1:$SPREAD_ETCD_PORT" \
  --advertise-client-urls "http://127.0.0.1:$SPREAD_ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$SPREAD_ETCD_PEER_PORT" \
  --initial-advertise-peer-urls "http://127.0.0.1:$SPREAD_ETCD_PEER_PORT" \
  --initial-cluster "spread=http://127.0.0.1:$SPREAD_ETCD_PEER_PORT" \
  --initial-cluster-state new
etcd_healthy() { curl -fsS --max-time 2 "http://127.0.0.1:$SPREAD_ETCD_PORT/health" | grep -q '"health":"true"'; }
wait_healthy etcd etcd_healthy

# ---- kube-apiserver --------------------------------------------------------------------------------
# The advertise address is loopback, which no Pod could reach and which Endpoints validation rejects;
# --endpoint-reconciler-type=none keeps the API server from publishing it as the `kubernetes`
# Service's endpoints. (With `none`, every start logs a spurious "Found stale data, removed previous
# endpoints on kubernetes service": the none reconciler's RemoveEndpoints always reports success.)
# Without a watch termination grace period, a stop waits up to --request-timeout (60 s) for the
# controllers' and kwok's watches, which never end by themselves; with it, they are closed at once.
# The request-header (front-proxy) flags configure the aggregation layer; without them the controller
# manager and scheduler, which read that configuration for their own serving, log errors forever.
# The audit log (audit-policy.yaml: level Metadata, one JSON line per completed request of a client,
# the cluster's own components left out) lets benchmarks count requests by user agent and verb; it is
# rotated at 100 MB, one old file kept.
kube_start kube-apiserver "$SPREAD_API_PORT" "$PKI_DIR/ca.crt" "$PKI_DIR/front-proxy-ca.crt" "$PKI_DIR/sa.pub" "$PKI_DIR/sa.key" "$here/audit-policy.yaml" -- \
  --etcd-servers "http://127.0.0.1:$SPREAD_ETCD_PORT" \
  --bind-address 127.0.0.1 --secure-port "$SPREAD_API_PORT" --advertise-address 127.0.0.1 \
  --endpoint-reconciler-type none \
  --tls-cert-file "$PKI_DIR/apiserver.crt" --tls-private-key-file "$PKI_DIR/apiserver.key" \
  --client-ca-file "$PKI_DIR/ca.crt" \
  --requestheader-client-ca-file "$PKI_DIR/front-proxy-ca.crt" \
  --requestheader-allowed-names front-proxy-client \
  --requestheader-username-headers X-Remote-User \
  --requestheader-group-headers X-Remote-Group \
  --requestheader-extra-headers-prefix X-Remote-Extra- \
  --proxy-client-cert-file "$PKI_DIR/front-proxy-client.crt" \
  --proxy-client-key-file "$PKI_DIR/front-proxy-client.key" \
  --authorization-mode Node,RBAC \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$PKI_DIR/sa.pub" \
  --service-account-signing-key-file "$PKI_DIR/sa.key" \
  --service-cluster-ip-range "$SERVICE_CIDR" \
  --allow-privileged \
  --cert-dir "$PKI_DIR/apiserver-generated" \
  --shutdown-watch-termination-grace-period 5s \
  --audit-policy-file "$here/audit-policy.yaml" \
  --audit-log-path "$LOG_DIR/audit.log" --audit-log-format json \
  --audit-log-maxsize 100 --audit-log-maxbackup 1 \
  --profiling=false
apiserver_ready() { [ "$(api_get /readyz)" = ok ]; }
wait_healthy kube-apiserver apiserver_ready

# ---- controllers -----------------------------------------------------------------------------------
# The FlexVolume plugin directory would otherwise be created under /usr/libexec on the host.
kcm_kubeconfig=$CLUSTER_DIR/kubeconfigs/controller-manager.kubeconfig
# A long node-monitor grace period: kwok's Nodes miss heartbeats whenever the API server is stopped or
# saturated (tests stop it on purpose, benchmarks saturate it); with the default 40 s the Nodes would be
# marked NotReady and their Pods' Ready condition set to False, which kwok never sets back.
kube_start kube-controller-manager "$SPREAD_CONTROLLER_MANAGER_PORT" "$kcm_kubeconfig" "$PKI_DIR/ca.crt" "$PKI_DIR/sa.key" -- \
  --kubeconfig "$kcm_kubeconfig" \
  --authentication-kubeconfig "$kcm_kubeconfig" --authorization-kubeconfig "$kcm_kubeconfig" \
  --bind-address 127.0.0.1 --secure-port "$SPREAD_CONTROLLER_MANAGER_PORT" \
  --cert-dir "$PKI_DIR/controller-manager-generated" \
  --flex-volume-plugin-dir "$CLUSTER_DIR/flexvolume" \
  --leader-elect=false \
  --use-service-account-credentials \
  --service-account-private-key-file "$PKI_DIR/sa.key" \
  --root-ca-file "$PKI_DIR/ca.crt" \
  --cluster-signing-cert-file "$PKI_DIR/ca.crt" --cluster-signing-key-file "$PKI_DIR/ca.key" \
  --service-cluster-ip-range "$SERVICE_CIDR" \
  --cluster-name spread-local \
  --node-monitor-grace-period 5m \
  --profiling=false
sched_kubeconfig=$CLUSTER_DIR/kubeconfigs/scheduler.kubeconfig
kube_start kube-scheduler "$SPREAD_SCHEDULER_PORT" "$sched_kubeconfig" -- \
  --kubeconfig "$sched_kubeconfig" \
  --authentication-kubeconfig "$sched_kubeconfig" --authorization-kubeconfig "$sched_kubeconfig" \
  --bind-address 127.0.0.1 --secure-port "$SPREAD_SCHEDULER_PORT" \
  --leader-elect=false \
  --profiling=false
# KWOK_WORKDIR keeps kwok from reading a ~/.kwok/kwok.yaml; kwok opens no port (no --server-address).
start_component kwok - "$here/kwok.yaml" "$ADMIN_KUBECONFIG" -- \
  env KWOK_WORKDIR="$CLUSTER_DIR/kwok" "$KWOK_BIN" \
  --kubeconfig "$ADMIN_KUBECONFIG" \
  --config "$here/kwok.yaml"

kubectl_admin apply -f "$here/kwok-nodes.yaml" -f "$here/team-a.yaml" >/dev/null

insecure_healthz() { [ "$(curl -ksS --max-time 2 "https://127.0.0.1:$1/healthz")" = ok ]; }
wait_healthy kube-controller-manager insecure_healthz "$SPREAD_CONTROLLER_MANAGER_PORT"
wait_healthy kube-scheduler insecure_healthz "$SPREAD_SCHEDULER_PORT"

if [ -z "$kube_only" ]; then
  docker_ping() { [ "$(curl -fsS --max-time 2 --unix-socket "$DOCKER_SOCK" http://docker/_ping)" = OK ]; }
  wait_healthy dockerd docker_ping
  # Up and enforcing auth: anonymous gets 401, the configured user 200.
  registry_status() { curl -sS --max-time 2 -o /dev/null -w '%{http_code}' "$@" "http://127.0.0.1:$SPREAD_REGISTRY_PORT/v2/"; }
  registry_up() {
    [ "$(registry_status)" = 401 ] && [ "$(registry_status -u "$REGISTRY_USER:$registry_password")" = 200 ]
  }
  wait_healthy registry registry_up

  # ---- BuildKit: buildkitd and the buildx builder `spread` (images are built with docker buildx) -----
  bash "$here/buildkit.sh"

  # ---- a local base image ----------------------------------------------------------------------------
  # Nothing can be pulled here, so examples and tests build FROM this image: Debian's static busybox in
  # an otherwise empty image. Its registry name `spread.local` is never contacted: the image is local.
  BASE_IMAGE=spread.local/busybox:1
  if ! curl -fs --max-time 5 --unix-socket "$DOCKER_SOCK" -o /dev/null "http://docker/images/$BASE_IMAGE/json"; then
    base_ctx=$(mktemp -d)
    cp /bin/busybox "$base_ctx/busybox"
    printf 'FROM scratch\nCOPY busybox /bin/busybox\nRUN ["/bin/busybox", "--install", "-s", "/bin"]\nENV PATH=/bin\n' >"$base_ctx/Dockerfile"
    # The classic builder (no BuildKit on this dockerd) with no network: nothing is fetched.
    tar -C "$base_ctx" -cf - . | curl -fsS --max-time 300 --unix-socket "$DOCKER_SOCK" -H 'Content-Type: application/x-tar' \
      --data-binary @- "http://docker/build?t=$BASE_IMAGE&networkmode=none&rm=1&forcerm=1" >"$LOG_DIR/base-image.log" ||
      die "could not build $BASE_IMAGE: $(tail -5 "$LOG_DIR/base-image.log")"
    grep -q '"errorDetail"' "$LOG_DIR/base-image.log" && die "could not build $BASE_IMAGE: $(grep errorDetail "$LOG_DIR/base-image.log")"
    rm -rf "$base_ctx"
    log "built the local base image $BASE_IMAGE"
  fi
  # BuildKit pulls FROM images from a registry, never from the engine: the same image in the local
  # registry, for builds with buildx.
  BASE_IMAGE_REF=$REGISTRY_HOST/spread/busybox:1
  if ! DOCKER_CONFIG=$DOCKER_DIR docker --host "unix://$DOCKER_SOCK" manifest inspect --insecure "$BASE_IMAGE_REF" >/dev/null 2>&1; then
    DOCKER_CONFIG=$DOCKER_DIR docker --host "unix://$DOCKER_SOCK" tag "$BASE_IMAGE" "$BASE_IMAGE_REF"
    DOCKER_CONFIG=$DOCKER_DIR docker --host "unix://$DOCKER_SOCK" push -q "$BASE_IMAGE_REF" >/dev/null ||
      die "could not push $BASE_IMAGE_REF"
    log "pushed the local base image as $BASE_IMAGE_REF"
  fi
fi

# ---- readiness -------------------------------------------------------------------------------------
# kwok_nodes_ready: the three Nodes exist and every Node of the cluster is Ready.
nodes_ready() {
  local conds
  conds=$(kubectl_admin get nodes -o jsonpath='{range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}')
  [ "$(grep -c '^spread-worker-[123]=True$' <<<"$conds")" = 3 ] && ! grep -qv '=True$' <<<"$conds"
}
wait_healthy kwok nodes_ready
# Pods are only admitted once their namespace's `default` ServiceAccount exists (made by the
# controller manager's serviceaccount controller), and team-a's rights appear once the controller
# manager has aggregated the `admin` ClusterRole.
service_accounts_ready() { kubectl_admin get serviceaccount default -n default && kubectl_admin get serviceaccount default -n team-a; }
wait_healthy kube-controller-manager service_accounts_ready
team_a_can() { "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" --context spread-team-a auth can-i "$@"; }
wait_healthy kube-controller-manager team_a_can create services -n team-a
if team_a_can create services -n default >/dev/null 2>&1; then
  die "team-a-deployer may create services in namespace default; its RBAC is too wide"
fi
apiserver_ready || die "kube-apiserver /readyz is not ok: $(api_get '/readyz?verbose' 2>&1 | grep -v ' ok$' || true)"

# ---- .cluster/env ----------------------------------------------------------------------------------
# `export KEY=VALUE` lines: bash can source the file, test/integration/env.ts parses it. Values are
# single-quoted only when they need it; PATH refers to the caller's PATH.
env_line() {
  local v=$2
  [[ $v =~ ^[A-Za-z0-9_./:@%+,=-]*$ ]] || v="'${v//\'/\'\\\'\'}'"
  printf 'export %s=%s\n' "$1" "$v"
}
{
  if [ -n "$kube_only" ]; then
    echo "# Generated by scripts/cluster/up.sh --kube-only: the local cluster of spread's quickstart (no Docker engine, registry or BuildKit)."
  else
    echo "# Generated by scripts/cluster/up.sh: the local cluster, Docker engine and registry of spread's tests."
  fi
  env_line KUBECONFIG "$KUBECONFIG_FILE"
  env_line SPREAD_KUBECTL "$KUBECTL"
  env_line SPREAD_HELM "$HELM_BIN"
  env_line SPREAD_HELM3 "$HELM3_BIN"
  env_line SPREAD_KUBE_VERSION "$SPREAD_KUBE_VERSION"
  env_line SPREAD_API_SERVER "$API_URL"
  env_line SPREAD_CLUSTER_DIR "$CLUSTER_DIR"
  env_line KUBECACHEDIR "$KUBECACHEDIR"
  env_line SPREAD_BIN_DIR "$CLUSTER_DIR/bin"
  if [ -z "$kube_only" ]; then
    env_line DOCKER_HOST "unix://$DOCKER_SOCK"
    env_line DOCKER_CONFIG "$DOCKER_DIR"
    env_line BUILDX_CONFIG "$BUILDX_DIR"
    env_line BUILDX_BUILDER spread
    env_line SPREAD_BUILDKIT_HOST "unix://$BUILDKIT_SOCK"
    env_line SPREAD_BUILDKIT_TCP "tcp://127.0.0.1:$SPREAD_BUILDKIT_PORT"
    env_line SPREAD_BASE_IMAGE "$BASE_IMAGE"
    env_line SPREAD_BASE_IMAGE_REF "$BASE_IMAGE_REF"
    env_line SPREAD_REGISTRY "$REGISTRY_HOST"
    env_line SPREAD_REGISTRY_USER "$REGISTRY_USER"
    env_line SPREAD_REGISTRY_PASSWORD_FILE "$REGISTRY_DIR/password"
  fi
  # shellcheck disable=SC2016 # expanded by whoever sources the file
  echo 'export PATH="${SPREAD_BIN_DIR}:${PATH}"'
} | write_if_changed "$CLUSTER_DIR/env"
chmod 644 "$CLUSTER_DIR/env"

if [ -n "$kube_only" ]; then
  log "ready in $((SECONDS - started))s: Kubernetes $SPREAD_KUBE_VERSION at $API_URL (3 kwok Nodes); no Docker engine, registry or BuildKit (--kube-only)"
else
  log "ready in $((SECONDS - started))s: Kubernetes $SPREAD_KUBE_VERSION at $API_URL (3 kwok Nodes), Docker at unix://$DOCKER_SOCK, registry $REGISTRY_HOST"
fi
log "use it with: source $CLUSTER_DIR/env"
