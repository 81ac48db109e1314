/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce QP: verbs state (layer 1), message engine (layer 2) and the
 * per-connection transport (layer 3).  One spinlock per QP (qp->lock, taken
 * with BHs off) protects everything below "transport"; packets are built
 * under it into a list and transmitted after it is dropped.
 */
#ifndef MRO_QP_H
#define MRO_QP_H

#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>

#include "mro.h"
#include "mro_hello.h"
#include "mro_prot.h"
#include "mro_keyorder.h"
#include "mro_loss.h"
#include "mro_opcode.h"
#include "mro_path.h"
#include "mro_respres.h"
#include "mro_psn.h"
#include "mro_rxverdict.h"
#include "mro_rxwin.h"
#include "mro_wire.h"

/* send WQE progress, kernel private (never in the shared ring) */
enum mro_swqe_state {
	MRO_SWQE_FREE = 0,
	MRO_SWQE_SENDING,	/* packets still to emit */
	MRO_SWQE_WAITING,	/* all sent, waiting for ACKs/responses */
	MRO_SWQE_DONE,		/* ready to complete (status set) */
};

/* what the kernel took from one send WQE, validated once */
struct mro_swqe {
	u64 wr_id;
	u32 opcode;		/* IB_WR_* */
	u32 send_flags;		/* IB_SEND_* */
	u32 ex;			/* immediate (big-endian value) or inv rkey */
	u64 raddr;
	u32 rkey;
	u64 compare_add;
	u64 swap;		/* also ATOMIC_WRITE's 8 bytes (big-endian) */
	u32 length;		/* message bytes; FLUSH: bytes to flush */
	u8 flush_type;		/* METAROCE_FLUSH_* */
	u8 flush_level;
	u32 num_sge;
	bool inline_data;
	/* UD (its address vector: mro_swqe_av()) */
	u32 remote_qpn;
	u32 remote_qkey;

	enum mro_swqe_state state;
	enum ib_wc_status status;
	u32 first_psn;		/* PSNs [first_psn, first_psn + npkts) */
	u32 npkts;
	u32 sent;		/* packets emitted (first transmission) */
	u32 msn;
	bool is_read_atomic;	/* completes on a response, not on ACK */
	bool rd_res;		/* takes a responder resource (max_rd_atomic) */
	u32 resp_pkts;		/* response packets received (READ) */
	u64 atomic_orig;
};

/* one transmitted PSN, ring-indexed by psn & (txwin - 1) */
enum mro_txslot_state {
	MRO_TX_SENT = 0,
	MRO_TX_ACKED,		/* acknowledged or response received */
	MRO_TX_LOST,		/* declared lost, waiting for retransmission */
};

struct mro_route;

struct mro_txslot {
	u32 swqe;		/* SQ index of the WQE */
	u32 offset;		/* byte offset in the message */
	u32 len;		/* payload bytes */
	u32 sent_us;		/* time of last transmission */
	u32 path_seq;
	u16 path;
	u8 state;
	u8 retx;
	bool on_path;		/* path/path_seq describe a transmission */
	bool fast_lost;		/* loss detection (not a timer) declared it */
	bool rto_lost;		/* the oldest PSN an RTO resent */
	bool asked;		/* its last transmission had ACK_REQ */
};

/* a received message that consumes a receive WQE (SEND*, WRITE_IMM) */
enum mro_rmsg_state {
	MRO_RMSG_FREE = 0,
	MRO_RMSG_ACTIVE,	/* has a receive WQE, collecting packets */
	MRO_RMSG_DONE,		/* all bytes placed, waiting for its turn */
};

struct mro_rmsg {
	u8 state;
	u8 opcode;		/* METAROCE_OP_* of the message */
	bool solicited;
	bool got_last;		/* its LAST packet arrived */
	enum ib_wc_status status;
	u32 msn;
	u32 first_psn;		/* PSN of its first packet (from the header) */
	u32 last_psn;		/* PSN of its last packet (or of an error) */
	u32 length;
	u32 received;		/* payload bytes placed */
	u32 imm;
	/* its receive WQE; the SGEs are in qp->rmsg_sge (mro_rmsg_sge()) */
	u64 wr_id;
	u32 wqe_length;
	u32 num_sge;
};

/*
 * A READ or atomic request that arrived before PSNs it must follow: it
 * runs when the receive window's base reaches it (IB orders them).
 */
#define MRO_NPEND	16

struct mro_pending_req {
	bool valid;
	struct mro_hdr hdr;
};

/* a remembered atomic result for duplicate requests */
struct mro_atomic_res {
	u32 psn;
	bool valid;
	u64 orig;
};

/*
 * The requester's transport state: the send window of PSNs, loss
 * recovery and its timers.  qp->lock protects all of it; the functions
 * that change it assert so.  Invariants: una <= highest_acked <= nxt and
 * nxt - una <= win (PSN order); lost counts the slots of [una, nxt) in
 * MRO_TX_LOST; a slot's state says whether its PSN waits for an ACK, a
 * resend or nothing.
 */
struct mro_requester {
	u32 una;			/* oldest PSN not acknowledged */
	u32 nxt;			/* next new PSN */
	u32 msn;			/* next receive-consuming message */
	u32 win;			/* PSNs in flight at most (pow2) */
	struct mro_txslot *slot;	/* per PSN, indexed psn & (win - 1) */
	u32 rd_atomic_inflight;
	u32 lost;			/* slots in MRO_TX_LOST */
	u32 highest_acked;		/* highest PSN known received + 1 */
	u32 retry_left;			/* RTOs without progress before error */
	u32 stall_us;			/* when the episode without progress began */
	bool acked_new;			/* a PSN acknowledged since the last check */
	u32 rnr_left;
	bool rnr_wait;
	u32 rnr_psn;
	ktime_t rto;			/* IB local ACK timeout */
	u32 rto_us;			/* current RTO before backoff */
	u32 srtt_us;
	u32 rttvar_us;
	u32 ts_off;			/* tsval on the wire: mro_now_us() + this */
	u32 backoff;
	bool pto_armed;			/* rto_timer is the tail-loss probe */
	u32 rto_due_us;			/* when rto_timer should fire */
	bool tlp_done;			/* probed since the last progress */
	u32 ack_known_end;		/* latest ACK reported PSNs before it */
	u32 acked_sent_us;		/* latest send time of a delivered PSN */
	u32 acked_at_us;		/* when acked_sent_us last moved */
	u32 reo_due_us;			/* when reo_timer should fire */
	struct mro_reo reo;		/* adaptive reordering window */
	u32 late_tx_end;		/* nxt when a resend/probe last left */
	u32 tx_last_psn;		/* PSN of the newest data transmission */
	bool win_closed;		/* waits for the window to reopen */
	struct hrtimer rto_timer;
	struct hrtimer rnr_timer;
	struct hrtimer reo_timer;	/* loss by time, between ACKs */
};

/*
 * The responder's transport state: the receive window of PSNs, the
 * messages being placed in order of MSN, the responder resources and
 * what waits for earlier PSNs.  qp->lock protects all of it.
 * Invariants: a message completes only at msn (MSN order); a READ or
 * atomic request and a remote invalidation run only when win.base
 * reached them (IB orders them after every earlier PSN).
 */
struct mro_responder {
	struct mro_rxwin win;
	u32 msn;			/* next message to complete */
	u32 nmsg;			/* rmsg ring size (pow2) */
	struct mro_rmsg *rmsg;
	struct ib_sge *rmsg_sge;	/* rmsg_max_sge per rmsg */
	u32 rmsg_max_sge;		/* the RQ's (or SRQ's) max_sge */
	struct mro_atomic_res *ares;	/* MRO_MAX_RD_ATOM entries */
	struct mro_read_res *rres;	/* READs answered, as many */
	struct mro_pending_req *pend;	/* MRO_NPEND entries */
	u32 ares_next;
	u32 rres_next;
	u32 ack_pending;		/* packets since last ACK */
	u16 dup_ack_turn;		/* rotates the paths of duplicates' ACKs */
	u32 ecn_ce;			/* CE-marked packets received */
	/* UC: the messages before uc_fence_msn precede uc_fence_psn */
	u32 uc_fence_msn;
	u32 uc_fence_psn;
	/* SEND_WITH_INVs waiting for every earlier PSN (mro_keyorder.h) */
	struct mro_keyorder keyorder;
};

struct mro_qp {
	struct ib_qp ibqp;
	struct mro_dev *dev;
	struct kref ref;
	struct completion released;
	struct mutex modify_lock;	/* verbs: modify, destroy */

	spinlock_t lock;		/* everything below */
	enum ib_qp_state state;
	bool is_user;
	bool sig_all;			/* IB_SIGNAL_ALL_WR */
	bool sq_draining;
	bool last_wqe_sent;		/* LAST_WQE_REACHED sent since ERR */
	u32 qpn;

	/* attributes */
	struct mro_av av;		/* RC/UC: the peer */
	u32 dest_qpn;
	u32 qkey;
	int access_flags;		/* IB_ACCESS_REMOTE_* allowed in */
	u8 timeout;			/* IB encoded local ACK timeout */
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u16 pkey_index;
	enum ib_mtu path_mtu;
	u32 mtu;			/* payload bytes per packet */

	/* send queue */
	struct mro_queue *sq;
	spinlock_t sq_lock;		/* kernel post_send producer */
	struct mro_swqe *swqe;		/* per SQ slot */
	struct ib_sge *swqe_sge;	/* sq_max_sge per SQ slot */
	struct mro_av *swqe_av;		/* UD and GSI only: one per SQ slot */
	u32 sq_max_sge;
	u32 sq_max_inline;
	u32 sq_head;			/* next SQ index to fetch */
	u32 sq_cur;			/* SQ index being packetized */
	bool sq_cur_valid;

	/* receive queue (NULL with an SRQ) */
	struct mro_queue *rq;
	spinlock_t rq_lock;		/* kernel post_recv producer */
	u32 rq_max_sge;
	struct mro_srq *srq;
	struct mro_cq *scq;
	struct mro_cq *rcq;

	/* transport */
	struct mro_requester req;
	struct hrtimer probe_timer;	/* the next retired path's re-probe */
	struct work_struct tx_work;
	struct work_struct post_work;	/* doorbell of a post with IRQs off */
	struct sk_buff_head txq;	/* built, not yet sent, in order */
	bool tx_draining;		/* a context is transmitting txq */
	struct mro_hello hello;		/* negotiation (RC, UC) */
	struct mro_conn_prot *prot;		/* protection; NULL: none */
	struct mro_dgram_tx *dgram;		/* UD: sealing key; NULL: none */
	struct mro_responder resp;

	/* paths */
	struct mro_pathset paths;
	struct mro_route *routes;	/* per path (mro_route.c), connected */
	u16 nroutes;

	/* this QP's share of the port counters (mro_counter_per_qp()) */
	atomic64_t stats[MRO_NR_COUNTERS];
	/* congestion control (mro_cc_qp.c) */
	struct mro_cc_qp cc;
};

static inline struct mro_qp *to_mro_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct mro_qp, ibqp);
}

/* count @n in the port counter @idx and in the QP's own copy */
static inline void mro_qp_count(struct mro_qp *qp, enum mro_counter idx,
				s64 n)
{
	mro_count(qp->dev->stats, idx, n);
	atomic64_add(n, &qp->stats[idx]);
}

/* a received packet of @len bytes (the port counted it on arrival) */
static inline void mro_qp_count_rx(struct mro_qp *qp, unsigned int len)
{
	atomic64_inc(&qp->stats[MRO_CNT_RCVD_PKTS]);
	atomic64_add(len, &qp->stats[MRO_CNT_RCVD_BYTES]);
}

/* UD and the GSI QP (QP1, a UD QP for CM MADs) */
static inline bool mro_qp_is_ud(struct mro_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

static inline bool mro_qp_connected(struct mro_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC;
}

/*
 * Run the completion handlers, and send the CQ and SRQ events, owed from
 * while the QP lock was held (call without it)
 */
static inline void mro_qp_notify_cqs(struct mro_qp *qp)
{
	mro_cq_notify(qp->scq);
	if (qp->rcq != qp->scq)
		mro_cq_notify(qp->rcq);
	mro_srq_notify(qp->srq);
}

/* qp->lock held: hand packets built under it to the ordered queue */
static inline void mro_qp_queue_tx(struct mro_qp *qp,
				   struct sk_buff_head *out)
{
	skb_queue_splice_tail_init(out, &qp->txq);
}

/* mro_qp.c */
int mro_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int mro_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
bool mro_qp_psns_visible(struct mro_qp *qp);
int mro_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int mro_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int mro_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int mro_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
struct mro_qp *mro_qp_get(struct mro_dev *dev, u32 qpn);
void mro_qp_put(struct mro_qp *qp);
/*
 * move to ERR (lock held); flushing happens in mro_qp_flush().  @status:
 * the failed WQE's, 0 if none; @ip: the decision's site, for the
 * mro_qp_error tracepoint.
 */
void mro_qp_error_at(struct mro_qp *qp, int status, unsigned long ip);
#define mro_qp_error(qp) mro_qp_error_at(qp, 0, _THIS_IP_)
void mro_qp_flush(struct mro_qp *qp);
void mro_qp_event(struct mro_qp *qp, enum ib_event_type type);
void mro_qp_kick(struct mro_qp *qp);
void mro_qp_tx_drain(struct mro_qp *qp);

/* the tx slot of @psn, the kernel copy of SQ index @idx and its SGEs */
static inline struct mro_txslot *mro_slot(struct mro_qp *qp, u32 psn)
{
	return &qp->req.slot[psn & (qp->req.win - 1)];
}

/*
 * Declare the PSN of slot @t lost (@fast: by loss detection, not by a
 * timer), keeping qp->req.lost the count of slots in MRO_TX_LOST
 */
static inline void mro_slot_lose(struct mro_qp *qp, struct mro_txslot *t,
				 bool fast)
{
	t->state = MRO_TX_LOST;
	t->fast_lost = fast;
	qp->req.lost++;
}

static inline struct mro_swqe *mro_swqe_at(struct mro_qp *qp, u32 idx)
{
	return &qp->swqe[idx & qp->sq->index_mask];
}

static inline struct ib_sge *mro_swqe_sges(struct mro_qp *qp, u32 idx)
{
	return &qp->swqe_sge[(idx & qp->sq->index_mask) * qp->sq_max_sge];
}

/* the address vector of UD/GSI SQ index @idx (connected QPs have none) */
static inline struct mro_av *mro_swqe_av(struct mro_qp *qp, u32 idx)
{
	return &qp->swqe_av[idx & qp->sq->index_mask];
}

static inline struct ib_sge *mro_rmsg_sge(struct mro_qp *qp,
					  struct mro_rmsg *m)
{
	return &qp->resp.rmsg_sge[(m - qp->resp.rmsg) * qp->resp.rmsg_max_sge];
}

static inline u32 mro_inflight(struct mro_qp *qp)
{
	return qp->req.nxt - qp->req.una;
}

/* the WQE whose PSN range holds @psn, if in flight */
static inline struct mro_swqe *mro_swqe_of_psn(struct mro_qp *qp, u32 psn)
{
	if (!mro_seq_in(psn, qp->req.una, mro_inflight(qp)))
		return NULL;
	return mro_swqe_at(qp, mro_slot(qp, psn)->swqe);
}

/* mro_req.c: requester, sending */
void mro_arm_rto(struct mro_qp *qp);
void mro_rto_start(struct mro_qp *qp, u64 us);
void mro_swqe_fail(struct mro_qp *qp, struct mro_swqe *s,
		   enum ib_wc_status status);
void mro_req_run(struct mro_qp *qp, struct sk_buff_head *out, int budget);
void mro_req_tx_work(struct work_struct *work);
void mro_req_complete_ready(struct mro_qp *qp);
enum ib_wc_opcode mro_wc_opcode(u32 opcode);

/* mro_ack.c: requester, return path */
enum mro_rx_verdict mro_req_rcv(struct mro_qp *qp, const struct mro_hdr *hdr,
				struct sk_buff *skb, struct sk_buff_head *out);
void mro_req_ack_piggy(struct mro_qp *qp, u32 ack_psn,
		       struct sk_buff_head *out);
/* declare lost what the loss rules say is (@timer: the reorder timer's) */
void mro_detect_loss(struct mro_qp *qp, bool timer);

/* mro_req_timer.c: requester timers */
enum mro_rto_job {
	MRO_RTO_NONE,		/* not in RTS/SQD, or nothing out */
	MRO_RTO_UNKEYED,	/* a protected connection waits for keys */
	MRO_RTO_RNR_WAIT,	/* waiting out an RNR NAK */
	MRO_RTO_EARLY,		/* the asked-for ACK is not due yet */
	MRO_RTO_TLP,		/* the tail-loss probe */
	MRO_RTO_EXHAUSTED,	/* retries used up */
	MRO_RTO_EXPIRE,		/* the timeout proper */
};

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * What the RTO timer that fired must do, in this order; *@left is
 * MRO_RTO_EARLY's wait in microseconds (static without KUnit)
 */
enum mro_rto_job mro_rto_job(struct mro_qp *qp, u32 *left);
#endif
enum hrtimer_restart mro_req_rto(struct hrtimer *t);
enum hrtimer_restart mro_req_rnr(struct hrtimer *t);
enum hrtimer_restart mro_req_reo(struct hrtimer *t);

/* mro_hello_qp.c: connection negotiation */
void mro_hello_prepare(struct mro_qp *qp);
void mro_hello_start(struct mro_qp *qp, struct sk_buff_head *out);
void mro_hello_resend(struct mro_qp *qp, struct sk_buff_head *out);
void mro_hello_unkeyed_rto(struct mro_qp *qp, struct sk_buff_head *out);
enum mro_rx_verdict mro_hello_qp_rcv(struct mro_qp *qp,
				     const struct mro_hdr *hdr,
				     struct sk_buff_head *out);

/* mro_pathmgr.c: the path manager (health, retire, re-probe, revive) */
/* transmission @seq on path @path was lost (@timeout: found by the RTO) */
void mro_pm_lost(struct mro_qp *qp, u16 path, u32 seq, bool timeout);
/* an ACK's echo: a re-probed path answered, an owed echo came */
void mro_pm_echo(struct mro_qp *qp, const struct mro_ack_hdr *a);
/* retire the paths whose owed echoes are an RTO late */
void mro_pm_echo_check(struct mro_qp *qp);
/* send the re-probes that are due */
void mro_pm_reprobe(struct mro_qp *qp, struct sk_buff_head *out);
enum hrtimer_restart mro_pm_probe_timer(struct hrtimer *timer);
/*
 * A PROBE on path @p with path sequence @seq; the peer answers with an
 * ACK.  @flags: METAROCE_F_NEW_PORT for a re-probe (the slot has a fresh
 * port).
 */
void mro_pm_send_probe(struct mro_qp *qp, u16 p, u32 seq, u16 flags,
		       struct sk_buff_head *out);

/* mro_flush.c: FLUSH and ATOMIC_WRITE (6.2+ verbs) */
bool mro_flush_is_wr(u32 op);
enum ib_wc_status mro_flush_swqe_load(struct mro_qp *qp,
				      struct rxe_send_wqe *w,
				      struct mro_swqe *s);
void mro_flush_fill_hdr(const struct mro_swqe *s, struct mro_hdr *hdr);
int mro_resp_flush(struct mro_qp *qp, const struct mro_hdr *hdr);
int mro_resp_atomic_write(struct mro_qp *qp, const struct mro_hdr *hdr);

/* mro_resp.c: responder */
#if IS_ENABLED(CONFIG_KUNIT)
/*
 * The responder's acceptance rules for a request-direction packet and its
 * class in the receive window (mro_resp_rcv()'s first stage; static
 * without KUnit)
 */
enum mro_rx_verdict mro_resp_accept(struct mro_qp *qp,
				    const struct mro_hdr *hdr,
				    enum mro_rx_class *cls);
#endif
enum mro_rx_verdict mro_resp_rcv(struct mro_qp *qp,
				 const struct mro_hdr *hdr,
				 struct sk_buff *skb, struct sk_buff_head *out);
int mro_rq_wqe_for(struct mro_qp *qp, u32 msn, struct mro_recv_wqe *w);
enum mro_rx_verdict mro_resp_ud_rcv(struct mro_qp *qp,
				    const struct mro_hdr *hdr,
				    struct sk_buff *skb);
/*
 * UC under loss (mro_resp_uc.c): a packet's PSN at most MRO_UC_PSN_SPAN past
 * the receive base, its msn at most MRO_UC_MSN_SPAN past rcv_msn (a message
 * takes a PSN at least, and the unfinished ones lie in a window before the
 * base), so that one forged packet costs a bounded stretch, not the QP.
 */
#define MRO_UC_PSN_SPAN		BIT(16)
#define MRO_UC_MSN_SPAN		(MRO_UC_PSN_SPAN + MRO_WINDOW_MAX)
int mro_uc_make_room(struct mro_qp *qp, const struct mro_hdr *hdr);
bool mro_uc_drop_head(struct mro_qp *qp);
void mro_uc_reset(struct mro_qp *qp);
enum mro_rx_verdict mro_resp_probe(struct mro_qp *qp,
				   const struct mro_hdr *hdr,
				   struct sk_buff_head *out);

/* mro_tx.c: packets */
struct sk_buff *mro_tx_build(struct mro_qp *qp, const struct mro_av *av,
			     struct mro_hdr *hdr, u32 payload_len,
			     void **payload);
void mro_tx_seal(struct sk_buff *skb);
void mro_tx_seal_batch(struct mro_qp *qp, struct sk_buff_head *batch);
void mro_tx_send_list(struct mro_qp *qp, struct sk_buff_head *list);
u32 mro_now_us(void);

/* mro_route.c: per-path route cache (transmit context only) */
struct dst_cache;
int mro_routes_init(struct mro_qp *qp);
void mro_routes_free(struct mro_qp *qp);
struct dst_cache *mro_route_cache(struct mro_qp *qp, u16 path,
				  const struct in6_addr *saddr,
				  const struct in6_addr *daddr, u16 sport);

/* mro_restrack.c: rdma resource show qp -dd */
int mro_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);

/* mro_mcast.c: multicast groups */
int mro_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int mro_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
enum mro_rx_verdict mro_mcast_rcv(struct mro_dev *dev, struct sk_buff *skb,
				  const struct mro_hdr *hdr);
void mro_mcast_cleanup(struct mro_dev *dev);
struct rtable;
int mro_mcast_xmit4(struct net *net, struct rtable *rt, struct sk_buff *skb,
		    __be32 saddr, __be32 daddr, u8 tos, __be16 sport,
		    __be16 dport);
int mro_mcast_xmit6(struct net *net, struct dst_entry *dst,
		    struct sk_buff *skb, const struct in6_addr *saddr,
		    const struct in6_addr *daddr, u8 tclass, __be16 sport,
		    __be16 dport);

/*
 * The QP's timestamps on the wire: mro_now_us() plus a random offset of
 * its own (as TCP's per-connection offset, RFC 7323 section 5.4), so a
 * packet's tsval discloses neither the host's clock nor another QP's, and
 * an echo cannot be forged from them.
 */
static inline u32 mro_qp_tsval(const struct mro_qp *qp, u32 now_us)
{
	return now_us + qp->req.ts_off;
}

/* mro_recv.c: packet dispatch */
void mro_rcv(struct mro_dev *dev, struct sk_buff *skb, struct mro_hdr *hdr);

#endif /* MRO_QP_H */
