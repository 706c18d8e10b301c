#!/usr/bin/env bash
# Builds a Node.js 20 base image from Debian packages, for a machine that reaches Debian's archive and the npm
# registry but not Docker Hub (this project's CI machines): Debian trixie (debootstrap, minbase) with Debian's
# nodejs (20.x), ca-certificates, and npm from the npm registry, imported as a single layer. Use it as
#   docker build --build-arg NODE_IMAGE=procurement-intel/node-base:20-trixie -t procurement-intel .
# Elsewhere the Dockerfile's default, the official node:20-bookworm-slim, does the same job.
#
# Usage: scripts/docker-base-image.sh [image]     (does nothing when the image exists; needs root and Docker)
set -euo pipefail

IMAGE=${1:-procurement-intel/node-base:20-trixie}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
NPM_VERSION=10.9.4

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "$IMAGE exists"
  exit 0
fi
if ! command -v debootstrap >/dev/null; then
  apt-get install -y --no-install-recommends debootstrap >/dev/null \
    || { apt-get update >/dev/null && apt-get install -y --no-install-recommends debootstrap >/dev/null; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
debootstrap --variant=minbase --include=nodejs,ca-certificates trixie "$rootfs" "$MIRROR" >"$work/debootstrap.log" \
  || { tail -20 "$work/debootstrap.log" >&2; exit 1; }

# npm is a single self-contained package on the registry (its dependencies are bundled in the tarball).
(cd "$work" && npm pack "npm@$NPM_VERSION" --silent >/dev/null)
mkdir -p "$rootfs/usr/lib/node_modules/npm"
tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$rootfs/usr/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/bin/npx"

# What an image does not need: package caches and lists, documentation, translations.
rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* \
  "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/*

tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' \
  - "$IMAGE" >/dev/null
echo "$IMAGE built: $(docker run --rm "$IMAGE" node --version), npm $(docker run --rm "$IMAGE" npm --version)"
