# SPDX-License-Identifier: GPL-2.0-only
#
# metaroce top-level Makefile.
#   make                  build metaroce.ko for the running kernel
#   make KDIR=<dir>       ... against any kernel build/headers tree
#   make W=1 C=1          extra warnings, sparse
#   make install          install the built module under extra/ (depmod), the
#                         modprobe.d file and the metaroce@.service unit
#   make uninstall        remove them again
#   make matrix           build for Debian 12 (6.1) and Debian 13 (6.12)
#   make lint             checkpatch --strict and friends
#   make kunit            KUnit suites (UML, from linux-source-6.12)
#   make test             what CI runs (see README): lint, builds, KUnit, core VM scenarios
#   make test-full        make test plus the long VM scenarios and the bench smoke
#   make test-debug       VM scenarios on the lockdep/KASAN/kmemleak debug kernel
#   make demo             the README's main job: a VM-lab demo
#   make bench            benchmarks in the VM lab
#   make bench-simhole    a black-holed path timed in simulated time (QEMU -icount)
#   make bench-apps       applications (NVMe-oF) over metaroce and rxe, side by side
#   make bench-collective collective flow completion times, 8 hosts, metaroce and TCP

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
KO := $(ROOT)/drivers/infiniband/sw/metaroce/metaroce.ko
# DESTDIR: a staging root (packaging); depmod then runs against it
MODDIR := $(DESTDIR)/lib/modules/$(KVER)/extra

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(ROOT) CONFIG_METAROCE=m modules

clean:
	$(MAKE) -C $(KDIR) M=$(ROOT) clean

# the module `make` built for $(KVER); build first, as the user, then install
install:
	@test -f $(KO) || { echo "make install: no $(KO): run make first" >&2; exit 1; }
	install -D -m 644 $(KO) $(MODDIR)/metaroce.ko
	install -D -m 644 $(ROOT)/tools/install/metaroce.conf $(DESTDIR)/etc/modprobe.d/metaroce.conf
	install -D -m 644 $(ROOT)/tools/install/metaroce@.service \
		$(DESTDIR)/etc/systemd/system/metaroce@.service
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

uninstall:
	rm -f $(MODDIR)/metaroce.ko $(DESTDIR)/etc/systemd/system/metaroce@.service
	@echo "make uninstall: kept /etc/modprobe.d/metaroce.conf (your settings)"
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

matrix:
	$(ROOT)/scripts/matrix.sh

lint:
	$(ROOT)/scripts/lint.sh

kunit:
	$(ROOT)/tests/kunit/run.sh

test:
	$(ROOT)/tests/run-all.sh

test-full:
	$(ROOT)/tests/run-all.sh --full

test-debug:
	$(ROOT)/tests/run-all.sh --only debug

demo:
	$(ROOT)/tests/vm/demo.sh

bench:
	$(ROOT)/tests/vm/bench.sh

bench-simhole:
	$(ROOT)/tests/vm/bench-simhole.sh

bench-apps:
	$(ROOT)/tests/vm/bench-apps.sh

bench-collective:
	$(ROOT)/tests/vm/bench-collective.sh

.PHONY: all modules clean install uninstall matrix lint kunit test test-full test-debug demo bench bench-simhole bench-apps \
	bench-collective
