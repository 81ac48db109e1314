# SPDX-License-Identifier: GPL-2.0-only
#
# metaroce top-level Makefile.
#   make                  build metaroce.ko for the running kernel
#   make KDIR=<dir>       ... against any kernel build/headers tree
#   make W=1 C=1          extra warnings, sparse
#   make install          install the built module under extra/ (depmod), the
#                         modprobe.d file and the metaroce@.service unit
#   make uninstall        remove them again
#   make install-files    only the modprobe.d file and the unit
#   make dkms-install     the sources under /usr/src/metaroce-VERSION, built and
#                         installed by DKMS for this and every later kernel,
#                         plus the modprobe.d file and the unit
#   make dkms-uninstall   remove the DKMS module and its sources
#   make dist             out/metaroce-VERSION.tar.gz, the sources DKMS needs and the docs
#   make matrix           build for Debian 12 (6.1) and Debian 13 (6.12)
#   make lint             checkpatch --strict and friends
#   make kunit            KUnit suites (UML, from linux-source-6.12)
#   make test             what CI runs (see README): lint, builds, KUnit, core VM scenarios
#   make test-full        make test plus the long VM scenarios and the bench smoke
#   make test-debug       VM scenarios on the lockdep/KASAN/kmemleak debug kernel
#   make demo             the README's main job: a VM-lab demo
#   make bench            benchmarks in the VM lab
#   make bench-simhole    a black-holed path timed in simulated time (QEMU -icount)
#   make bench-apps       applications (NVMe-oF, NFS, qperf, UCX, rping, Open MPI) over metaroce, rxe, TCP
#   make bench-collective collective flow completion times, 8 hosts, metaroce and TCP

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
KO := $(ROOT)/drivers/infiniband/sw/metaroce/metaroce.ko
# DESTDIR: a staging root (packaging); depmod then runs against it
MODDIR := $(DESTDIR)/lib/modules/$(KVER)/extra
VERSION := $(shell sed -n 's/^\#define MRO_VERSION[[:space:]]*"\(.*\)"/\1/p' \
	$(ROOT)/drivers/infiniband/sw/metaroce/mro.h)
DKMS_SRC := /usr/src/metaroce-$(VERSION)

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(ROOT) CONFIG_METAROCE=m modules

clean:
	$(MAKE) -C $(KDIR) M=$(ROOT) clean

# the module `make` built for $(KVER); build first, as the user, then install
install:
	@test -f $(KO) || { echo "make install: no $(KO): run make first" >&2; exit 1; }
	install -D -m 644 $(KO) $(MODDIR)/metaroce.ko
	$(MAKE) -f $(ROOT)/Makefile install-files
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

# what make install and make dkms-install add beside the module
install-files:
	install -D -m 644 $(ROOT)/tools/install/metaroce.conf $(DESTDIR)/etc/modprobe.d/metaroce.conf
	install -D -m 644 $(ROOT)/tools/install/metaroce@.service \
		$(DESTDIR)/etc/systemd/system/metaroce@.service

uninstall:
	rm -f $(MODDIR)/metaroce.ko $(DESTDIR)/etc/systemd/system/metaroce@.service
	@echo "make uninstall: kept /etc/modprobe.d/metaroce.conf (your settings)"
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

# what a DKMS build needs of the tree (dkms copies it to its own build dir)
DKMS_FILES := Makefile Kbuild dkms.conf LICENSE LICENSES \
	drivers/infiniband/sw/metaroce include/uapi/rdma tools/install
# build products a source copy leaves out
NOT_SOURCE := --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod*' \
	--exclude='.tmp*' --exclude=modules.order --exclude=Module.symvers
DIST := $(ROOT)/out/metaroce-$(VERSION).tar.gz

dkms-install: dkms-uninstall
	@command -v dkms >/dev/null || { echo "make dkms-install: no dkms (apt install dkms)" >&2; exit 1; }
	mkdir -p $(DKMS_SRC)
	cd $(ROOT) && tar -c $(NOT_SOURCE) $(DKMS_FILES) | tar -x -C $(DKMS_SRC)
	dkms install metaroce/$(VERSION) -k $(KVER)
	$(MAKE) -f $(ROOT)/Makefile install-files

# a source tarball: what DKMS needs, the docs and the README
dist:
	mkdir -p $(dir $(DIST))
	cd $(ROOT) && tar -cz $(NOT_SOURCE) --transform='s,^,metaroce-$(VERSION)/,' \
		-f $(DIST).$$$$.tmp $(DKMS_FILES) README.md Documentation && \
		mv -f $(DIST).$$$$.tmp $(DIST)
	@echo $(DIST)

dkms-uninstall:
	@if [ -d /var/lib/dkms/metaroce/$(VERSION) ]; then \
		echo "dkms remove metaroce/$(VERSION) --all"; dkms remove metaroce/$(VERSION) --all; fi
	rm -rf $(DKMS_SRC)

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

.PHONY: all modules clean install install-files uninstall dkms-install dkms-uninstall dist matrix lint kunit test test-full test-debug demo bench bench-simhole bench-apps \
	bench-collective
