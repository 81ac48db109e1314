#!/bin/bash
# metaroce-install (netns topology): the module installed with DKMS, then
# `rdma link add` through the metaroce@ unit's own ExecStart loads it, a
# checked pingpong runs over it, ExecStop removes the device, and DKMS
# removes everything again.  Two ways in (files from tests/run-all.sh):
#   - metaroce-dkms.tar.gz (make test): the sources and the module that
#     scripts/dkms-tarball.sh had Debian's dkms build natively for this kernel
#     in the lab rootfs, loaded with `dkms ldtarball` and installed with `dkms
#     install`, plus `make install-files` from the source tarball;
#   - install.conf with DKMS_FROM_SOURCE=1 (make test-full): `make
#     dkms-install` from metaroce-src.tar.gz (`make dist`), so dkms builds the
#     module here, for the running kernel (about ten minutes under TCG).
source "$LAB_LIB"
source "$LAB_IN/files/metaroce-lib.sh"

mro_findings_start
kver=$(uname -r)
# the release as a regex (Debian 13's has a '+')
kre=$(sed 's/[.+]/\\&/g' <<<"$kver")
src=$LAB_WORK/src
mkdir -p "$src"
lab_check dist-unpack tar -xzf "$LAB_FILES/metaroce-src.tar.gz" -C "$src" --strip-components=1 || exit 1
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$src/dkms.conf")
lab_check_grep dist-version '^[0-9]+\.[0-9]+\.[0-9]+$' echo "$ver"

DKMS_FROM_SOURCE=0
[ -f "$LAB_FILES/install.conf" ] && . "$LAB_FILES/install.conf"
t0=$(cut -d. -f1 /proc/uptime)
if [ "$DKMS_FROM_SOURCE" = 1 ]; then
    lab_metric dkms-from-source 1
    lab_check dkms-install make -C "$src" dkms-install || {
        tail -n 40 "/var/lib/dkms/metaroce/$ver/build/make.log"
        exit 1
    }
else
    lab_metric dkms-from-source 0
    lab_check dkms-tarball-given test -s "$LAB_FILES/metaroce-dkms.tar.gz" || exit 1
    lab_check dkms-ldtarball dkms ldtarball "$LAB_FILES/metaroce-dkms.tar.gz" || exit 1
    lab_check_grep dkms-loaded "^metaroce/$ver, $kre, x86_64: built" dkms status metaroce
    lab_check dkms-install dkms install "metaroce/$ver" -k "$kver" || exit 1
    lab_check install-files make -C "$src" install-files
fi
lab_metric dkms-install-s "$(($(cut -d. -f1 /proc/uptime) - t0))"
lab_check_grep dkms-status "^metaroce/$ver, $kre, x86_64: installed" dkms status metaroce
# (Debian 13's kernel compresses its modules, and dkms follows it)
lab_check_grep dkms-module-path "^/lib/modules/$kre/updates/dkms/metaroce\.ko(\.xz|\.zst|\.gz)?$" \
    modinfo -n metaroce
lab_check_grep dkms-module-version "^version: +$ver\$" modinfo metaroce
lab_check dkms-conf-installed test -f /etc/modprobe.d/metaroce.conf
lab_check dkms-unit-installed test -f /etc/systemd/system/metaroce@.service
lab_check not-loaded-yet sh -c '! grep -q "^metaroce " /proc/modules'

# The unit's commands, as systemd would run them for metaroce@eth0 (the lab's
# guests boot without systemd), on host h1; h2 adds its device by hand.
unit=/etc/systemd/system/metaroce@.service
start=$(sed -n 's/^ExecStart=//p' "$unit")
stop=$(sed -n 's/^ExecStop=//p' "$unit")
lab_check_grep unit-has-commands 'rdma link add .*type metaroce' echo "$start"
lab_netns_hosts 2
lab_check unit-start ip netns exec h1 sh -c "${start//%i/eth0}" || exit 1
lab_check_grep autoloaded '^metaroce ' cat /proc/modules
# the module that loaded is the one DKMS built
lab_check_grep loaded-is-dkms "^$(modinfo -F srcversion metaroce)\$" cat /sys/module/metaroce/srcversion
lab_check unit-device-active mro_wait_state mro_eth0 ACTIVE
lab_check link-add-h2 ip netns exec h2 rdma link add mr2 type metaroce netdev eth0
lab_check h2-active mro_wait_state mr2 ACTIVE
G1=$(lab_gid_index mro_eth0)
G2=$(lab_gid_index mr2)
ip netns exec h1 timeout 120 ibv_rc_pingpong -d mro_eth0 -g "$G1" -s 65536 -n 50 -c \
    >"$LAB_WORK/pp-srv.out" 2>&1 &
sleep 1
lab_check_grep rc-pingpong 'bytes in' ip netns exec h2 timeout 120 ibv_rc_pingpong -d mr2 -g "$G2" \
    -s 65536 -n 50 -c 10.98.0.1
wait
cat "$LAB_WORK/pp-srv.out"

lab_check unit-stop ip netns exec h1 sh -c "${stop//%i/eth0}"
lab_check unit-stop-gone mro_gone mro_eth0
# the unit again: it recreates the device
lab_check unit-restart ip netns exec h1 sh -c "${start//%i/eth0}"
lab_check unit-restart-active mro_wait_state mro_eth0 ACTIVE
lab_check unit-stop-again ip netns exec h1 sh -c "${stop//%i/eth0}"
lab_check link-delete-h2 ip netns exec h2 rdma link delete mr2
lab_check rmmod rmmod metaroce

lab_check dkms-uninstall make -C "$src" dkms-uninstall
lab_check dkms-uninstalled sh -c '! modinfo -n metaroce'
lab_check dkms-status-empty sh -c "! dkms status metaroce | grep -q ."
lab_check dkms-sources-gone test ! -e "/usr/src/metaroce-$ver"

lab_check dmesg-clean mro_dmesg_clean
