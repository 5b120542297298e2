#!/usr/bin/env bash
# Installs the Debian packages the local cluster and the tests need, only those missing:
#   docker.io (dockerd; run with vfs storage, no iptables, no bridge), docker-registry (registry:2),
#   apache2-utils (htpasswd), busybox-static (a static binary for FROM scratch test images),
#   curl (health checks), rsync (gitlab-ci-local copies the project with it in the GitLab test),
#   git (scratch repositories act runs workflows in), jq (e2e.yml reads an output with it under act),
#   runc (the standalone buildkitd's OCI worker), time (GNU time: the benchmark's peak RSS);
#   golang is expected on the machine (used to build the Kubernetes binaries).
set -euo pipefail
pkgs=(docker.io docker-registry apache2-utils busybox-static iproute2 git ca-certificates curl rsync jq runc time)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[install-system] apt-get install ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
# The Debian packages start their services through systemd where it runs; spread's scripts start
# their own instances on their own sockets and ports, so stop the packaged ones if they came up.
for svc in docker-registry docker containerd; do
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$svc" 2>/dev/null; then
    systemctl stop "$svc" || true
  fi
done
command -v go >/dev/null || { echo "[install-system] Go is required to build the Kubernetes binaries" >&2; exit 1; }
