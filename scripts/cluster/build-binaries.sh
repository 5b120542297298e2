#!/usr/bin/env bash
# Builds the local cluster's binaries from Go modules and caches them by version:
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubectl  (k8s.io/kubernetes@$SPREAD_KUBE_VERSION)
#   etcd                                                              (go.etcd.io/etcd/server/v3@$SPREAD_ETCD_VERSION)
#   kwok                                                              (sigs.k8s.io/kwok@$SPREAD_KWOK_VERSION)
#   act (the GitHub Actions runner the Action's tests run under)      (github.com/nektos/act@$SPREAD_ACT_VERSION)
# into $SPREAD_CACHE/bin/<component>-<version>/. A binary already in the cache is not rebuilt.
# k8s.io/kubernetes is not meant to be a dependency: its go.mod replaces every k8s.io/<staging> module
# with ./staging/src/k8s.io/<staging>, which only works inside its own repository. The wrapper module
# below requires it and replaces each staging module with the published v0.<minor>.<patch> instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.sh
. "$here/versions.sh"

export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local
work="$SPREAD_CACHE/src"
mkdir -p "$work"
# The cache is shared by every checkout (and every SPREAD_CLUSTER_DIR) of the machine: one build at a
# time, and a second caller waits for the first and then finds the binaries cached.
exec 8>"$SPREAD_CACHE/build.lock"
flock 8

log() { printf '[build-binaries] %s\n' "$*" >&2; }

build_kube() {
  local v=$SPREAD_KUBE_VERSION out="$SPREAD_CACHE/bin/kubernetes-$SPREAD_KUBE_VERSION"
  local want=(kube-apiserver kube-controller-manager kube-scheduler kubectl) missing=()
  for b in "${want[@]}"; do [ -x "$out/$b" ] || missing+=("$b"); done
  [ ${#missing[@]} -eq 0 ] && { log "kubernetes $v cached in $out"; return; }
  log "building kubernetes $v: ${missing[*]} (first build takes many minutes)"
  local mod="$work/kubernetes-$v" staging_v="v0.${v#v1.}"
  rm -rf "$mod" && mkdir -p "$mod"
  local upstream
  upstream=$(cd "$mod" && go mod download -json "k8s.io/kubernetes@$v" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
  {
    echo "module spread.local/kube-build"
    echo
    grep -m1 '^go ' "$upstream"
    echo
    echo "require k8s.io/kubernetes $v"
    echo
    grep -oE '^[[:space:]]*k8s\.io/[a-z0-9-]+ => \./staging/src/k8s\.io/[a-z0-9-]+' "$upstream" \
      | awk -v sv="$staging_v" '{ print "replace " $1 " => " $1 " " sv }'
  } > "$mod/go.mod"
  cat > "$mod/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  (cd "$mod" && go mod tidy)
  local minor=${v#v1.}; minor=${minor%%.*}
  local ld="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $pkg.gitVersion=$v -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ld+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  mkdir -p "$out.tmp"
  for b in "${missing[@]}"; do
    log "go build $b"
    (cd "$mod" && go build -trimpath -ldflags "$ld" -o "$out.tmp/$b" "k8s.io/kubernetes/cmd/$b")
  done
  mkdir -p "$out"
  mv "$out.tmp"/* "$out/" && rmdir "$out.tmp"
}

build_etcd() {
  local v=$SPREAD_ETCD_VERSION out="$SPREAD_CACHE/bin/etcd-$SPREAD_ETCD_VERSION"
  [ -x "$out/etcd" ] && { log "etcd $v cached in $out"; return; }
  log "building etcd $v"
  local mod="$work/etcd-$v"
  rm -rf "$mod" && mkdir -p "$mod"
  cat > "$mod/go.mod" <<GOMOD
module spread.local/etcd-build

go 1.24

require go.etcd.io/etcd/server/v3 $v
GOMOD
  cat > "$mod/main.go" <<'GO'
// Command etcd runs etcd's own entry point, go.etcd.io/etcd/server/v3/etcdmain.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  (cd "$mod" && go mod tidy && go build -trimpath -ldflags "-s -w" -o "$out.tmp/etcd" .)
  mkdir -p "$out" && mv "$out.tmp/etcd" "$out/etcd" && rmdir "$out.tmp"
}

build_kwok() {
  local v=$SPREAD_KWOK_VERSION out="$SPREAD_CACHE/bin/kwok-$SPREAD_KWOK_VERSION"
  [ -x "$out/kwok" ] && { log "kwok $v cached in $out"; return; }
  log "building kwok $v"
  mkdir -p "$out.tmp"
  GOBIN="$out.tmp" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$v"
  mkdir -p "$out" && mv "$out.tmp/kwok" "$out/kwok" && rmdir "$out.tmp"
}

# act's module has no replace directives, so `go install module@version` builds it as released.
build_act() {
  local v=$SPREAD_ACT_VERSION out="$SPREAD_CACHE/bin/act-$SPREAD_ACT_VERSION"
  [ -x "$out/act" ] && { log "act $v cached in $out"; return; }
  log "building act $v"
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  GOBIN="$out.tmp" go install -trimpath -ldflags "-s -w" "github.com/nektos/act@$v"
  mkdir -p "$out" && mv "$out.tmp/act" "$out/act" && rmdir "$out.tmp"
}

case "${1:-all}" in
  kube) build_kube ;;
  etcd) build_etcd ;;
  kwok) build_kwok ;;
  act) build_act ;;
  all) build_etcd; build_kwok; build_act; build_kube ;;
  *) echo "usage: $0 [all|kube|etcd|kwok|act]" >&2; exit 2 ;;
esac
