# shellcheck shell=bash
# Pinned versions of the local cluster's parts; each may be overridden from the environment
# (e.g. SPREAD_KUBE_VERSION=v1.30.14 to test against an older minor release, see KUBE_TESTED_VERSIONS).
: "${SPREAD_KUBE_VERSION:=v1.34.4}"
: "${SPREAD_ETCD_VERSION:=v3.6.16}"
: "${SPREAD_KWOK_VERSION:=v0.7.0}"
: "${SPREAD_NODE_VERSION:=24.11.1}"
: "${SPREAD_ACT_VERSION:=v0.2.89}"
: "${SPREAD_TOXIPROXY_VERSION:=v2.5.0}"
: "${SPREAD_HELM_VERSION:=v4.3.1}"
# Helm 3, the major most users still run: charts are rendered and releases adopted with both.
: "${SPREAD_HELM3_VERSION:=v3.21.4}"
# The newest kustomize v5 whose go.mod this machine's Go (1.26) builds: v5.8.3 asks for Go 1.27.
: "${SPREAD_KUSTOMIZE_VERSION:=v5.8.2}"
: "${SPREAD_BUILDX_VERSION:=v0.38.2}"
: "${SPREAD_BUILDKIT_VERSION:=v0.34.2}"
# The projects whose real CRDs the shipped health rules are tested against (scripts/cluster/fetch-crds.sh).
: "${SPREAD_ARGO_ROLLOUTS_VERSION:=v1.8.3}"
: "${SPREAD_CERT_MANAGER_VERSION:=v1.19.1}"
: "${SPREAD_HELM_CONTROLLER_VERSION:=v1.4.0}"
# Where built binaries and the Node 24 runtime are cached, outside the repository's tracked files.
: "${SPREAD_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/spread}"
export SPREAD_KUBE_VERSION SPREAD_ETCD_VERSION SPREAD_KWOK_VERSION SPREAD_NODE_VERSION SPREAD_ACT_VERSION SPREAD_CACHE
export SPREAD_TOXIPROXY_VERSION SPREAD_HELM_VERSION SPREAD_HELM3_VERSION SPREAD_KUSTOMIZE_VERSION SPREAD_BUILDX_VERSION SPREAD_BUILDKIT_VERSION
export SPREAD_ARGO_ROLLOUTS_VERSION SPREAD_CERT_MANAGER_VERSION SPREAD_HELM_CONTROLLER_VERSION

# ---- Kubernetes versions -------------------------------------------------------------------------
# The versions .ci/run runs the integration suite against: the oldest supported minor, the pinned
# default and the newest (docs/operations.md's compatibility table lists them).
KUBE_TESTED_VERSIONS=(v1.30.14 v1.34.4 v1.37.2)
# The supported minors: the oldest and newest of KUBE_TESTED_VERSIONS bound them.
KUBE_MIN_MINOR=30
KUBE_MAX_MINOR=37

# kube_minor VERSION: prints the minor number of vMAJOR.MINOR.PATCH (30 for v1.30.14); fails on any
# other shape.
kube_minor() {
  [[ $1 =~ ^v1\.([0-9]+)\.[0-9]+$ ]] || return 1
  printf '%s\n' "${BASH_REMATCH[1]}"
}

# kube_check_version VERSION: fails with a message naming VERSION when it is no release version or
# outside the supported minors.
kube_check_version() {
  local minor
  minor=$(kube_minor "$1") || {
    echo "SPREAD_KUBE_VERSION=$1 is not a Kubernetes release version (expected v1.MINOR.PATCH, e.g. v1.34.4)"
    return 1
  }
  if ((minor < KUBE_MIN_MINOR || minor > KUBE_MAX_MINOR)); then
    echo "SPREAD_KUBE_VERSION=$1: Kubernetes v1.$minor is outside the supported minors v1.$KUBE_MIN_MINOR to v1.$KUBE_MAX_MINOR"
    return 1
  fi
}

# kube_version_flags COMPONENT VERSION: prints, one per line, the flags that COMPONENT
# (kube-apiserver, kube-controller-manager, kube-scheduler) of VERSION needs beyond the ones up.sh
# passes to every supported minor: the one place where flags and feature gates depend on the version.
# up.sh checks every flag it passes against the binary's --help, so a flag that a minor renamed or
# removed fails the start at once, naming the flag and the version; that check passes for v1.30.14,
# v1.34.4 and v1.37.2 with no extra flags, so no minor has a case yet. Nothing spread relies on needs
# a feature gate in the supported minors: strict field validation (GA v1.27), CRD validation rules
# (GA v1.29), ValidatingAdmissionPolicy (GA v1.30), aggregated discovery (GA v1.30), batch/v1 and
# autoscaling/v2 are on by default (test/integration/versions.itg.test.ts checks them).
kube_version_flags() {
  local component=$1 minor
  minor=$(kube_minor "$2") || return 1
  case "$component:$minor" in
    kube-apiserver:* | kube-controller-manager:* | kube-scheduler:*) ;;
    *)
      echo "kube_version_flags: unknown component $component" >&2
      return 1
      ;;
  esac
}
