/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce packet protection of an RC or UC connection: see mro_prot.c.
 */
#ifndef MRO_PROT_H
#define MRO_PROT_H

#include <linux/skbuff.h>
#include <linux/workqueue.h>

#include "mro_aead.h"
#include "mro_devkey.h"
#include "mro_rxverdict.h"
#include "mro_wire.h"

struct mro_qp;

/* a protected connection's state; fields under the QP's lock */
struct mro_conn_prot {
	struct mro_qp *qp;
	enum mro_prot mode;		/* MRO_PROT_AUTH or MRO_PROT_ENCRYPT */
	u8 key_id;			/* current at RTR, then the chosen */
	u8 prev_key_id;			/* previous at RTR */
	bool deriving;			/* the key work is queued or running */
	bool keyed;			/* tx and rx are set up */
	bool auth_warned;		/* a failed tag was logged */
	bool key_chosen;		/* key_id is the connection's */
	u8 dev_key[MRO_DEVKEY_MAX_LEN];	/* the device key, copied at RTR */
	unsigned int dev_key_len;
	struct mro_aead_dir tx;		/* the packets this end sends */
	struct mro_aead_dir rx;		/* the packets the peer sends */
	struct mro_replay replay;	/* over rx's counter values */
	struct work_struct work;	/* key derivation */
};

int mro_prot_warm_up(void);
/* NULL when the device's mode is none, else an ERR_PTR or the state */
struct mro_conn_prot *mro_prot_alloc(struct mro_qp *qp);
void mro_prot_free(struct mro_conn_prot *p);
int mro_prot_choose_key(struct mro_qp *qp, u8 peer_cur, u8 peer_prev);
void mro_prot_schedule(struct mro_qp *qp);
void mro_prot_work(struct work_struct *work);
int mro_prot_seal(struct mro_qp *qp, struct sk_buff *skb, u16 hdr_len);
enum mro_rx_verdict mro_prot_open(struct mro_qp *qp, struct sk_buff *skb,
				  const struct mro_hdr *hdr);

/* whether the QP may send what is not a HELLO (lock held) */
static inline bool mro_prot_tx_ready(const struct mro_conn_prot *p)
{
	return !p || p->keyed;
}

#endif /* MRO_PROT_H */
