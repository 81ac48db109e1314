#!/bin/bash
# metaroce-quickstart (pair topology): the README's "Quick start on a real
# host" block, read from the README.md of the source tarball and run line by
# line on both VMs as a user would type it: VM a runs the lines whose comment
# says "server", VM b the "client" ones with SERVER_IP replaced by a's
# address, both VMs the rest, in lockstep (a barrier before every line).
# Each line is a check that must exit 0; where its comment states a result
# (ACTIVE, a GID index) that is checked too.  Substitutions, all visible in
# the check names: "sudo " is dropped (the guest runs as root); `make` is not
# run, the module the matrix built for this kernel is put where `make` leaves
# it (building in the guest takes about ten minutes under TCG; metaroce-install
# builds it there in make test-full); `tools/mro-paths -d mr0` (a live view)
# runs once with -i 0.  Afterwards the module must be gone and dmesg clean.
#
# Files (--files): metaroce-src.tar.gz (make dist), metaroce.ko,
# metaroce-lib.sh, mro-paths.
source "$LAB_LIB"
source "$LAB_FILES/metaroce-lib.sh"

src=$LAB_WORK/src
mkdir -p "$src"
lab_check qs-unpack tar -xzf "$LAB_FILES/metaroce-src.tar.gz" -C "$src" --strip-components=1 ||
    exit 1
mro_findings_start

# the block: from the heading to the end of the first ```sh fence after it
awk '/^## Quick start on a real host/ { h = 1; next }
     h && /^```sh$/ { f = 1; next }
     f && /^```$/ { exit }
     f { print }' "$src/README.md" >"$LAB_OUT/quickstart.sh"
lab_check_grep qs-block-found 'rdma link add mr0 type metaroce' cat "$LAB_OUT/quickstart.sh" ||
    exit 1

cd "$src" || exit 1
ko=drivers/infiniband/sw/metaroce/metaroce.ko
n=0
srv_pid=""
while IFS= read -r line <&3; do
    # command and comment: a comment starts at the first " # "
    cmd=${line%% # *}
    [ "$cmd" = "$line" ] && [ "${line:0:1}" = "#" ] && cmd=""
    comment=""
    [ "$cmd" != "$line" ] && comment=${line#* # }
    cmd=$(sed 's/[[:space:]]*$//' <<<"$cmd")
    [ -n "$cmd" ] || continue
    n=$((n + 1))
    who=both
    case $comment in
        server*) who=a ;;
        client*) who=b ;;
    esac
    cmd=${cmd//sudo /}
    name="qs-$n"
    lab_barrier "$name" || exit 1
    # the server a started for the previous line has had its client by now
    if [ -n "$srv_pid" ]; then
        wait "$srv_pid"
        lab_check "$srv_name" sh -c "cat '$LAB_WORK/$srv_name.out'; exit $?"
        srv_pid=""
    fi
    [ "$who" = both ] || [ "$who" = "$ROLE" ] || continue
    lab_log "$name: $cmd"
    case $cmd in
    make)
        cp "$LAB_FILES/metaroce.ko" "$ko"
        lab_check "$name-make-substituted-prebuilt" test -s "$ko"
        ;;
    GID=*)
        # an assignment the next lines use: run in this shell
        eval "$cmd"
        lab_check_grep "$name-gid-assigned" '^[0-9]+$' echo "${GID:-}"
        ;;
    "rdma link show mr0/1")
        lab_check_grep "$name-link-active" 'state ACTIVE' lab_retry 20 0.5 sh -c \
            "$cmd | grep 'state ACTIVE'"
        ;;
    "echo \"\$GID\"")
        lab_check_grep "$name-gid-index" '^[0-9]+$' eval "$cmd"
        ;;
    "tools/mro-paths -d mr0")
        mkdir -p tools
        cp "$LAB_FILES/mro-paths" tools/
        lab_check "$name-mro-paths-once" eval "$cmd -i 0"
        ;;
    *)
        if [ "$who" = a ]; then
            # a server: it runs while b's next line connects to it
            srv_name=$name-server
            eval "$cmd" >"$LAB_WORK/$srv_name.out" 2>&1 &
            srv_pid=$!
            sleep 2
        elif [ "$who" = b ]; then
            cmd=${cmd//SERVER_IP/$PEER_IP}
            lab_check "$name-client" lab_retry 10 2 eval "$cmd"
        else
            lab_check "$name" eval "$cmd"
        fi
        ;;
    esac
done 3<"$LAB_OUT/quickstart.sh"
lab_metric quickstart_lines "$n"
lab_check qs-ran-every-line test "$n" -ge 10

lab_check qs-module-unloaded sh -c '! grep -q "^metaroce " /proc/modules'
lab_check qs-installed-module test -f "/lib/modules/$(uname -r)/extra/metaroce.ko"
lab_check dmesg-clean mro_dmesg_clean
lab_barrier finished
