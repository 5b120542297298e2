#!/usr/bin/env bash
# Several local clusters side by side, for environments and fleets: `clusters.sh COUNT` keeps clusters
# 2..COUNT running beside the one up.sh starts (cluster 1). Each extra cluster is its own
# kube-apiserver over the shared etcd under its own --etcd-prefix (so its own objects, its own
# kube-system Namespace and uid), with a controller manager, a scheduler and kwok with three fake Nodes,
# on ports of its own; the Docker engine, registry and BuildKit stay shared. Writes
# .cluster/clusters.kubeconfig (contexts spread-local, spread-local-2 … spread-local-COUNT, the admin
# user) and .cluster/clusters.env. Idempotent like up.sh; down.sh stops them. Needs up.sh's cluster.
# Ports of cluster N (2..9): API server SPREAD_CLUSTER_API_PORT_BASE+N (default 6450+N), controller
# manager SPREAD_CLUSTER_CM_PORT_BASE+N (default 10370+N), scheduler SPREAD_CLUSTER_SCHED_PORT_BASE+N
# (default 10380+N); offset all three when two harnesses share a machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
count=${1:-${SPREAD_CLUSTERS:-2}}
[[ $count =~ ^[1-9]$ ]] || die "usage: clusters.sh COUNT (1 to 9 clusters in all)"
started=$SECONDS

exec 9>"$RUN_DIR/lock"
flock -w 1800 9 || die "another up.sh, clusters.sh or down.sh holds $RUN_DIR/lock"
component_pid etcd >/dev/null && component_pid kube-apiserver >/dev/null ||
  die "the local cluster is not running: start it with scripts/cluster/up.sh first"

api_port() { echo $((${SPREAD_CLUSTER_API_PORT_BASE:-6450} + $1)); }
cm_port() { echo $((${SPREAD_CLUSTER_CM_PORT_BASE:-10370} + $1)); }
sched_port() { echo $((${SPREAD_CLUSTER_SCHED_PORT_BASE:-10380} + $1)); }
api_url() { echo "https://127.0.0.1:$(api_port "$1")"; }

cluster_kubeconfig() { # FILE SERVER USER CERT_BASENAME
  cat <<EOF | write_if_changed "$1"
apiVersion: v1
kind: Config
clusters:
  - name: local
    cluster:
      server: $2
      certificate-authority-data: $(b64 "$PKI_DIR/ca.crt")
users:
  - name: $3
    user:
      client-certificate-data: $(b64 "$PKI_DIR/$4.crt")
      client-key-data: $(b64 "$PKI_DIR/$4.key")
contexts:
  - name: local
    context: {cluster: local, user: "$3", namespace: default}
current-context: local
EOF
}

# start_cluster N: the API server, controllers and kwok of cluster N, each a component named NAME-N.
# Lighter than cluster 1: no audit log, no watch cache (lists are served from etcd; a test cluster
# holds few objects), no profiling.
start_cluster() {
  local n=$1 dir=$CLUSTER_DIR/clusters/$n url
  url=$(api_url "$n")
  mkdir -p "$dir"
  kube_start "kube-apiserver-$n" "$(api_port "$n")" "$PKI_DIR/ca.crt" "$PKI_DIR/front-proxy-ca.crt" "$PKI_DIR/sa.pub" "$PKI_DIR/sa.key" -- \
    --etcd-servers "http://127.0.0.1:$SPREAD_ETCD_PORT" --etcd-prefix "/spread-cluster-$n" \
    --bind-address 127.0.0.1 --secure-port "$(api_port "$n")" --advertise-address 127.0.0.1 \
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
    --service-account-issuer "https://kubernetes.default.svc.cluster.local/cluster-$n" \
    --service-account-key-file "$PKI_DIR/sa.pub" \
    --service-account-signing-key-file "$PKI_DIR/sa.key" \
    --service-cluster-ip-range "$SERVICE_CIDR" \
    --allow-privileged \
    --cert-dir "$dir/apiserver-generated" \
    --shutdown-watch-termination-grace-period 5s \
    --watch-cache=false \
    --profiling=false
  cluster_ready() { curl -fsS --max-time 2 --cacert "$PKI_DIR/ca.crt" --cert "$PKI_DIR/admin.crt" --key "$PKI_DIR/admin.key" "$1/readyz" | grep -qx ok; }
  wait_healthy "kube-apiserver-$n" cluster_ready "$url"
  cluster_kubeconfig "$dir/admin.kubeconfig" "$url" spread-admin admin
  cluster_kubeconfig "$dir/controller-manager.kubeconfig" "$url" system:kube-controller-manager controller-manager
  cluster_kubeconfig "$dir/scheduler.kubeconfig" "$url" system:kube-scheduler scheduler
  local kcm=$dir/controller-manager.kubeconfig sched=$dir/scheduler.kubeconfig
  kube_start "kube-controller-manager-$n" "$(cm_port "$n")" "$kcm" "$PKI_DIR/ca.crt" "$PKI_DIR/sa.key" -- \
    --kubeconfig "$kcm" --authentication-kubeconfig "$kcm" --authorization-kubeconfig "$kcm" \
    --bind-address 127.0.0.1 --secure-port "$(cm_port "$n")" \
    --cert-dir "$dir/controller-manager-generated" \
    --flex-volume-plugin-dir "$CLUSTER_DIR/flexvolume" \
    --leader-elect=false \
    --use-service-account-credentials \
    --service-account-private-key-file "$PKI_DIR/sa.key" \
    --root-ca-file "$PKI_DIR/ca.crt" \
    --cluster-signing-cert-file "$PKI_DIR/ca.crt" --cluster-signing-key-file "$PKI_DIR/ca.key" \
    --service-cluster-ip-range "$SERVICE_CIDR" \
    --cluster-name "spread-local-$n" \
    --node-monitor-grace-period 5m \
    --profiling=false
  kube_start "kube-scheduler-$n" "$(sched_port "$n")" "$sched" -- \
    --kubeconfig "$sched" --authentication-kubeconfig "$sched" --authorization-kubeconfig "$sched" \
    --bind-address 127.0.0.1 --secure-port "$(sched_port "$n")" \
    --leader-elect=false \
    --profiling=false
  mkdir -p "$dir/kwok"
  start_component "kwok-$n" - "$here/kwok.yaml" "$dir/admin.kubeconfig" -- \
    env KWOK_WORKDIR="$dir/kwok" "$KWOK_BIN" --kubeconfig "$dir/admin.kubeconfig" --config "$here/kwok.yaml"
  "$KUBECTL" --kubeconfig "$dir/admin.kubeconfig" apply -f "$here/kwok-nodes.yaml" >/dev/null
}

# cluster_healthy N: every Node Ready and the default ServiceAccount made (Pods are admitted).
cluster_healthy() {
  local k=("$KUBECTL" --kubeconfig "$CLUSTER_DIR/clusters/$1/admin.kubeconfig")
  [ "$("${k[@]}" get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c '^True$')" = 3 ] &&
    "${k[@]}" get serviceaccount default -n default >/dev/null
}

for ((n = 2; n <= count; n++)); do
  start_cluster "$n"
done
for ((n = 2; n <= count; n++)); do
  wait_healthy "kwok-$n" cluster_healthy "$n"
done

# ---- clusters.kubeconfig and clusters.env -------------------------------------------------------
# Every running cluster is listed, not only the first COUNT: a test asking for 2 while another's 4
# run must not take contexts away from it.
listed=$count
for ((n = count + 1; n <= 9; n++)); do
  if component_pid "kube-apiserver-$n" >/dev/null; then listed=$n; fi
done
{
  echo "apiVersion: v1"
  echo "kind: Config"
  echo "clusters:"
  for ((n = 1; n <= listed; n++)); do
    server=$API_URL
    [ "$n" = 1 ] || server=$(api_url "$n")
    printf '  - name: spread-local%s\n    cluster:\n      server: %s\n      certificate-authority-data: %s\n' \
      "$([ "$n" = 1 ] || echo "-$n")" "$server" "$(b64 "$PKI_DIR/ca.crt")"
  done
  printf 'users:\n  - name: spread-admin\n    user:\n      client-certificate-data: %s\n      client-key-data: %s\n' \
    "$(b64 "$PKI_DIR/admin.crt")" "$(b64 "$PKI_DIR/admin.key")"
  echo "contexts:"
  for ((n = 1; n <= listed; n++)); do
    name=spread-local$([ "$n" = 1 ] || echo "-$n")
    printf '  - name: %s\n    context: {cluster: %s, user: spread-admin, namespace: default}\n' "$name" "$name"
  done
  echo "current-context: spread-local"
} | write_if_changed "$CLUSTER_DIR/clusters.kubeconfig"
chmod 600 "$CLUSTER_DIR/clusters.kubeconfig"
{
  echo "# Generated by scripts/cluster/clusters.sh: the local clusters side by side (cluster 1 is up.sh's)."
  echo "export SPREAD_CLUSTERS=$listed"
  echo "export SPREAD_CLUSTERS_KUBECONFIG=$CLUSTER_DIR/clusters.kubeconfig"
  for ((n = 2; n <= listed; n++)); do echo "export SPREAD_API_SERVER_$n=$(api_url "$n")"; done
} | write_if_changed "$CLUSTER_DIR/clusters.env"
chmod 644 "$CLUSTER_DIR/clusters.env"
log "ready in $((SECONDS - started))s: $listed clusters (contexts spread-local … spread-local-$listed in $CLUSTER_DIR/clusters.kubeconfig)"
