#!/usr/bin/env bash
# Creates the local cluster's certificates and keys with openssl under .cluster/pki/, keeping what is
# already there and still good (so that running processes and issued kubeconfigs stay valid):
#   ca.{crt,key}                  the cluster CA; signs the certificates below but front-proxy-client
#   apiserver.{crt,key}           kube-apiserver's serving certificate (127.0.0.1, localhost, kubernetes.default…)
#   admin.{crt,key}               O=system:masters: cluster admin (kubectl, kwok, up.sh)
#   controller-manager.{crt,key}  CN=system:kube-controller-manager
#   scheduler.{crt,key}           CN=system:kube-scheduler
#   team-a.{crt,key}              CN=team-a-deployer: a user whose RBAC (team-a.yaml) reaches one namespace
#   sa.{key,pub}                  the service-account token signing key pair
#   front-proxy-ca.{crt,key}      the aggregation layer's request-header CA (a separate CA, as kubeadm does)
#   front-proxy-client.{crt,key}  kube-apiserver's client certificate towards aggregated API servers
# A certificate is issued again when it is missing, not signed by the current CA, or expires within
# 30 days. Keys are EC P-256 (fast to make on a small CI machine) except the service-account key,
# which is RSA because RS256 is what every token consumer accepts.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

umask 077
mkdir -p "$PKI_DIR"
cd "$PKI_DIR"

new_ec_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

cert_ok() { # CERT CA_CERT
  local crt=$1
  [ -s "$crt" ] && [ -s "${crt%.crt}.key" ] &&
    openssl verify -CAfile "$2" "$crt" >/dev/null 2>&1 &&
    openssl x509 -in "$crt" -noout -checkend $((30 * 24 * 3600)) >/dev/null
}

# make_ca NAME CN: a CA, made again when missing or expiring within a year.
make_ca() {
  local name=$1 cn=$2
  [ -s "$name.key" ] && [ -s "$name.crt" ] &&
    openssl x509 -in "$name.crt" -noout -checkend $((365 * 24 * 3600)) >/dev/null && return 0
  log "creating $name.crt ($cn)"
  new_ec_key "$name.key"
  openssl req -x509 -new -key "$name.key" -sha256 -days 3650 -subj "/CN=$cn" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -out "$name.crt"
}
make_ca ca spread-local-ca
make_ca front-proxy-ca spread-local-front-proxy-ca

# issue NAME SUBJECT EXTENDED_KEY_USAGE [SUBJECT_ALT_NAMES]; ISSUER names the signing CA (default ca).
issue() {
  local name=$1 subj=$2 eku=$3 san=${4:-} ca=${ISSUER:-ca}
  cert_ok "$name.crt" "$ca.crt" && return 0
  log "issuing $name.crt ($subj)"
  new_ec_key "$name.key"
  openssl req -new -key "$name.key" -subj "$subj" -out "$name.csr"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$eku"
    [ -z "$san" ] || echo "subjectAltName=$san"
  } >"$name.ext"
  openssl x509 -req -in "$name.csr" -CA "$ca.crt" -CAkey "$ca.key" -set_serial "0x$(openssl rand -hex 16)" \
    -sha256 -days 365 -extfile "$name.ext" -out "$name.crt" 2>/dev/null
  rm -f "$name.csr" "$name.ext"
}

issue apiserver "/CN=kube-apiserver" serverAuth \
  "IP:127.0.0.1,DNS:localhost,IP:$KUBERNETES_SVC_IP,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
issue admin "/O=system:masters/CN=spread-admin" clientAuth
issue controller-manager "/CN=system:kube-controller-manager" clientAuth
issue scheduler "/CN=system:kube-scheduler" clientAuth
issue team-a "/CN=team-a-deployer" clientAuth
ISSUER=front-proxy-ca issue front-proxy-client "/CN=front-proxy-client" clientAuth

if ! [ -s sa.key ] || ! [ -s sa.pub ]; then
  log "creating the service-account signing key"
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out sa.key 2>/dev/null
  openssl pkey -in sa.key -pubout -out sa.pub
fi
