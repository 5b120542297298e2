#!/usr/bin/env bash
# Builds the local cluster's binaries from Go modules and caches them by version:
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubectl  (k8s.io/kubernetes@$SPREAD_KUBE_VERSION)
#   etcd                                                              (go.etcd.io/etcd/server/v3@$SPREAD_ETCD_VERSION)
#   kwok                                                              (sigs.k8s.io/kwok@$SPREAD_KWOK_VERSION)
#   act (the GitHub Actions runner the Action's tests run under)      (github.com/nektos/act@$SPREAD_ACT_VERSION)
#   toxiproxy-server, toxiproxy-cli (latency and fault injection)     (github.com/Shopify/toxiproxy/v2@$SPREAD_TOXIPROXY_VERSION)
#   helm (a peer in the benchmark; renders charts in the tests)       (helm.sh/helm/v4@$SPREAD_HELM_VERSION)
#   helm 3 (charts rendered and releases adopted with the older major) (helm.sh/helm/v3@$SPREAD_HELM3_VERSION)
#   kustomize (renders kustomizations; the reference for them)        (sigs.k8s.io/kustomize/kustomize/v5@$SPREAD_KUSTOMIZE_VERSION)
#   buildx (the docker CLI plugin images are built with)              (github.com/docker/buildx@$SPREAD_BUILDX_VERSION)
#   buildkitd, buildctl (the standalone BuildKit builder)             (github.com/moby/buildkit@$SPREAD_BUILDKIT_VERSION)
# into $SPREAD_CACHE/bin/<component>-<version>/ (several Kubernetes versions side by side). A binary
# already in the cache is not rebuilt, unless it is one of those that report their version (buildx,
# BuildKit, Helm, kustomize, Toxiproxy) and reports another. `build-binaries.sh check` only checks that the Go
# module proxy serves every module $SPREAD_KUBE_VERSION needs.
# `build-binaries.sh cluster` builds only what the cluster runs (etcd, kwok, Kubernetes), side by side.
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
# time, and a second caller waits for the first and then finds the binaries cached. The module check
# only reads, so it runs before the lock is taken.
locked=
lock_cache() {
  [ -n "$locked" ] && return
  exec 8>"$SPREAD_CACHE/build.lock"
  flock 8
  locked=1
}

log() { printf '[build-binaries] %s\n' "$*" >&2; }
die() { printf '[build-binaries] error: %s\n' "$*" >&2; exit 1; }

# The kube binaries of $SPREAD_KUBE_VERSION still to build; none when all are cached.
kube_missing() {
  local out="$SPREAD_CACHE/bin/kubernetes-$SPREAD_KUBE_VERSION" b
  for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    [ -x "$out/$b" ] || printf '%s\n' "$b"
  done
}

# Prints the path of k8s.io/kubernetes@VERSION's go.mod, downloaded through the Go module proxy.
upstream_go_mod() {
  local gomod
  gomod=$(cd "$work" && go mod download -json "k8s.io/kubernetes@$1" 2>&1) ||
    die "Kubernetes $1: the Go module proxy ($(go env GOPROXY)) does not serve k8s.io/kubernetes@$1: $(sed -n 's/^[[:space:]]*"Error": "\(.*\)",*$/\1/p' <<<"$gomod" | sed 's/\\n.*//' | head -1)"
  sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p' <<<"$gomod"
}

# The staging modules k8s.io/kubernetes@VERSION replaces with ./staging/src/…, as published modules.
# sample-apiserver, sample-cli-plugin and sample-controller are left out: the four commands built here
# import none of them, and the proxy lacks them at several patch releases.
staging_modules() {
  grep -oE '^[[:space:]]*k8s\.io/[a-z0-9-]+ => \./staging/src/k8s\.io/[a-z0-9-]+' "$1" |
    awk '{ print $1 }' | grep -v '^k8s\.io/sample-'
}

# check_kube_modules: fails at once, naming every missing module, when the Go module proxy does not
# serve k8s.io/kubernetes@$SPREAD_KUBE_VERSION or one of its staging modules at the matching
# v0.MINOR.PATCH (v1.31.13 lacks k8s.io/cloud-provider@v0.31.13, for instance), instead of failing
# minutes into the build. A version whose binaries are all cached is not checked (no network).
check_kube_modules() {
  local v=$SPREAD_KUBE_VERSION problem
  problem=$(kube_check_version "$v") || die "$problem"
  [ -n "$(kube_missing)" ] || return 0
  local upstream staging_v="v0.${v#v1.}" queries=() missing
  upstream=$(upstream_go_mod "$v")
  # GOTOOLCHAIN=local: an older Go than the go.mod declares would fail only once the build starts.
  local need_go have_go
  need_go=$(awk '$1 == "go" { print $2; exit }' "$upstream")
  have_go=$(go env GOVERSION)
  have_go=${have_go#go}
  [ "$(printf '%s\n%s\n' "$need_go" "$have_go" | sort -V | head -1)" = "$need_go" ] ||
    die "Kubernetes $v needs Go $need_go (its go.mod says so); this machine has Go $have_go"
  mapfile -t queries < <(staging_modules "$upstream" | sed "s/\$/@$staging_v/")
  [ ${#queries[@]} -gt 0 ] || die "Kubernetes $v: no staging modules found in $upstream"
  missing=$(cd "$work" && go list -m -e -f '{{if .Error}}{{.Path}}@{{.Version}}{{end}}' "${queries[@]}")
  [ -z "$missing" ] ||
    die "Kubernetes $v cannot be built: the Go module proxy ($(go env GOPROXY)) does not serve $(paste -sd, <<<"$missing" | sed 's/,/, /g') (choose another patch release of v1.$(kube_minor "$v"), see KUBE_TESTED_VERSIONS in scripts/cluster/versions.sh)"
  log "Kubernetes $v: k8s.io/kubernetes and its ${#queries[@]} staging modules are served"
}

build_kube() {
  local v=$SPREAD_KUBE_VERSION out="$SPREAD_CACHE/bin/kubernetes-$SPREAD_KUBE_VERSION" missing=()
  mapfile -t missing < <(kube_missing)
  [ ${#missing[@]} -eq 0 ] && { log "kubernetes $v cached in $out"; return; }
  log "building kubernetes $v: ${missing[*]} (first build takes many minutes)"
  local mod="$work/kubernetes-$v" staging_v="v0.${v#v1.}"
  rm -rf "$mod" && mkdir -p "$mod"
  local upstream
  upstream=$(upstream_go_mod "$v")
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
  # One go build for all of them: the packages they share are compiled once, and the compiles and
  # links of the four run side by side on as many cores as there are.
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  log "go build ${missing[*]}"
  (cd "$mod" && go build -trimpath -ldflags "$ld" -o "$out.tmp/" "${missing[@]/#/k8s.io/kubernetes/cmd/}")
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

# Whether BIN (run with its version option ARG) reports version V. buildx, BuildKit, Helm and
# Toxiproxy get theirs only from the linker (-X): built without it they say v0.0.0+unknown, v4.3 or
# git, and tools that check buildx's version (docker/build-push-action, setup-buildx-action) then
# take their old-buildx paths.
# The version must stand alone (v0.34.2 is not v0.34.20); a binary that hangs is given 10 s.
reports_version() {
  local said
  [ -x "$1" ] || return 1
  said=$(timeout -k 2 10 "$1" "$2" 2>/dev/null) || true
  grep -qE "(^|[^0-9.])${3//./\\.}([^0-9.]|$)" <<<"$said"
}

# go_install NAME VERSION OUTDIR PACKAGE@VERSION [BINARY=RENAME …]: `go install` of a module without
# replace or exclude directives, into OUTDIR (renaming binaries, e.g. server=toxiproxy-server); GO_X
# holds the linker's -X settings (the tool's version).
go_install() {
  local name=$1 v=$2 out=$3 pkg=$4 pair
  shift 4
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  log "building $name $v"
  GOBIN="$out.tmp" go install -trimpath -ldflags "-s -w ${GO_X:-}" "$pkg"
  for pair in "$@"; do mv "$out.tmp/${pair%%=*}" "$out.tmp/${pair#*=}"; done
}

toxiproxy_cached() {
  local out="$SPREAD_CACHE/bin/toxiproxy-$SPREAD_TOXIPROXY_VERSION"
  reports_version "$out/toxiproxy-server" --version "$SPREAD_TOXIPROXY_VERSION" &&
    reports_version "$out/toxiproxy-cli" --version "$SPREAD_TOXIPROXY_VERSION"
}

build_toxiproxy() {
  local v=$SPREAD_TOXIPROXY_VERSION out="$SPREAD_CACHE/bin/toxiproxy-$SPREAD_TOXIPROXY_VERSION"
  toxiproxy_cached && { log "toxiproxy $v cached in $out"; return; }
  local x="-X github.com/Shopify/toxiproxy/v2.Version=$v"
  GO_X=$x go_install toxiproxy "$v" "$out" "github.com/Shopify/toxiproxy/v2/cmd/server@$v" server=toxiproxy-server
  GOBIN="$out.tmp" go install -trimpath -ldflags "-s -w $x" "github.com/Shopify/toxiproxy/v2/cmd/cli@$v"
  mv "$out.tmp/cli" "$out.tmp/toxiproxy-cli"
  mkdir -p "$out" && mv "$out.tmp"/* "$out/" && rmdir "$out.tmp"
}

helm_cached() {
  reports_version "$SPREAD_CACHE/bin/helm-$SPREAD_HELM_VERSION/helm" version "$SPREAD_HELM_VERSION"
}

build_helm() {
  local v=$SPREAD_HELM_VERSION out="$SPREAD_CACHE/bin/helm-$SPREAD_HELM_VERSION"
  helm_cached && { log "helm $v cached in $out"; return; }
  GO_X="-X helm.sh/helm/v4/internal/version.version=$v" go_install helm "$v" "$out" "helm.sh/helm/v4/cmd/helm@$v"
  mkdir -p "$out" && mv "$out.tmp/helm" "$out/helm" && rmdir "$out.tmp"
}

helm3_cached() {
  reports_version "$SPREAD_CACHE/bin/helm-$SPREAD_HELM3_VERSION/helm" version "$SPREAD_HELM3_VERSION"
}

# Helm 3 has its own cache folder (helm-v3.…), beside Helm 4's, and keeps the binary's name `helm`.
# Like Helm's Makefile, the Kubernetes version `helm template` assumes without --kube-version is the
# client-go minor of its go.mod (v0.36 → v1.36): without these -X, Helm 3 says v1.20.0 (Helm 4 reads
# it from its build info and needs none).
build_helm3() {
  local v=$SPREAD_HELM3_VERSION out="$SPREAD_CACHE/bin/helm-$SPREAD_HELM3_VERSION" gomod minor x pkg
  helm3_cached && { log "helm $v cached in $out"; return; }
  gomod=$(cd "$work" && go mod download -json "helm.sh/helm/v3@$v" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
  [ -n "$gomod" ] || die "the Go module proxy does not serve helm.sh/helm/v3@$v"
  minor=$(awk '$1 == "k8s.io/client-go" { split($2, p, "."); print p[2]; exit }' "$gomod")
  [ -n "$minor" ] || die "helm.sh/helm/v3@$v: no k8s.io/client-go in its go.mod"
  x="-X helm.sh/helm/v3/internal/version.version=$v"
  for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
    x+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$minor"
  done
  GO_X=$x go_install helm "$v" "$out" "helm.sh/helm/v3/cmd/helm@$v"
  mkdir -p "$out" && mv "$out.tmp/helm" "$out/helm" && rmdir "$out.tmp"
}

kustomize_cached() {
  reports_version "$SPREAD_CACHE/bin/kustomize-$SPREAD_KUSTOMIZE_VERSION/kustomize" version "$SPREAD_KUSTOMIZE_VERSION"
}

# kustomize's module has no replace directives; its version comes from the linker, as its release
# builds set it (without it, `kustomize version` says (devel)).
build_kustomize() {
  local v=$SPREAD_KUSTOMIZE_VERSION out="$SPREAD_CACHE/bin/kustomize-$SPREAD_KUSTOMIZE_VERSION"
  kustomize_cached && { log "kustomize $v cached in $out"; return; }
  GO_X="-X sigs.k8s.io/kustomize/api/provenance.version=$v" go_install kustomize "$v" "$out" "sigs.k8s.io/kustomize/kustomize/v5@$v"
  mkdir -p "$out" && mv -f "$out.tmp/kustomize" "$out/kustomize" && rmdir "$out.tmp"
}

buildx_cached() {
  reports_version "$SPREAD_CACHE/bin/buildx-$SPREAD_BUILDX_VERSION/buildx" version "$SPREAD_BUILDX_VERSION"
}

buildkit_cached() {
  local out="$SPREAD_CACHE/bin/buildkit-$SPREAD_BUILDKIT_VERSION"
  reports_version "$out/buildkitd" --version "$SPREAD_BUILDKIT_VERSION" &&
    reports_version "$out/buildctl" --version "$SPREAD_BUILDKIT_VERSION"
}

build_buildx() {
  local v=$SPREAD_BUILDX_VERSION out="$SPREAD_CACHE/bin/buildx-$SPREAD_BUILDX_VERSION"
  buildx_cached && { log "buildx $v cached in $out"; return; }
  GO_X="-X github.com/docker/buildx/version.Version=$v" go_install buildx "$v" "$out" "github.com/docker/buildx/cmd/buildx@$v"
  mkdir -p "$out" && mv -f "$out.tmp/buildx" "$out/buildx" && rmdir "$out.tmp"
}

# BuildKit's go.mod has exclude directives, which `go install module@version` refuses: a wrapper
# module requires it and repeats them.
build_buildkit() {
  local v=$SPREAD_BUILDKIT_VERSION out="$SPREAD_CACHE/bin/buildkit-$SPREAD_BUILDKIT_VERSION"
  buildkit_cached && { log "buildkit $v cached in $out"; return; }
  log "building buildkit $v"
  local mod="$work/buildkit-$v" upstream
  upstream=$(cd "$work" && go mod download -json "github.com/moby/buildkit@$v" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
  [ -n "$upstream" ] || die "the Go module proxy does not serve github.com/moby/buildkit@$v"
  rm -rf "$mod" && mkdir -p "$mod"
  {
    echo "module spread.local/buildkit-build"
    echo
    grep -m1 '^go ' "$upstream"
    echo
    echo "require github.com/moby/buildkit $v"
    echo
    sed -n '/^exclude (/,/^)/p' "$upstream"
  } > "$mod/go.mod"
  cat > "$mod/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "github.com/moby/buildkit/cmd/buildctl"
	_ "github.com/moby/buildkit/cmd/buildkitd"
)
GO
  (cd "$mod" && go mod tidy)
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  local b
  for b in buildkitd buildctl; do
    (cd "$mod" && go build -trimpath -ldflags "-s -w -X github.com/moby/buildkit/version.Version=$v" \
      -o "$out.tmp/$b" "github.com/moby/buildkit/cmd/$b")
  done
  mkdir -p "$out" && mv "$out.tmp"/* "$out/" && rmdir "$out.tmp"
}

# in_parallel BUILD_FN...: runs the build functions side by side (most of a build is waiting for the
# module proxy or linking, so two cores take more than one build), and fails naming those that failed.
in_parallel() {
  local pids=() fn i failed=()
  for fn in "$@"; do
    "$fn" &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed+=("${@:$((i + 1)):1}")
  done
  [ ${#failed[@]} -eq 0 ] || die "failed: ${failed[*]#build_}"
}

# Whether every tool besides the kube binaries is cached (then `all` takes no lock).
tools_cached() {
  [ -x "$SPREAD_CACHE/bin/etcd-$SPREAD_ETCD_VERSION/etcd" ] &&
    [ -x "$SPREAD_CACHE/bin/kwok-$SPREAD_KWOK_VERSION/kwok" ] &&
    [ -x "$SPREAD_CACHE/bin/act-$SPREAD_ACT_VERSION/act" ] &&
    toxiproxy_cached && helm_cached && helm3_cached && kustomize_cached && buildx_cached && buildkit_cached
}

case "${1:-all}" in
  kube) check_kube_modules; lock_cache; build_kube ;;
  etcd) lock_cache; build_etcd ;;
  kwok) lock_cache; build_kwok ;;
  act) lock_cache; build_act ;;
  toxiproxy) lock_cache; build_toxiproxy ;;
  helm) lock_cache; build_helm ;;
  helm3) lock_cache; build_helm3 ;;
  kustomize) lock_cache; build_kustomize ;;
  buildx) lock_cache; build_buildx ;;
  buildkit) lock_cache; build_buildkit ;;
  # What the cluster itself runs (up.sh --kube-only, npm run quickstart): etcd, kwok and Kubernetes,
  # built side by side.
  cluster)
    check_kube_modules
    if [ ! -x "$SPREAD_CACHE/bin/etcd-$SPREAD_ETCD_VERSION/etcd" ] ||
      [ ! -x "$SPREAD_CACHE/bin/kwok-$SPREAD_KWOK_VERSION/kwok" ] || [ -n "$(kube_missing)" ]; then
      lock_cache
    fi
    in_parallel build_etcd build_kwok build_kube
    ;;
  # The module check first: an unbuildable version fails before the other builds take their minutes.
  all)
    check_kube_modules
    # Nothing to build: no lock either, so a start of a cached version never waits for another
    # version's build (and the tools are not asked for their versions a second time).
    if ! tools_cached; then
      lock_cache
      build_etcd; build_kwok; build_act; build_toxiproxy; build_helm; build_helm3; build_kustomize; build_buildx; build_buildkit
    else
      log "etcd, kwok, act, toxiproxy, helm 4, helm 3, kustomize, buildx and buildkit cached in $SPREAD_CACHE/bin"
    fi
    if [ -n "$(kube_missing)" ]; then lock_cache; fi
    build_kube
    ;;
  check) check_kube_modules ;;
  *) echo "usage: $0 [all|cluster|kube|etcd|kwok|act|toxiproxy|helm|helm3|kustomize|buildx|buildkit|check]" >&2; exit 2 ;;
esac
