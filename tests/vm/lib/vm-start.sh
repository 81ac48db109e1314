#!/bin/bash
# lib/vm-start.sh IMAGE VMDIR SCRATCH MAC INDIR [NETDEV_OPTS]
# Boot one lab VM in the background from a throwaway qcow2 overlay of IMAGE and print its
# QEMU PID on stdout. VMDIR is the VM's output dir (9p tag labout; must hold vm.env) and gets
# console.log and qemu.log; INDIR is the shared read-only input dir (9p tag labin).
# NETDEV_OPTS, if given, is a -netdev spec (without id=) for the lab NIC eth0.
# LAB_KERNEL, if set, is a kernel image booted instead of the image's vmlinuz + initrd.img
# (it must have virtio, ext4 and 9p built in: no initrd is given).
# The VM's human monitor listens on SCRATCH/NAME.mon (lib/vm-monitor.py talks to it).
# LAB_VM_ICOUNT, if set, puts the guest on an instruction-counted clock: the value is
# QEMU's -icount option (e.g. "shift=0,sleep=off": every instruction is 1 ns of guest
# time, and an idle guest jumps to its next timer).  Guest time is then simulated time,
# independent of how busy the host is; TCG runs single-threaded (one host thread for
# all vCPUs).  Meant for the netns topology: two such VMs do not share a clock.
# LAB_INSNPROF=1 loads the instruction-counting plugin (lib/insnprof.c, built into the
# cache) with its snapshots in VMDIR/insnprof (the guest's $LAB_OUT/insnprof).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

img=$1 vmdir=$2 scratch=$3 mac=$4 indir=$5 netdev=${6:-}
imgdir=$(dirname "$img")
name=$(basename "$vmdir")
overlay=$scratch/$name.qcow2

qemu-img create -q -f qcow2 -F raw -b "$img" "$overlay" >&2

# shellcheck disable=SC2054  # commas belong to QEMU options
args=(
    -name "lab-$name,debug-threads=on" -nodefaults -no-user-config
    -accel tcg -cpu "${LAB_VM_CPU:-max}" -m "${LAB_VM_MEM:-2G}" -smp "${LAB_VM_SMP:-1}"
    -display none -vga none -no-reboot
    -monitor "unix:$scratch/$name.mon,server=on,wait=off"
    -serial "file:$vmdir/console.log"
    -append "root=/dev/vda rw rootfstype=ext4 console=ttyS0 init=/lab/init net.ifnames=0 fsck.mode=skip panic=-1 no_timer_check ${LAB_VM_APPEND:-}"
    -drive "file=$overlay,if=virtio,format=qcow2,cache=unsafe"
    -device virtio-rng-pci
    -fsdev "local,id=labin,path=$indir,security_model=none,readonly=on"
    -device virtio-9p-pci,fsdev=labin,mount_tag=labin
    -fsdev "local,id=labout,path=$vmdir,security_model=none"
    -device virtio-9p-pci,fsdev=labout,mount_tag=labout
)
if [ -n "${LAB_VM_ICOUNT:-}" ]; then
    args+=(-icount "$LAB_VM_ICOUNT")
fi
if [ -n "${LAB_KERNEL:-}" ]; then
    args+=(-kernel "$LAB_KERNEL")
else
    args+=(-kernel "$imgdir/vmlinuz" -initrd "$imgdir/initrd.img")
fi
if [ -n "$netdev" ]; then
    args+=(-netdev "$netdev,id=n0" -device "virtio-net-pci,netdev=n0,mac=$mac")
fi

if [ "${LAB_INSNPROF:-0}" = 1 ]; then
    src=$here/insnprof.c
    so=$LAB_CACHE/insnprof-$(hash_files "$src").so
    if [ ! -f "$so" ]; then
        mkdir -p "$LAB_CACHE"
        gcc -O2 -Wall -shared -fPIC -pthread -o "$so.tmp.$$" "$src" >&2
        mv "$so.tmp.$$" "$so"
    fi
    mkdir -p "$vmdir/insnprof"
    args+=(-plugin "$so,dir=$vmdir/insnprof")
fi

qemu-system-x86_64 "${args[@]}" </dev/null >"$vmdir/qemu.log" 2>&1 &
echo $!
