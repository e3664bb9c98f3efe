#!/bin/sh
# Build the UserBench app desktop image once, without any registry: a Debian bookworm
# rootfs from debootstrap (Xvfb, xdotool, Tk, Pillow, PyYAML for APB verifiers, a font) imported with
# `docker import`. The app's code is copied into each container at start, so this
# image only changes when the package list does.
# Usage: build_image.sh [TAG] [MIRROR]   (needs root, debootstrap and a running dockerd)
set -eu
TAG="${1:-userbench/app-desktop:2}"
# The Debian mirror this machine's apt already uses (no host is hard-coded here).
apt_mirror() {
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources | grep -v security | head -n 1
    elif [ -f /etc/apt/sources.list ]; then
        awk '$1 == "deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list
    fi
}
MIRROR="${2:-$(apt_mirror)}"
[ -n "$MIRROR" ] || { echo "no Debian mirror configured for apt; pass one as the second argument" >&2; exit 2; }
PACKAGES="python3-tk,python3-pil,python3-yaml,xvfb,xdotool,fonts-dejavu-core"
if docker image inspect "$TAG" >/dev/null 2>&1; then
    echo "image $TAG already present"
    exit 0
fi
ROOTFS="$(mktemp -d /tmp/userbench-app-rootfs.XXXXXX)"
trap 'rm -rf "$ROOTFS"' EXIT
debootstrap --variant=minbase --include="$PACKAGES" bookworm "$ROOTFS" "$MIRROR"
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/usr/share/doc \
    "$ROOTFS"/usr/share/man "$ROOTFS"/usr/share/locale
mkdir -p "$ROOTFS/opt/ubapp" "$ROOTFS/app/state" "$ROOTFS/app/output"
tar -C "$ROOTFS" -c . | docker import --change 'WORKDIR /app' --change 'ENV LANG=C.UTF-8' - "$TAG"
echo "built $TAG"
