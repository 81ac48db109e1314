/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* librefpeer internals: the endpoint and what its parts share */
#ifndef RP_INTERNAL_H
#define RP_INTERNAL_H

#include <stdio.h>
#include "refpeer.h"

#define RP_PSN_RING	32768		/* > 2 * METAROCE_WINDOW_MAX */
#define RP_SQ_SIZE	4096
#define RP_RQ_SIZE	4096
#define RP_CQ_SIZE	8192
#define RP_MAX_MR	64
#define RP_MAX_PENDING	16		/* READ/atomics waiting for their turn */
#define RP_READ_MEMORY	16		/* READs remembered for duplicates */
#define RP_SPEC_WINDOW	32		/* PSNs before the first grant */
#define RP_MAX_PKT	(65536 + 256)

static inline s32 psn_diff(u32 a, u32 b)
{
	return (s32)(a - b);
}

#define psn_lt(a, b)	(psn_diff(a, b) < 0)
#define psn_le(a, b)	(psn_diff(a, b) <= 0)

struct rp_path {
	int fd;
	u16 sport;
	u32 seq;		/* next path_seq */
	u32 first_seq;		/* path_seq of the first transmission */
	u32 loss;		/* EWMA of losses, in 1/1024 */
	u32 srtt, rttvar;	/* us; 0: no sample */
};

enum rp_wqe_state { WQE_QUEUED, WQE_SENDING, WQE_SENT, WQE_DONE };

struct rp_wqe {
	u64 wr_id;
	u8 opcode;
	u8 state;
	bool with_imm;
	bool solicited;		/* SOLICITED on the last packet */
	u8 *buf;
	u32 len;
	u64 va;
	u32 rkey;
	u32 imm;
	u64 swap_add, compare;
	u64 *result;
	u32 msn;
	u32 first_psn;
	u32 npsn;		/* PSNs the message takes */
	u32 seg;		/* READ: response segment size */
	u32 next_off;		/* bytes handed to packets so far */
	u32 unacked;		/* PSNs not yet acknowledged */
};

enum rp_psn_state { PSN_FREE, PSN_OUT, PSN_ACKED };

/* one PSN of the send side */
struct rp_psn {
	u8 state;
	bool lost;		/* queued for retransmission */
	bool read_slot;		/* a READ response PSN, not sent itself */
	bool ack_req;
	u16 ntx;
	u16 path;		/* slot of the newest transmission */
	u32 wqe;		/* send queue index */
	u32 off, len;		/* payload (READ: this response's bytes) */
	u32 rd_len;		/* READ_REQ: bytes the request asks for */
	u32 path_seq;
	u32 tsval;
	u64 sent_us;		/* newest transmission */
	u64 first_sent_us;
};

/* a receive-consuming message being assembled (by msn) */
struct rp_rmsg {
	bool used;
	bool done;
	u8 opcode;
	u32 msn;
	u32 length;
	u32 got;
	u32 imm;
	u32 rq;			/* receive WQE index */
	bool len_err;
	/* SEND_INV: its last PSN, its key fence waiting, the fence failed */
	u32 last_psn;
	bool fence_wait;
	bool prot_err;
};

#define RP_MAX_FENCES	16	/* key fences a QP holds (ORD-3) */

/* a complete SEND_INV's invalidation, due when the base passes @psn */
struct rp_fence {
	bool used;
	u32 psn;		/* the SEND_INV's last PSN */
	u32 key;
	u32 msn;
};

struct rp_rwqe {
	u64 wr_id;
	u8 *buf;
	u32 len;
};

struct rp_mr {
	u8 *addr;
	size_t len;
	u32 rkey;
	unsigned int access;
};

/* a READ_REQ or atomic waiting for the receive window to reach it */
struct rp_pending {
	bool used;
	struct mro_hdr h;
	u16 sport_slot;
};

struct rp_read_mem {
	bool used;
	u32 psn, npsn;
	u64 va;
	u32 rkey, seg, offset, length;
};

struct rp_atomic_mem {
	bool used;
	u32 psn;
	u64 orig;
};

struct rp_held {		/* a packet the reorder simulation holds back */
	u8 *buf;
	size_t len;
	unsigned int slot;
	int tos;
	u64 due_us;
};

struct rp_crypto;
struct rp_dgram;

struct rp_ep {
	struct rp_cfg cfg;
	int rx_fd;
	u64 rng;
	u32 ts_offset;
	char err[256];
	bool dead;
	bool connected;

	unsigned int npaths;
	struct rp_path path[RP_MAX_PATHS];
	unsigned int sched_rotor, rhythm_rotor, dup_rotor;

	/* negotiation */
	u64 nonce, peer_nonce;
	bool hello_echoed;	/* the peer echoed our nonce */
	bool hello_rcvd;	/* the peer's HELLO was taken */
	unsigned int hello_sent_n;
	u64 hello_due_us;
	u64 hello_ivl_us;
	u64 hello_ivl_max_us;		/* the HELLO timer's cap: 64 x its base */
	u8 chosen_key_id;
	struct rp_crypto *crypto;	/* NULL until keyed (or prot none) */
	/* datagram keys (protection on): this QP's, and its senders' */
	struct rp_dgram *dgram;
	unsigned int dgram_auth_logged;	/* datagram tag failures logged */

	/* requester */
	struct rp_wqe *sq;
	u32 sq_head, sq_next, sq_tail;	/* oldest, next to start, end */
	struct rp_psn *psn;
	u32 snd_una, snd_nxt;
	u32 credit_psn;
	bool have_credit;
	bool window_full;	/* silly-window avoidance */
	u32 next_msn;
	u32 *retx;		/* FIFO of PSNs found lost */
	u32 retx_head, retx_tail;
	u32 high_delivered;	/* highest PSN known delivered + 1 */
	u64 newest_delivered_sent;
	u32 srtt, rttvar;	/* QP's, us */
	u64 rto_due;		/* 0: not armed */
	bool rto_is_tlp;
	bool tlp_done;
	unsigned int backoff;
	unsigned int retries;
	u64 rnr_until;
	unsigned int outstanding_rd;

	/* responder */
	u32 rcv_base;		/* next expected PSN (cum_psn) */
	u32 rcv_high;		/* highest PSN seen + 1 */
	u64 *rcv_bits;		/* window bitmap, indexed by psn % window */
	unsigned int since_ack;
	u16 ecn_ce;
	u32 rcv_msn;		/* next message to complete */
	struct rp_rmsg rmsg[METAROCE_MSG_WINDOW];
	struct rp_fence fence[RP_MAX_FENCES];
	struct rp_rwqe *rq;
	u32 rq_head, rq_tail;
	struct rp_pending pending[RP_MAX_PENDING];
	struct rp_read_mem read_mem[RP_READ_MEMORY];
	unsigned int read_mem_rotor;
	struct rp_atomic_mem atomic_mem[RP_READ_MEMORY];
	unsigned int atomic_mem_rotor;

	struct rp_mr mr[RP_MAX_MR];
	unsigned int nmr;

	struct rp_wc *cq;
	u32 cq_head, cq_tail;

	struct rp_held held[8];
	unsigned int nheld;

	int rx_tos;		/* IP TOS of the datagram being received */

	rp_rx_hook_t rx_hook;
	void *rx_hook_arg;
	rp_tx_hook_t tx_hook;
	void *tx_hook_arg;

	struct rp_stats st;
	u8 txbuf[RP_MAX_PKT];
	u64 credit_due_us;	/* CREDIT to send when the sender stays silent */
	u8 rxbuf[RP_MAX_PKT];
	/* a sealed datagram as it arrived, for the rx hook (rp_rx_raw()) */
	u8 rxraw[RP_MAX_PKT];
	size_t rxraw_len;
};

/* rp_conn.c */
u64 rp_now_us(void);
u64 rp_rand(struct rp_ep *ep);
void rp_fail(struct rp_ep *ep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rp_log(struct rp_ep *ep, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void rp_cq_push(struct rp_ep *ep, const struct rp_wc *wc);
struct rp_mr *rp_mr_check(struct rp_ep *ep, u32 rkey, u64 va, u64 len,
			  unsigned int access);
int rp_xmit(struct rp_ep *ep, struct mro_hdr *h, const void *payload,
	    u32 len, unsigned int slot);

/* rp_req.c: the requester side */
void rp_req_push(struct rp_ep *ep);
void rp_req_rx(struct rp_ep *ep, struct mro_hdr *h, const u8 *payload);
void rp_req_timer(struct rp_ep *ep, u64 now);
void rp_resp_timer(struct rp_ep *ep, u64 now);
void rp_req_apply_cum(struct rp_ep *ep, u32 cum);

/* rp_resp.c: the responder side */
void rp_resp_init(struct rp_ep *ep);
void rp_resp_rx(struct rp_ep *ep, struct mro_hdr *h, const u8 *payload,
		bool ce);

/* rp_path.c */
int rp_paths_open(struct rp_ep *ep);
void rp_paths_close(struct rp_ep *ep);
int rp_path_renew(struct rp_ep *ep, unsigned int slot);
unsigned int rp_path_pick_new(struct rp_ep *ep, u32 psn);
unsigned int rp_path_pick_retx(struct rp_ep *ep, unsigned int lost_on);
unsigned int rp_path_reply(struct rp_ep *ep, u16 req_path, bool dup);
void rp_path_loss(struct rp_ep *ep, unsigned int slot);
void rp_path_delivered(struct rp_ep *ep, unsigned int slot);
void rp_path_rtt(struct rp_ep *ep, unsigned int slot, u32 rtt);
bool rp_path_seq_recent(struct rp_ep *ep, unsigned int slot, u32 seq);

/* rp_hello.c: negotiation */
void rp_hello_start(struct rp_ep *ep);
void rp_hello_rx(struct rp_ep *ep, const struct mro_hdr *h);
void rp_hello_timer(struct rp_ep *ep, u64 now);
int rp_hello_send(struct rp_ep *ep, bool ask);

/* rp_crypto.c: packet protection */
struct rp_crypto *rp_crypto_new(struct rp_ep *ep);
void rp_crypto_free(struct rp_crypto *c);
/* seal @len bytes (header @hdr_len) in @buf; returns the new length */
int rp_crypto_seal(struct rp_crypto *c, u8 *buf, size_t hdr_len,
		   size_t len);
/* open a sealed packet of @len bytes in place; 0 or -1 (tag), -2 (replay) */
int rp_crypto_open(struct rp_crypto *c, u8 *buf, size_t hdr_len,
		   size_t len);

/*
 * Datagrams (Packet protection, Datagrams): the device's view of sealed
 * UD datagrams, one per endpoint with protection on
 */
struct rp_dgram *rp_dgram_new(struct rp_ep *ep);
void rp_dgram_free(struct rp_dgram *d);
/* entering RTS: a new datagram nonce and sending key (PROT-18) */
int rp_dgram_tx_start(struct rp_dgram *d, u32 qpn);
/* the key id and nonce of the seal extension; false before RTS */
bool rp_dgram_tx_fields(const struct rp_dgram *d, u8 *key_id, u64 *nonce);
/* seal a datagram of @len bytes in place; the new length, or -1 */
int rp_dgram_tx_seal(struct rp_dgram *d, u8 *buf, size_t hdr_len,
		     size_t len);
/*
 * open a sealed datagram of @len bytes from sender (@key_id, @qpn,
 * @nonce) in place: 0, -1 (tag), -2 (replay), -3 (a key id not held), -4
 * (a new sender, and no kept one free to go)
 */
int rp_dgram_rx_open(struct rp_dgram *d, u8 key_id, u32 qpn, u64 nonce,
		     u8 *buf, size_t hdr_len, size_t len);

#endif /* RP_INTERNAL_H */
