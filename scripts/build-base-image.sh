#!/usr/bin/env bash
# Builds the base sandbox image offline (debootstrap + docker import) and caches it by recipe hash.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
recipe="$root/sandbox/base-image.recipe"
hash=$( cat "$recipe" "$0" | sha256sum | cut -c1-12)
image="agentrl-base:$hash"
if docker image inspect "$image" >/dev/null 2>&1; then
  docker tag "$image" agentrl-base:latest
  echo "$image"; exit 0
fi
command -v debootstrap >/dev/null || { echo "debootstrap is missing: apt-get install -y debootstrap" >&2; exit 1; }
suite=$(grep '^suite=' "$recipe" | cut -d= -f2); variant=$(grep '^variant=' "$recipe" | cut -d= -f2)
packages=$(grep '^packages=' "$recipe" | cut -d= -f2); uid=$(grep '^agent_uid=' "$recipe" | cut -d= -f2)
mirror=$(grep -m1 -oE 'https?://[^ ]+/debian$' /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null | head -1 | cut -d: -f2- || true)
mirror=${mirror:-http://deb.debian.org/debian}
cache="${AGENTRL_STATE_DIR:-$root/.agentrl}/image-build"
mkdir -p "$cache"; rootfs="$cache/rootfs-$hash"
rm -rf "$rootfs"
echo "building $image with debootstrap ($suite, $variant) from $mirror; this takes a few minutes" >&2
debootstrap --variant="$variant" --include="$packages" "$suite" "$rootfs" "$mirror" >&2
chroot "$rootfs" /usr/sbin/groupadd -g "$uid" agent
chroot "$rootfs" /usr/sbin/useradd -u "$uid" -g "$uid" -d /tmp -s /bin/sh -M agent
mkdir -p "$rootfs/work" "$rootfs/opt/agentrl"
chown "$uid:$uid" "$rootfs/work"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | docker import \
  -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -c 'ENV HOME=/tmp' -c 'ENV LANG=C.UTF-8' -c 'WORKDIR /work' -c 'USER agent' \
  -c 'CMD ["sleep","infinity"]' - "$image" >&2
docker tag "$image" agentrl-base:latest
rm -rf "$rootfs"
echo "$image"
