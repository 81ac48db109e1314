// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce module: parameters, the `metaroce` rdma link type, and the
 * guard that keeps rdma_rxe and metaroce apart (both register with driver
 * id RDMA_DRIVER_RXE, so rdma_rxe would treat our devices as its own).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <rdma/rdma_netlink.h>

#include "mro.h"

unsigned int mro_udp_port = MRO_DEFAULT_UDP_PORT;

static int mro_param_set_port(const char *val, const struct kernel_param *kp)
{
	unsigned int port;
	int err;

	err = kstrtouint(val, 0, &port);
	if (err)
		return err;
	/* RoCE v2, VXLAN, VXLAN-GPE and UET ports belong to others */
	if (!port || port > 65535 || port == 4791 || port == 4789 ||
	    port == 4790 || port == 4793)
		return -EINVAL;
	*(unsigned int *)kp->arg = port;
	return 0;
}

static const struct kernel_param_ops mro_port_ops = {
	.set = mro_param_set_port,
	.get = param_get_uint,
};

module_param_cb(udp_port, &mro_port_ops, &mro_udp_port, 0444);
MODULE_PARM_DESC(udp_port, "UDP destination port of metaroce packets (default 4796; not 4789-4791 or 4793)");

#ifdef CONFIG_MODULES
static int mro_module_event(struct notifier_block *nb, unsigned long event,
			    void *data)
{
	struct module *mod = data;

	if (event != MODULE_STATE_COMING || strcmp(mod->name, "rdma_rxe"))
		return NOTIFY_DONE;
	pr_err("%s: refusing to load rdma_rxe while metaroce is loaded: both use driver id RDMA_DRIVER_RXE (rmmod metaroce first)\n",
	       MRO_DRV_NAME);
	return notifier_from_errno(-EBUSY);
}

static struct notifier_block mro_module_nb = {
	.notifier_call = mro_module_event,
};

static int mro_guard_rxe(void)
{
	return register_module_notifier(&mro_module_nb);
}

static void mro_unguard_rxe(void)
{
	unregister_module_notifier(&mro_module_nb);
}
#else
/* built in: rdma_rxe can only be built in too, and then we are not loaded */
static int mro_guard_rxe(void)
{
	return 0;
}

static void mro_unguard_rxe(void)
{
}
#endif

static struct notifier_block mro_netdev_nb = {
	.notifier_call = mro_netdev_event,
};

static struct rdma_link_ops mro_link_ops = {
	.type = MRO_LINK_TYPE,
	.newlink = mro_newlink,
};

static int __init mro_init(void)
{
	int err;

	err = mro_cc_module_init();
	if (err)
		return err;
	mro_counters_init();
	err = mro_guard_rxe();
	if (err)
		return err;
	err = mro_rxe_port_check();
	if (err)
		goto err_module_nb;
	err = mro_net_init();
	if (err)
		goto err_module_nb;
	err = register_netdevice_notifier(&mro_netdev_nb);
	if (err)
		goto err_net;
	rdma_link_register(&mro_link_ops);
	pr_info("%s: loaded, version %s, UDP port %u\n", MRO_DRV_NAME,
		MRO_VERSION, mro_udp_port);
	return 0;

err_net:
	mro_net_exit();
err_module_nb:
	mro_unguard_rxe();
	return err;
}

static void __exit mro_exit(void)
{
	rdma_link_unregister(&mro_link_ops);
	mro_unregister_all();
	unregister_netdevice_notifier(&mro_netdev_nb);
	mro_net_exit();
	mro_unguard_rxe();
	pr_info("%s: unloaded\n", MRO_DRV_NAME);
}

module_init(mro_init);
module_exit(mro_exit);

MODULE_AUTHOR("metaroce developers");
MODULE_DESCRIPTION("metaroce: loss-tolerant multipath soft RDMA over Ethernet");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(MRO_VERSION);
/*
 * rdma-core's verbs and rdma_cm applications need ib_uverbs and rdma_ucm;
 * the key derivation of mro_kdf.c runs over "hmac(sha256)", the packet
 * protection of mro_aead.c over "gcm(aes)", which the gcm module builds
 * from ctr and ghash_generic (aes itself is built into Debian's kernels).
 * modprobe skips a soft dependency that is built in or does not exist.
 */
MODULE_SOFTDEP("pre: ib_uverbs rdma_ucm hmac sha256 gcm ghash_generic ctr");
MODULE_ALIAS_RDMA_LINK(MRO_LINK_TYPE);
