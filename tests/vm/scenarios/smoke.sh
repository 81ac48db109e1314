#!/bin/bash
# smoke (netns topology): the VM boots our kernel, modules load, two netns hosts can ping.
# shellcheck source=tests/vm/guest/lib.sh
source "$LAB_LIB"

lab_check_grep kernel-version '^[0-9]+\.[0-9]+\.[0-9]+' uname -r
lab_metric kernel "$(uname -r)"
lab_check lsmod lsmod
lab_check netns-hosts lab_netns_hosts 2 || exit 1
lab_check_grep ping-h1-h2 ' 0% packet loss' ip netns exec h1 ping -c 3 -W 2 10.98.0.2
lab_check_grep ping-h2-h1 ' 0% packet loss' ip netns exec h2 ping -c 3 -W 2 10.98.0.1
