#!/bin/busybox sh
# PID 1 of the full-kernel lab VM (packed into the initramfs by setup.sh; run.sh boots it).
# Stage 1 (initramfs): the host's / over virtio-9p, read-only, under a tmpfs overlay becomes the new root.
# Stage 2 (new root): devices the lab needs, then the scenario script as root; its output goes to the
# second serial port (run.sh's stdout), its exit code to the control share, and the VM powers off.
# The control share's `env` names: LAB_DIR (cache dir from setup.sh), SHARED (host path of the results
# share), SCRIPT (the script to run).
set -u
if [ "${1:-}" != stage2 ]; then
  /bin/busybox --install -s /bin
  export PATH=/bin
  p9=trans=virtio,version=9p2000.L,msize=512000
  mkdir -p /proc /sys /dev
  mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
  for m in $(cat /modules); do insmod "$m"; done
  mkdir /lower /upper /new
  mount -t 9p -o "$p9,ro,cache=loose" root /lower
  mount -t tmpfs upper /upper; mkdir /upper/data /upper/work
  mount -t overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work overlay /new
  for d in proc sys dev; do mount --move "/$d" "/new/$d"; done
  mount -t tmpfs run /new/run
  mkdir /new/run/lab; mount -t 9p -o "$p9" ctl /new/run/lab
  . /new/run/lab/env
  mkdir -p /new/shared "/new$SHARED" /new/lib/modules /new/dev/pts /new/dev/shm /new/dev/net
  mount -t 9p -o "$p9" shared /new/shared
  mount --bind /new/shared "/new$SHARED"
  mount --bind "/new$LAB_DIR/modules" /new/lib/modules
  cp /bin/busybox /new/run/busybox; cp /init /new/run/init
  exec switch_root /new /run/busybox sh /run/init stage2
fi

. /run/lab/env
bb=/run/busybox
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
# No udev here: module autoloading and the device nodes PPP and tun need are set up by hand.
echo /sbin/modprobe > /proc/sys/kernel/modprobe
$bb mount -t devpts devpts /dev/pts; $bb mount -t tmpfs shm /dev/shm; $bb mount -t cgroup2 cgroup2 /sys/fs/cgroup
$bb ln -sf /proc/self/fd /dev/fd
$bb mknod /dev/ppp c 108 0; $bb mknod /dev/net/tun c 10 200
$bb hostname kernel-lab
$bb ip link set lo up
$bb stty -F /dev/ttyS1 raw -echo
mkdir -p /run/lock /run/netns /var/tmp
cd /shared
"$SCRIPT" </dev/null >/dev/ttyS1 2>&1
echo $? > /run/lab/rc
$bb sync
$bb poweroff -f
