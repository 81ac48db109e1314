# SPDX-License-Identifier: GPL-2.0
#
# The driver's feature probes (probes/NAME.c -> -DMRO_HAVE_NAME), linked here
# by run.sh, so driver headers such as mro_compat.h see the same API as the
# driver.  The include order is that of the real compile ($(LINUXINCLUDE)
# before $(KBUILD_CPPFLAGS)): on UML the other order picks up x86's
# asm/bug.h and every probe that includes a kernel header fails.
mro_kunit_probe_dir := $(src)/probes
mro_kunit_probe_cc = $(shell $(CC) $(NOSTDINC_FLAGS) $(LINUXINCLUDE) \
	$(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) -DKBUILD_MODNAME=\"mro_probe\" \
	-Werror=incompatible-pointer-types \
	-Werror=implicit-function-declaration -Werror=int-conversion \
	-fsyntax-only -x c $(mro_kunit_probe_dir)/$(1).c >/dev/null 2>&1 && \
	echo -DMRO_HAVE_$(shell echo $(1) | tr a-z A-Z))
mro_kunit_probes := $(patsubst %.c,%,$(notdir $(wildcard $(mro_kunit_probe_dir)/*.c)))
ccflags-y += $(foreach p,$(mro_kunit_probes),$(call mro_kunit_probe_cc,$(p)))
