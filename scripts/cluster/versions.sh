# shellcheck shell=bash
# Pinned versions of the local cluster's parts; each may be overridden from the environment
# (e.g. SPREAD_KUBE_VERSION=v1.33.13 to test against an older minor release).
: "${SPREAD_KUBE_VERSION:=v1.34.4}"
: "${SPREAD_ETCD_VERSION:=v3.6.16}"
: "${SPREAD_KWOK_VERSION:=v0.7.0}"
: "${SPREAD_NODE_VERSION:=24.11.1}"
: "${SPREAD_ACT_VERSION:=v0.2.89}"
# Where built binaries and the Node 24 runtime are cached, outside the repository's tracked files.
: "${SPREAD_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/spread}"
export SPREAD_KUBE_VERSION SPREAD_ETCD_VERSION SPREAD_KWOK_VERSION SPREAD_NODE_VERSION SPREAD_ACT_VERSION SPREAD_CACHE
