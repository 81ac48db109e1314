# SPDX-License-Identifier: GPL-2.0
#
# Pure-C driver objects (no device, no ib_core) the KUnit tests call into.
# Paths are relative to drivers/infiniband/sw/metaroce/ of the repo; run.sh
# links each of them into the kunit directory so they can be compiled into
# the test module when the driver itself is not built in.
metaroce-pure-objs := mro_wire.o mro_opcode.o mro_opcode_wr.o mro_skb.o mro_rxwin.o mro_path.o mro_sched.o mro_sched_rr.o mro_sched_weighted.o mro_pathscore.o \
	mro_loss.o mro_rto.o mro_ackpol.o mro_cc.o mro_cc_dual.o mro_cc_off.o mro_cc_swift.o mro_credit.o mro_ucgap.o mro_keyorder.o \
	mro_kdf.o mro_aead.o mro_hello.o mro_devkey.o
