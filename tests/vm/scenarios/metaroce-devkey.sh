#!/bin/bash
# metaroce-devkey (netns topology): device keys from logon keys (keyutils'
# keyctl) through ports/1/metaroce/{key,key_ids,protection}: install and
# rotation, lengths and ids refused, the protection mode's rules, who may
# write, and that user space cannot read a logon key back.  No packet is
# protected yet: this checks the key store and its admin interface only.
source "$LAB_LIB"
source "$LAB_IN/files/metaroce-lib.sh"

mro_install
lab_check modprobe-metaroce modprobe metaroce || exit 1
ip link add v0 type veth peer name v1
ip addr add 10.97.0.1/24 dev v0
ip link set v0 up
ip link set v1 up
lab_check link-add rdma link add mr0 type metaroce netdev v0 || exit 1

D=/sys/class/infiniband/mr0/ports/1/metaroce

# put ATTR LINE: write LINE to the attribute as `echo LINE > ATTR` would, in a
# shell of its own so that a refused write prints its error and fails
put() {
    bash -c 'echo "$2" >"$1"' put "$D/$1" "$2"
}

# ids_are WANT: key_ids reads exactly WANT (an empty line for none)
ids_are() {
    local got
    got=$(cat "$D/key_ids") || return 1
    [ "$got" = "$1" ] || { echo "key_ids '$got', wanted '$1'"; return 1; }
}

# mode_is WANT
mode_is() {
    local got
    got=$(cat "$D/protection") || return 1
    [ "$got" = "$1" ] || { echo "protection '$got', wanted '$1'"; return 1; }
}

# refused NAME ERRNO-TEXT ATTR LINE: the write fails with that error
refused() {
    lab_check_grep "$1" "$2" put "$3" "$4"
}

lab_check_grep attr-modes '^key 200 key_ids 444 protection 644$' \
    bash -c "cd $D && stat -c '%n %a' key key_ids protection | tr '\n' ' ' | sed 's/ \$//'"
lab_check empty-ids ids_are ""
lab_check mode-none mode_is none
refused auth-without-key 'Required key not available' protection auth
refused encrypt-without-key 'Required key not available' protection encrypt
lab_check still-none mode_is none

# the keys: logon keys in root's user keyring, as the admin guide says
lab_check keyctl-k32 sh -c 'head -c 32 /dev/urandom | keyctl padd logon metaroce:k32 @u'
lab_check keyctl-k16 sh -c 'head -c 16 /dev/urandom | keyctl padd logon metaroce:k16 @u'
lab_check keyctl-k20 sh -c 'head -c 20 /dev/urandom | keyctl padd logon metaroce:k20 @u'
lab_check keyctl-k3 sh -c 'head -c 32 /dev/urandom | keyctl padd logon metaroce:k3 @u'
k32=$(keyctl search @u logon metaroce:k32)
# a logon key's payload never goes back to user space, not even to root
lab_check_grep logon-print-refused 'not supported|Operation not' keyctl print "$k32"
lab_check logon-pipe-refused bash -c "! keyctl pipe $k32 >$LAB_WORK/k32.out && [ ! -s $LAB_WORK/k32.out ]"

lab_check install-32 put key "2 metaroce:k32"
lab_check ids-2 ids_are "2"
lab_check install-16 put key "3 metaroce:k16"
lab_check ids-3-2 ids_are "3 2"
refused install-20-refused 'Invalid argument' key "4 metaroce:k20"
refused install-missing-refused 'Required key not available' key "4 metaroce:nosuch"
refused install-id-in-use 'File exists' key "2 metaroce:k3"
refused install-id-0 'Invalid argument' key "0 metaroce:k3"
refused install-id-256 'Invalid argument' key "256 metaroce:k3"
refused install-no-desc 'Invalid argument' key "4"
refused remove-absent 'Required key not available' key "-9"
lab_check ids-unchanged ids_are "3 2"
# a third key drops the oldest
lab_check install-third put key "4 metaroce:k3"
lab_check ids-4-3 ids_are "4 3"
lab_check_grep id-2-gone 'Required key not available' put key "-2"

# protection: the current key stays while auth or encrypt is on
lab_check set-auth put protection auth
lab_check mode-auth mode_is auth
refused remove-current-auth 'Device or resource busy' key "-4"
lab_check set-encrypt put protection encrypt
lab_check mode-encrypt mode_is encrypt
refused remove-current-encrypt 'Device or resource busy' key "-4"
refused bad-mode 'Invalid argument' protection foo
lab_check mode-still-encrypt mode_is encrypt
lab_check ids-still-4-3 ids_are "4 3"
# the previous key may go under any mode
lab_check remove-previous put key "-3"
lab_check ids-4 ids_are "4"
lab_check set-none put protection none
lab_check remove-current-none put key "-4"
lab_check ids-none ids_are ""
refused auth-after-last-removed 'Required key not available' protection auth

# rotation: removing the current key (mode none) makes the previous current
lab_check rot-install-a put key "5 metaroce:k32"
lab_check rot-install-b put key "6 metaroce:k16"
lab_check rot-remove-b put key "-6"
lab_check rot-previous-current ids_are "5"
lab_check rot-auth put protection auth

# who may write: not a user, not root without CAP_NET_ADMIN
nobody() {
    setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}
lab_check_grep nobody-key-refused 'Permission denied' nobody bash -c "echo '7 metaroce:k3' >$D/key"
lab_check_grep nobody-protection-refused 'Permission denied' \
    nobody bash -c "echo none >$D/protection"
lab_check_grep nobody-reads-ids '^5$' nobody cat "$D/key_ids"
lab_check_grep nobody-reads-protection '^auth$' nobody cat "$D/protection"
nocap() {
    setpriv --inh-caps=-all --bounding-set=-net_admin "$@"
}
lab_check_grep nocap-key-refused 'Operation not permitted' nocap bash -c "echo '7 metaroce:k3' >$D/key"
lab_check_grep nocap-remove-refused 'Operation not permitted' nocap bash -c "echo -5 >$D/key"
lab_check_grep nocap-protection-refused 'Operation not permitted' \
    nocap bash -c "echo none >$D/protection"
lab_check nocap-changed-nothing ids_are "5"
lab_check nocap-mode-unchanged mode_is auth

# the lookup runs in the writer's keyrings: a key in a session keyring of
# its own is found from that session and from nowhere else
lab_check session-key keyctl session devkey-lab bash -c \
    "head -c 16 /dev/urandom | keyctl padd logon metaroce:sess @s >/dev/null &&
     echo '8 metaroce:sess' >$D/key"
lab_check session-ids ids_are "8 5"
refused session-remove-current-auth 'Device or resource busy' key "-8"
lab_check session-none put protection none
lab_check session-remove put key "-8"
lab_check session-previous-current ids_are "5"
refused session-key-elsewhere 'Required key not available' key "9 metaroce:sess"

# a revoked key is refused
kr=$(keyctl search @u logon metaroce:k16)
keyctl revoke "$kr"
refused revoked-refused 'Key has been revoked|Required key not available' key "9 metaroce:k16"
lab_check ids-after-revoked ids_are "5"

# the device goes with its keys installed and auth on
lab_check link-delete rdma link delete mr0
lab_check link-gone mro_gone mr0
lab_check rmmod rmmod metaroce
lab_check dmesg-clean mro_dmesg_clean
