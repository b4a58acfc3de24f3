#!/usr/bin/env bash
# run.sh SCRIPT [SHARED_DIR] -- boot Debian's kernel under QEMU, run SCRIPT inside as root, power off.
#
# The guest's root is the host's / (read-only over virtio-9p, writable through a tmpfs overlay that vanishes
# with the VM), so every host program and this repository are there at the same paths. SHARED_DIR (default:
# a temp dir) is mounted read-write at /shared and at its own host path; the script starts in it.
# SCRIPT's output comes back on stdout (stdout and stderr merged) and its exit code is run.sh's exit code.
# Exit 125 means the VM itself failed or timed out; the reason and the end of the console log go to stderr.
#
#   env ROUTERD_KERNEL_LAB_ACCEL    kvm | tcg (default: kvm when /dev/kvm can run it, else tcg)
#       ROUTERD_KERNEL_LAB_MEM      MiB of guest memory (default 1024)
#       ROUTERD_KERNEL_LAB_CPUS     guest CPUs (default 2)
#       ROUTERD_KERNEL_LAB_TIMEOUT  seconds before the VM is killed (default 900)
#       ROUTERD_KERNEL_LAB_CACHE    see setup.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] && [ -f "$1" ] || { echo "usage: run.sh SCRIPT [SHARED_DIR]" >&2; exit 2; }
script=$(realpath "$1")
lab_dir=$("$here/setup.sh") || { echo "kernel-lab: setup failed (see above)" >&2; exit 125; }

ctl=$(mktemp -d /tmp/routerd-kernel-lab.XXXXXX)
trap 'rm -rf "$ctl"' EXIT
shared=$(realpath -m "${2:-$ctl/shared}")
mkdir -p "$shared"
for p in "$lab_dir" "$shared" "$script"; do
  case $p in *[[:space:],]*) echo "kernel-lab: path '$p' has a space or comma (QEMU's -fsdev cannot take it)" >&2; exit 125 ;; esac
done
install -m 0755 "$script" "$ctl/script"
printf 'LAB_DIR=%q\nSHARED=%q\nSCRIPT=%q\n' "$lab_dir" "$shared" /run/lab/script > "$ctl/env"

# KVM only where it really runs Debian's kernel: nested PVM (kvm_pvm) exposes /dev/kvm but cannot.
accel=${ROUTERD_KERNEL_LAB_ACCEL:-}
if [ -z "$accel" ]; then
  if [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then accel=kvm; else accel=tcg; fi
fi
case $accel in
  kvm) accel_args=(-accel kvm -cpu host) ;;
  tcg) accel_args=(-accel tcg,thread=multi -cpu max) ;;
  *) echo "kernel-lab: ROUTERD_KERNEL_LAB_ACCEL must be kvm or tcg, not '$accel'" >&2; exit 2 ;;
esac
share() { # id path extra-options
  echo "-fsdev local,id=$1,path=$2,security_model=passthrough,multidevs=remap$3 -device virtio-9p-pci,fsdev=$1,mount_tag=$1"
}
timeout_s=${ROUTERD_KERNEL_LAB_TIMEOUT:-900}
qemu_rc=0
# shellcheck disable=SC2046 # share() output is meant to be split into arguments
timeout --kill-after=5 "$timeout_s" qemu-system-x86_64 "${accel_args[@]}" \
  -smp "${ROUTERD_KERNEL_LAB_CPUS:-2}" -m "${ROUTERD_KERNEL_LAB_MEM:-1024}" \
  -nodefaults -display none -no-reboot \
  -kernel "$lab_dir/vmlinux" -initrd "$lab_dir/initrd.img" \
  -append "console=ttyS0 quiet panic=-1 acpi=noirq cryptomgr.notests" \
  -serial "file:$ctl/console.log" -serial stdio \
  $(share root / ,readonly=on) $(share ctl "$ctl" "") $(share shared "$shared" "") </dev/null || qemu_rc=$?
if [ -s "$ctl/rc" ]; then exit "$(cat "$ctl/rc")"; fi
if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
  echo "kernel-lab: the VM did not finish within ${timeout_s}s (ROUTERD_KERNEL_LAB_TIMEOUT) and was killed" >&2
else
  echo "kernel-lab: the VM stopped without the script's exit code (qemu exit $qemu_rc, accel $accel)" >&2
fi
echo "--- last lines of the guest console:" >&2
tail -n 20 "$ctl/console.log" >&2 2>/dev/null || true
exit 125
