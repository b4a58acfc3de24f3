#!/usr/bin/env bash
# Prepares the full-kernel lab once and prints its cache directory on stdout.
#
# Debian's own kernel (linux-image-amd64) and a static busybox are fetched with `apt-get download` and
# unpacked with `dpkg -x`: nothing is installed on the host. The result lives in a content-addressed
# directory, <cache>/<sha256 of the package versions + init.sh + this file>, so a changed recipe or a new
# kernel gets a fresh directory and a finished one is never rewritten. Concurrent callers wait on a lock.
#
#   env ROUTERD_KERNEL_LAB_CACHE   cache root (default /var/cache/routerd-kernel-lab; never inside the repo)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache_root=${ROUTERD_KERNEL_LAB_CACHE:-/var/cache/routerd-kernel-lab}

fail() { echo "kernel-lab setup: $*" >&2; exit 1; }
for tool in qemu-system-x86_64 apt-get apt-cache dpkg depmod modprobe xz flock sha256sum; do
  command -v "$tool" >/dev/null || fail "'$tool' is missing (install: apt-get install qemu-system-x86 kmod xz-utils util-linux)"
done

# The exact packages to unpack: the kernel image linux-image-amd64 points at, plus busybox for the initramfs.
kernel_pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
[ -n "$kernel_pkg" ] || fail "apt-cache knows no linux-image-amd64 (run apt-get update)"
packages=()
for p in "$kernel_pkg" busybox-static; do
  v=$(apt-cache policy "$p" | awk '/Candidate:/ {print $2}')
  [ -n "$v" ] && [ "$v" != "(none)" ] || fail "no installable version of $p (run apt-get update)"
  packages+=("$p=$v")
done
key=$({ printf '%s\n' "${packages[@]}"; cat "$here/init.sh" "$here/setup.sh"; } | sha256sum | cut -c1-16)
dir=$cache_root/$key
if [ -s "$dir/ready" ]; then echo "$dir"; exit 0; fi

mkdir -p "$cache_root"
exec 9>"$cache_root/.lock"
flock 9
if [ -s "$dir/ready" ]; then echo "$dir"; exit 0; fi
work=$(mktemp -d "$cache_root/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
{
  echo "kernel-lab setup: unpacking ${packages[*]} into $dir"
  mkdir -p "$work/deb" "$work/root" "$work/initrd/bin"
  chmod 0755 "$work" "$work/deb"   # apt-get download drops privileges to _apt where it can
  (cd "$work/deb" && apt-get download -q "${packages[@]}")
  for deb in "$work"/deb/*.deb; do dpkg -x "$deb" "$work/root"; done
  release=$(ls "$work/root/lib/modules")
  depmod -b "$work/root" "$release"
  # Boot the uncompressed kernel: TCG spends ~5 s decompressing a bzImage. The xz stream starts at its magic.
  image=$work/root/boot/vmlinuz-$release
  offset=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$image" | head -1 | cut -d: -f1)
  [ -n "$offset" ] || fail "no xz stream in $image"
  tail -c +$((offset + 1)) "$image" | xz -dcqq > "$work/vmlinux" || true
  [ -s "$work/vmlinux" ] || fail "could not unpack the kernel from $image"
  # The initramfs: static busybox, the modules that reach the root over 9p, and init.sh.
  cp "$work/root/bin/busybox" "$work/initrd/bin/"
  for m in virtio_pci 9pnet_virtio 9p overlay; do
    modprobe -d "$work/root" -S "$release" --show-depends "$m"
  done | awk '$1 == "insmod" && !seen[$2]++ {print $2}' > "$work/modules"
  while read -r m; do cp "$m" "$work/initrd/"; echo "/${m##*/}"; done < "$work/modules" > "$work/initrd/modules"
  install -m 0755 "$here/init.sh" "$work/initrd/init"
  (cd "$work/initrd" && find . | "$work/root/bin/busybox" cpio -o -H newc) > "$work/initrd.img"
  mkdir -p "$work/final"
  mv "$work/vmlinux" "$work/initrd.img" "$work/final/"
  mv "$work/root/lib/modules" "$work/final/modules"
  printf 'release=%s\npackages=%s\n' "$release" "${packages[*]}" > "$work/final/ready"
  rm -rf "$dir"
  mv "$work/final" "$dir"
} >&2
echo "$dir"
