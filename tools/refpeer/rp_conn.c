// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librefpeer: the endpoint.  Sockets, the transmit path (encode, CRC or
 * seal, simulated loss and reordering), the receive path (decode, the
 * connection checks, opening, dispatch to requester or responder), the
 * event loop, memory regions, the completion queue and the verbs.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "rp_internal.h"

u64 rp_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* xorshift64*: drops, reordering, jitter; not for nonces or keys */
u64 rp_rand(struct rp_ep *ep)
{
	ep->rng ^= ep->rng >> 12;
	ep->rng ^= ep->rng << 25;
	ep->rng ^= ep->rng >> 27;
	return ep->rng * 0x2545f4914f6cdd1dULL;
}

void rp_log(struct rp_ep *ep, int level, const char *fmt, ...)
{
	va_list ap;

	if (ep->cfg.verbose < level)
		return;
	fprintf(stderr, "refpeer qp %u: ", ep->cfg.qpn);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void rp_fail(struct rp_ep *ep, const char *fmt, ...)
{
	va_list ap;

	if (ep->dead)
		return;
	va_start(ap, fmt);
	vsnprintf(ep->err, sizeof(ep->err), fmt, ap);
	va_end(ap);
	ep->dead = true;
	rp_log(ep, 1, "%s", ep->err);
	/* MSG-10: the receive WQEs no message completed are flushed */
	while (ep->rq && ep->rq_head != ep->rq_tail) {
		struct rp_wc wc = {
			.wr_id = ep->rq[ep->rq_head % RP_RQ_SIZE].wr_id,
			.opcode = RP_WC_RECV, .status = RP_WC_FLUSH_ERR,
		};

		ep->rq_head++;
		if (ep->cq_tail - ep->cq_head < RP_CQ_SIZE)
			ep->cq[ep->cq_tail++ % RP_CQ_SIZE] = wc;
	}
}

void rp_cfg_default(struct rp_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->port = METAROCE_DEFAULT_UDP_PORT;
	cfg->peer_port = METAROCE_DEFAULT_UDP_PORT;
	cfg->paths = 1;
	cfg->sport_base = METAROCE_SPORT_BASE;
	cfg->sport_span = METAROCE_SPORT_MASK + 1;
	cfg->check_sport = true;
	cfg->mtu = 1384;
	cfg->window = 512;
	cfg->key_id = 1;
	cfg->hello = true;
	cfg->timeout = 14;
	cfg->retry_cnt = 7;
	cfg->rto_min_us = 5000;
	cfg->credit_idle_us = 2000;
	cfg->max_dest_rd_atomic = RP_MAX_PENDING;
	cfg->max_rd_atomic = 16;
}

void rp_ipv4_gid(struct in_addr ip, u8 gid[16])
{
	memset(gid, 0, 16);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, &ip.s_addr, 4);
}

const struct rp_stats *rp_stats(struct rp_ep *ep)
{
	return &ep->st;
}

int rp_ep_fd(struct rp_ep *ep)
{
	return ep->rx_fd;
}

const char *rp_error(struct rp_ep *ep)
{
	return ep->dead ? ep->err : NULL;
}

void rp_set_rx_hook(struct rp_ep *ep, rp_rx_hook_t fn, void *arg)
{
	ep->rx_hook = fn;
	ep->rx_hook_arg = arg;
}

const u8 *rp_rx_raw(const struct rp_ep *ep, size_t *len)
{
	*len = ep->rxraw_len;
	return ep->rxraw_len ? ep->rxraw : NULL;
}

void rp_set_tx_hook(struct rp_ep *ep, rp_tx_hook_t fn, void *arg)
{
	ep->tx_hook = fn;
	ep->tx_hook_arg = arg;
}

static int cfg_check(const struct rp_cfg *c)
{
	if (c->paths < 1 || c->paths > RP_MAX_PATHS || c->sport_span < c->paths)
		return -1;
	if (c->ud && c->paths != 1)
		return -1;
	if (c->window < METAROCE_WINDOW_MIN || c->window > METAROCE_WINDOW_MAX ||
	    (c->window & (c->window - 1)))
		return -1;
	if (c->mtu < 8 || c->mtu > 65000 || (c->qpn | c->peer_qpn) >> 24 ||
	    (c->sq_psn | c->rq_psn) >> 24)
		return -1;
	if (c->prot > METAROCE_PROT_MAX)
		return -1;
	/* a protected RC QP keys from its HELLOs; a UD QP from its own nonce */
	if (c->prot != METAROCE_PROT_NONE &&
	    ((c->key_len != 16 && c->key_len != 32) || !c->key_id ||
	     (!c->hello && !c->ud)))
		return -1;
	return 0;
}

struct rp_ep *rp_ep_create(const struct rp_cfg *cfg)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct rp_ep *ep;
	int one = 1, buf = 8 << 20;

	if (cfg_check(cfg)) {
		errno = EINVAL;
		return NULL;
	}
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return NULL;
	ep->cfg = *cfg;
	if (!ep->cfg.ack_every)
		ep->cfg.ack_every = METAROCE_ACK_EVERY;
	if (!ep->cfg.msg_window)
		ep->cfg.msg_window = METAROCE_MSG_WINDOW;
	if (!ep->cfg.sack_bits)
		ep->cfg.sack_bits = METAROCE_SACK_BITS;
	ep->rng = cfg->seed;
	if (!ep->rng && getrandom(&ep->rng, sizeof(ep->rng), 0) != sizeof(ep->rng))
		ep->rng = rp_now_us();
	ep->rng |= 1;
	while (!ep->nonce)	/* the HELLO nonce must be unpredictable */
		if (getrandom(&ep->nonce, sizeof(ep->nonce), 0) != sizeof(ep->nonce))
			ep->nonce = rp_rand(ep);
	ep->ts_offset = (u32)rp_rand(ep);
	ep->rx_fd = -1;
	/* the device opens datagrams by its mode (PROT-20) */
	if (cfg->prot != METAROCE_PROT_NONE) {
		ep->dgram = rp_dgram_new(ep);
		if (!ep->dgram)
			goto fail;
	}

	ep->sq = calloc(RP_SQ_SIZE, sizeof(*ep->sq));
	ep->psn = calloc(RP_PSN_RING, sizeof(*ep->psn));
	ep->retx = calloc(RP_PSN_RING, sizeof(*ep->retx));
	ep->rq = calloc(RP_RQ_SIZE, sizeof(*ep->rq));
	ep->cq = calloc(RP_CQ_SIZE, sizeof(*ep->cq));
	ep->rcv_bits = calloc(cfg->window / 64, sizeof(u64));
	if (!ep->sq || !ep->psn || !ep->retx || !ep->rq || !ep->cq ||
	    !ep->rcv_bits)
		goto fail;

	ep->rx_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (ep->rx_fd < 0)
		goto fail;
	setsockopt(ep->rx_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/*
	 * Past net.core.rmem_max when privileged (the source ports need
	 * root anyway): at its default of 208 KiB a window of READ
	 * responses overflows the socket, and each loss costs a
	 * retransmission.
	 */
	if (setsockopt(ep->rx_fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(ep->rx_fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(ep->rx_fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	sa.sin_addr = cfg->local_ip;
	sa.sin_port = htons(cfg->port);
	if (bind(ep->rx_fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	if (rp_paths_open(ep))
		goto fail;

	ep->snd_una = cfg->sq_psn;
	ep->snd_nxt = cfg->sq_psn;
	ep->high_delivered = cfg->sq_psn;
	rp_resp_init(ep);
	return ep;
fail:
	rp_ep_destroy(ep);
	return NULL;
}

void rp_ep_destroy(struct rp_ep *ep)
{
	unsigned int i;
	int e = errno;

	if (!ep)
		return;
	rp_paths_close(ep);
	if (ep->rx_fd >= 0)
		close(ep->rx_fd);
	for (i = 0; i < ep->nheld; i++)
		free(ep->held[i].buf);
	rp_crypto_free(ep->crypto);
	rp_dgram_free(ep->dgram);
	free(ep->sq);
	free(ep->psn);
	free(ep->retx);
	free(ep->rq);
	free(ep->cq);
	free(ep->rcv_bits);
	free(ep);
	errno = e;
}

int rp_ep_connect(struct rp_ep *ep)
{
	/* a UD QP entering RTS with protection on: its sending key (PROT-18) */
	if (ep->cfg.ud && ep->dgram && rp_dgram_tx_start(ep->dgram, ep->cfg.qpn)) {
		rp_fail(ep, "QP %u: no datagram key", ep->cfg.qpn);
		return -1;
	}
	ep->connected = true;
	if (ep->cfg.hello && !ep->cfg.ud)
		rp_hello_start(ep);
	return ep->dead ? -1 : 0;
}

bool rp_negotiated(struct rp_ep *ep)
{
	if (!ep->cfg.hello || ep->cfg.ud)
		return true;
	if (ep->cfg.prot != METAROCE_PROT_NONE)
		return ep->crypto != NULL;
	return ep->hello_rcvd;
}

bool rp_idle(struct rp_ep *ep)
{
	return ep->sq_head == ep->sq_tail;
}

int rp_rx_tos(struct rp_ep *ep)
{
	return ep->rx_tos;
}

u16 rp_path_sport(struct rp_ep *ep, unsigned int slot)
{
	return slot < ep->npaths ? ep->path[slot].sport : 0;
}

/* ---- memory regions and completions ---- */

u32 rp_reg_mr(struct rp_ep *ep, void *addr, size_t len, unsigned int access)
{
	struct rp_mr *mr;

	if (ep->nmr >= RP_MAX_MR)
		return 0;
	mr = &ep->mr[ep->nmr++];
	mr->addr = addr;
	mr->len = len;
	mr->access = access;
	/* a random key with a nonzero low byte, as a verbs key would be */
	mr->rkey = ((u32)rp_rand(ep) & ~0xffU) | ep->nmr;
	return mr->rkey;
}

struct rp_mr *rp_mr_check(struct rp_ep *ep, u32 rkey, u64 va, u64 len,
			  unsigned int access)
{
	unsigned int i;

	for (i = 0; i < ep->nmr; i++) {
		struct rp_mr *mr = &ep->mr[i];
		u64 base = (uintptr_t)mr->addr;

		if (mr->rkey != rkey)
			continue;
		if ((mr->access & access) != access)
			return NULL;
		if (va < base || va + len < va || va + len > base + mr->len)
			return NULL;
		return mr;
	}
	return NULL;
}

void rp_cq_push(struct rp_ep *ep, const struct rp_wc *wc)
{
	if (ep->cq_tail - ep->cq_head >= RP_CQ_SIZE) {
		rp_fail(ep, "QP %u: completion queue overflow", ep->cfg.qpn);
		return;
	}
	ep->cq[ep->cq_tail++ % RP_CQ_SIZE] = *wc;
}

int rp_poll_cq(struct rp_ep *ep, struct rp_wc *wc, int n)
{
	int i = 0;

	while (i < n && ep->cq_head != ep->cq_tail)
		wc[i++] = ep->cq[ep->cq_head++ % RP_CQ_SIZE];
	return i;
}

/* ---- verbs ---- */

static struct rp_wqe *sq_new(struct rp_ep *ep, u64 wr_id, u8 opcode)
{
	struct rp_wqe *w;

	if (ep->dead || ep->sq_tail - ep->sq_head >= RP_SQ_SIZE)
		return NULL;
	w = &ep->sq[ep->sq_tail % RP_SQ_SIZE];
	memset(w, 0, sizeof(*w));
	w->wr_id = wr_id;
	w->opcode = opcode;
	return w;
}

static int sq_commit(struct rp_ep *ep)
{
	ep->sq_tail++;
	return 0;
}

int rp_post_send(struct rp_ep *ep, u64 wr_id, const void *buf, u32 len,
		 bool with_imm, u32 imm)
{
	return rp_post_send_se(ep, wr_id, buf, len, with_imm, imm, false);
}

int rp_post_send_se(struct rp_ep *ep, u64 wr_id, const void *buf, u32 len,
		    bool with_imm, u32 imm, bool solicited)
{
	struct rp_wqe *w = sq_new(ep, wr_id, with_imm ? METAROCE_OP_SEND_IMM :
						       METAROCE_OP_SEND);

	if (!w || len > 0x80000000U)
		return -1;
	w->buf = (u8 *)buf;
	w->len = len;
	w->imm = with_imm ? imm : 0;
	w->with_imm = with_imm;
	w->solicited = solicited;
	return sq_commit(ep);
}

int rp_post_write(struct rp_ep *ep, u64 wr_id, const void *buf, u32 len,
		  u64 va, u32 rkey, bool with_imm, u32 imm)
{
	struct rp_wqe *w = sq_new(ep, wr_id, with_imm ? METAROCE_OP_WRITE_IMM :
						       METAROCE_OP_WRITE);

	if (!w || len > 0x80000000U)
		return -1;
	w->buf = (u8 *)buf;
	w->len = len;
	w->va = va;
	w->rkey = rkey;
	w->imm = with_imm ? imm : 0;
	w->with_imm = with_imm;
	return sq_commit(ep);
}

int rp_post_read(struct rp_ep *ep, u64 wr_id, void *buf, u32 len, u64 va,
		 u32 rkey)
{
	struct rp_wqe *w = sq_new(ep, wr_id, METAROCE_OP_READ_REQ);

	if (!w || len > 0x80000000U)
		return -1;
	w->buf = buf;
	w->len = len;
	w->va = va;
	w->rkey = rkey;
	return sq_commit(ep);
}

int rp_post_atomic(struct rp_ep *ep, u64 wr_id, u8 opcode, u64 *result,
		   u64 va, u32 rkey, u64 swap_add, u64 compare)
{
	struct rp_wqe *w;

	if (opcode != METAROCE_OP_CMP_SWAP && opcode != METAROCE_OP_FETCH_ADD)
		return -1;
	w = sq_new(ep, wr_id, opcode);
	if (!w || (va & 7))
		return -1;
	w->result = result;
	w->va = va;
	w->rkey = rkey;
	w->swap_add = swap_add;
	w->compare = opcode == METAROCE_OP_CMP_SWAP ? compare : 0;
	w->len = 8;
	return sq_commit(ep);
}

int rp_post_recv(struct rp_ep *ep, u64 wr_id, void *buf, u32 len)
{
	struct rp_rwqe *r;

	if (ep->rq_tail - ep->rq_head >= RP_RQ_SIZE)
		return -1;
	r = &ep->rq[ep->rq_tail++ % RP_RQ_SIZE];
	r->wr_id = wr_id;
	r->buf = buf;
	r->len = len;
	return 0;
}

/* ---- transmit ---- */

static void send_now(struct rp_ep *ep, const u8 *buf, size_t len,
		     unsigned int slot, int tos)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {
		.msg_name = &to, .msg_namelen = sizeof(to),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	to.sin_addr = ep->cfg.peer_ip;
	to.sin_port = htons(ep->cfg.peer_port);
	cm->cmsg_level = IPPROTO_IP;
	cm->cmsg_type = IP_TOS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &tos, sizeof(tos));
	while (sendmsg(ep->path[slot].fd, &msg, 0) < 0) {
		if (errno == EINTR)
			continue;
		if (errno == ENOBUFS || errno == EAGAIN) {
			/* a full local queue is a loss, as on a wire */
			break;
		}
		rp_log(ep, 1, "sendmsg: %s", strerror(errno));
		break;
	}
	ep->st.tx_pkts++;
	ep->st.tx_bytes += len;
	ep->st.path_tx[slot]++;
}

static void held_release(struct rp_ep *ep, u64 now, bool all)
{
	unsigned int i = 0;

	while (i < ep->nheld) {
		struct rp_held *hp = &ep->held[i];

		if (!all && hp->due_us > now) {
			i++;
			continue;
		}
		send_now(ep, hp->buf, hp->len, hp->slot, hp->tos);
		free(hp->buf);
		ep->held[i] = ep->held[--ep->nheld];
	}
}

static void send_sim(struct rp_ep *ep, const u8 *buf, size_t len,
		     unsigned int slot, int tos)
{
	struct rp_held *hp;
	double r;

	if (ep->cfg.drop > 0 || ep->cfg.reorder > 0) {
		r = (double)(rp_rand(ep) >> 11) / (double)(1ULL << 53);
		if (r < ep->cfg.drop) {
			ep->st.tx_dropped_sim++;
			return;
		}
		r = (double)(rp_rand(ep) >> 11) / (double)(1ULL << 53);
		if (r < ep->cfg.reorder && ep->nheld < 8) {
			hp = &ep->held[ep->nheld];
			hp->buf = malloc(len);
			if (hp->buf) {
				memcpy(hp->buf, buf, len);
				hp->len = len;
				hp->slot = slot;
				hp->tos = tos;
				/* overtaken by what follows in the next 0.1-1 ms */
				hp->due_us = rp_now_us() + 100 + rp_rand(ep) % 900;
				ep->nheld++;
				ep->st.tx_reordered_sim++;
				return;
			}
		}
	}
	send_now(ep, buf, len, slot, tos);
}

/* encode (and seal) @h and @payload in ep->txbuf: its length, or -1 */
static int build(struct rp_ep *ep, struct mro_hdr *h, const void *payload,
		 u32 len, unsigned int *slotp, bool fill)
{
	unsigned int slot = *slotp;
	bool ud = h->opcode == METAROCE_OP_UD_SEND ||
		  h->opcode == METAROCE_OP_UD_SEND_IMM;
	bool hello = h->opcode == METAROCE_OP_HELLO;
	size_t n, total;
	u8 *buf = ep->txbuf;
	int r;

	if (slot >= ep->npaths)
		slot = 0;
	if (fill) {
		if (!h->dqpn)
			h->dqpn = ep->cfg.peer_qpn;
		if (!h->sqpn)
			h->sqpn = ep->cfg.qpn;
		if (hello) {
			h->path = 0;
			h->path_seq = 0;
			slot = 0;
		} else {
			h->path = slot;
			h->path_seq = h->opcode == METAROCE_OP_ACK ? 0 :
				      ep->path[slot].seq++;
			h->flags |= METAROCE_F_ECT;
		}
		h->tsval = (u32)rp_now_us() + ep->ts_offset;
		if (ep->crypto && !hello && !ud)
			h->flags |= METAROCE_F_SEALED;
		/* a UD QP that entered RTS protected seals every datagram */
		if (ud && ep->cfg.ud &&
		    rp_dgram_tx_fields(ep->dgram, &h->deth.key_id,
				       &h->deth.sender_nonce))
			h->flags |= METAROCE_F_SEALED;
	}
	n = mro_wire_encode(h, buf, sizeof(ep->txbuf) - METAROCE_SEAL_LEN);
	if (!n || n + len + METAROCE_SEAL_LEN > sizeof(ep->txbuf))
		return -1;
	if (len)
		memcpy(buf + n, payload, len);
	if ((h->flags & METAROCE_F_SEALED) && ud) {
		if (!ep->dgram)
			return -1;
		r = rp_dgram_tx_seal(ep->dgram, buf, n, n + len);
		if (r < 0)
			return -1;
		total = r;
	} else if (h->flags & METAROCE_F_SEALED) {
		if (!ep->crypto)
			return -1;
		r = rp_crypto_seal(ep->crypto, buf, n, n + len);
		if (r < 0) {
			rp_fail(ep, "QP %u: transmission counter exhausted",
				ep->cfg.qpn);
			return -1;
		}
		total = r;
	} else {
		mro_wire_seal(buf, n + len);
		total = n + len + METAROCE_CRC_LEN;
	}
	*slotp = slot;
	return total;
}

static int xmit(struct rp_ep *ep, struct mro_hdr *h, const void *payload,
		u32 len, unsigned int slot, bool fill)
{
	int total = build(ep, h, payload, len, &slot, fill);

	if (total < 0)
		return -1;
	if (ep->tx_hook && !ep->tx_hook(ep->tx_hook_arg, h, slot))
		return 0;
	send_sim(ep, ep->txbuf, total, slot,
		 h->flags & METAROCE_F_ECT ? 0x02 : 0);
	return 0;
}

int rp_build_hdr(struct rp_ep *ep, struct mro_hdr *h, const void *payload,
		 u32 len, unsigned int slot, u8 *out, size_t room)
{
	int total = build(ep, h, payload, len, &slot, true);

	if (total < 0 || (size_t)total > room)
		return -1;
	memcpy(out, ep->txbuf, total);
	return total;
}

int rp_xmit(struct rp_ep *ep, struct mro_hdr *h, const void *payload,
	    u32 len, unsigned int slot)
{
	return xmit(ep, h, payload, len, slot, true);
}

int rp_send_hdr(struct rp_ep *ep, struct mro_hdr *h, const void *payload,
		u32 len, unsigned int slot, bool raw_fields)
{
	return xmit(ep, h, payload, len, slot, !raw_fields);
}

int rp_send_datagram(struct rp_ep *ep, const void *buf, size_t len,
		     unsigned int slot)
{
	return rp_send_datagram_tos(ep, buf, len, slot, 0);
}

int rp_send_datagram_tos(struct rp_ep *ep, const void *buf, size_t len,
			 unsigned int slot, int tos)
{
	if (slot >= ep->npaths)
		return -1;
	send_now(ep, buf, len, slot, tos);
	return 0;
}

/* ---- receive ---- */

/* a UD datagram: Q_Key check, the next receive WQE, a completion */
static void ud_rx(struct rp_ep *ep, const struct mro_hdr *h, const u8 *payload)
{
	struct rp_wc wc = { 0 };
	struct rp_rwqe *r;

	if (h->deth.qkey != ep->cfg.qkey) {
		ep->st.rx_drop_qkey++;
		return;
	}
	if (ep->rq_head == ep->rq_tail) {
		ep->st.rx_drop_no_wqe++;
		return;
	}
	r = &ep->rq[ep->rq_head++ % RP_RQ_SIZE];
	wc.wr_id = r->wr_id;
	wc.opcode = RP_WC_RECV;
	wc.byte_len = h->payload_len;
	wc.src_qp = h->sqpn;
	wc.with_imm = h->opcode == METAROCE_OP_UD_SEND_IMM;
	wc.imm = h->deth.imm;
	if (h->payload_len > r->len)
		wc.status = RP_WC_LOC_LEN_ERR;
	else
		memcpy(r->buf, payload, h->payload_len);
	rp_cq_push(ep, &wc);
}


static bool rx_refuse(struct rp_ep *ep, u64 *ctr, u16 sport, const char *why)
{
	(*ctr)++;
	rp_log(ep, 3, "rx drop from port %u: %s", sport, why);
	if (ep->rx_hook)
		ep->rx_hook(ep->rx_hook_arg, NULL, NULL, sport, why);
	return false;
}

#define RP_GSI_QPN	1	/* QP 1: its datagrams are never sealed */

/*
 * Packet protection, Datagrams (PROT-20): the device opens a datagram by
 * its own mode before any QP sees it.  True when it may go on (opened in
 * place, or unsealed where that is right).
 */
static bool dgram_open(struct rp_ep *ep, const struct mro_hdr *h, u8 *buf,
		       size_t len, u16 sport)
{
	bool prot = ep->cfg.prot != METAROCE_PROT_NONE;
	bool sealed = h->flags & METAROCE_F_SEALED;
	int r;

	if (sealed && h->dqpn == RP_GSI_QPN)
		return rx_refuse(ep, &ep->st.rx_drop_auth, sport,
				 "sealed datagram to QP 1");
	if (sealed && !prot)
		return rx_refuse(ep, &ep->st.rx_drop_auth, sport,
				 "sealed datagram, protection none");
	if (!sealed && prot && h->dqpn != RP_GSI_QPN)
		return rx_refuse(ep, &ep->st.rx_drop_auth, sport,
				 "unsealed datagram, protection on");
	if (!sealed)
		return true;
	r = rp_dgram_rx_open(ep->dgram, h->deth.key_id, h->sqpn,
			     h->deth.sender_nonce, buf, h->hdr_len, len);
	if (r == -3)
		return rx_refuse(ep, &ep->st.rx_drop_auth, sport,
				 "datagram key id not held");
	if (r == -2)
		return rx_refuse(ep, &ep->st.rx_drop_replay, sport,
				 "datagram replay");
	if (r == -4)
		return rx_refuse(ep, &ep->st.rx_drop_unkeyed, sport,
				 "no room for a new sender's key");
	if (r) {
		if (!ep->dgram_auth_logged++)
			fprintf(stderr, "refpeer: QP %u: a datagram from QP %u (datagram nonce %#llx) fails authentication under key id %u: the sender has another key of that id or mode, or the datagram is forged\n",
				ep->cfg.qpn, h->sqpn,
				(unsigned long long)h->deth.sender_nonce,
				h->deth.key_id);
		return rx_refuse(ep, &ep->st.rx_drop_auth, sport,
				 "datagram tag");
	}
	return true;
}

u64 rp_dgram_nonce(struct rp_ep *ep)
{
	u8 key_id;
	u64 nonce = 0;

	if (!ep->cfg.ud || !rp_dgram_tx_fields(ep->dgram, &key_id, &nonce))
		return 0;
	return nonce;
}

static void rx_one(struct rp_ep *ep, u8 *buf, size_t len,
		   const struct sockaddr_in *from, bool ce)
{
	u16 sport = ntohs(from->sin_port);
	enum mro_wire_err err;
	struct mro_hdr h;
	bool sealed;
	u16 hlen;
	int r;

	ep->st.rx_pkts++;
	ep->st.rx_bytes += len;
	if (from->sin_addr.s_addr != ep->cfg.peer_ip.s_addr) {
		rx_refuse(ep, &ep->st.rx_drop_qp, sport, "source address");
		return;
	}
	if (ep->cfg.check_sport &&
	    (sport < ep->cfg.sport_base ||
	     sport >= ep->cfg.sport_base + ep->cfg.sport_span)) {
		rx_refuse(ep, &ep->st.rx_drop_sport, sport, "source port");
		return;
	}
	err = mro_wire_peek(buf, len, &hlen);
	if (err != MRO_WIRE_OK) {
		if (err < MRO_WIRE_NR_ERR)
			ep->st.rx_drop_wire_err[err]++;
		rx_refuse(ep, &ep->st.rx_drop_wire, sport, "decode (peek)");
		return;
	}
	sealed = buf[2] & (METAROCE_F_SEALED >> 8);
	ep->rxraw_len = 0;
	if (sealed && ep->rx_hook && len <= sizeof(ep->rxraw)) {
		memcpy(ep->rxraw, buf, len);
		ep->rxraw_len = len;
	}
	memset(&h, 0, sizeof(h));
	err = sealed ? mro_wire_parse(buf, len, &h) :
		       mro_wire_decode(buf, len, &h);
	if (err != MRO_WIRE_OK) {
		if (err < MRO_WIRE_NR_ERR)
			ep->st.rx_drop_wire_err[err]++;
		rx_refuse(ep, &ep->st.rx_drop_wire, sport,
			  err == MRO_WIRE_CRC ? "crc" : "decode");
		return;
	}
	h.ce = ce;
	if ((h.opcode == METAROCE_OP_UD_SEND ||
	     h.opcode == METAROCE_OP_UD_SEND_IMM) &&
	    !dgram_open(ep, &h, buf, len, sport))
		return;
	if (h.dqpn != ep->cfg.qpn)
		ep->st.rx_drop_no_qp++;
	if (h.dqpn != ep->cfg.qpn ||
	    (!ep->cfg.ud && h.sqpn != ep->cfg.peer_qpn)) {
		rx_refuse(ep, &ep->st.rx_drop_qp, sport, "qpn");
		return;
	}
	if ((h.opcode == METAROCE_OP_UD_SEND ||
	     h.opcode == METAROCE_OP_UD_SEND_IMM) != ep->cfg.ud) {
		rx_refuse(ep, &ep->st.rx_drop_qp, sport,
			  ep->cfg.ud ? "connected opcode on a UD QP" :
				       "UD opcode on an RC QP");
		return;
	}
	if (ep->cfg.ud) {
		if (ep->rx_hook && !ep->rx_hook(ep->rx_hook_arg, &h,
						buf + h.hdr_len, sport, NULL))
			return;
		ud_rx(ep, &h, buf + h.hdr_len);
		return;
	}
	if (ep->dead) {
		rx_refuse(ep, &ep->st.rx_drop_qp_state, sport, "QP in error");
		return;
	}
	if (h.opcode == METAROCE_OP_HELLO) {
		if (ep->rx_hook &&
		    !ep->rx_hook(ep->rx_hook_arg, &h, NULL, sport, NULL))
			return;
		rp_hello_rx(ep, &h);
		return;
	}
	/* Packet protection, Opening */
	if (!!sealed != (ep->cfg.prot != METAROCE_PROT_NONE)) {
		rx_refuse(ep, &ep->st.rx_drop_auth, sport, "SEALED mismatch");
		return;
	}
	if (sealed) {
		if (!ep->crypto) {
			rx_refuse(ep, &ep->st.rx_drop_unkeyed, sport, "unkeyed");
			return;
		}
		r = rp_crypto_open(ep->crypto, buf, h.hdr_len, len);
		if (r == -2) {
			rx_refuse(ep, &ep->st.rx_drop_replay, sport, "replay");
			return;
		}
		if (r) {
			if (!ep->st.rx_drop_auth)
				fprintf(stderr, "refpeer: QP %u: a packet from peer QP %u fails authentication under key id %u: the peer has another key of that id, or the packet is forged\n",
					ep->cfg.qpn, ep->cfg.peer_qpn,
					ep->chosen_key_id);
			rx_refuse(ep, &ep->st.rx_drop_auth, sport, "tag");
			return;
		}
	}
	if (ep->rx_hook && !ep->rx_hook(ep->rx_hook_arg, &h, buf + h.hdr_len,
					sport, NULL))
		return;
	if (!ep->connected)
		return;
	if (mro_wire_is_request(h.opcode) || h.opcode == METAROCE_OP_PROBE)
		rp_resp_rx(ep, &h, buf + h.hdr_len, ce);
	else
		rp_req_rx(ep, &h, buf + h.hdr_len);
}

int rp_post_ud_send(struct rp_ep *ep, u64 wr_id, const void *buf, u32 len,
		    u32 qkey, bool with_imm, u32 imm)
{
	struct rp_wc wc = { .wr_id = wr_id, .opcode = RP_WC_SEND,
			    .byte_len = len };
	struct mro_hdr h;

	if (!ep->cfg.ud || ep->dead || len > ep->cfg.mtu)
		return -1;
	memset(&h, 0, sizeof(h));
	h.opcode = with_imm ? METAROCE_OP_UD_SEND_IMM : METAROCE_OP_UD_SEND;
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	h.psn = ep->snd_nxt++;		/* a counter the receiver ignores */
	h.deth.qkey = qkey;
	h.deth.imm = with_imm ? imm : 0;
	if (rp_xmit(ep, &h, buf, len, 0))
		return -1;
	rp_cq_push(ep, &wc);
	return 0;
}

static int rx_drain(struct rp_ep *ep, int budget)
{
	struct sockaddr_in from;
	char cbuf[CMSG_SPACE(sizeof(int)) * 2];
	struct iovec iov = { .iov_base = ep->rxbuf,
			     .iov_len = sizeof(ep->rxbuf) };
	struct msghdr msg;
	struct cmsghdr *cm;
	int n = 0, tos;
	ssize_t len;
	bool ce;

	while (n < budget) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_name = &from;
		msg.msg_namelen = sizeof(from);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		len = recvmsg(ep->rx_fd, &msg, MSG_DONTWAIT);
		if (len < 0)
			break;
		ce = false;
		ep->rx_tos = -1;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			if (cm->cmsg_level == IPPROTO_IP &&
			    cm->cmsg_type == IP_TOS) {
				tos = *(u8 *)CMSG_DATA(cm);
				ce = (tos & 3) == 3;
				ep->rx_tos = tos;
			}
		}
		rx_one(ep, ep->rxbuf, len, &from, ce);
		n++;
		if (ep->dead)
			break;
	}
	return n;
}

static u64 next_deadline(struct rp_ep *ep)
{
	u64 d = UINT64_MAX;
	unsigned int i;

	if (ep->rto_due)
		d = ep->rto_due;
	if (ep->hello_due_us && ep->hello_due_us < d)
		d = ep->hello_due_us;
	if (ep->rnr_until && ep->rnr_until < d)
		d = ep->rnr_until;
	if (ep->credit_due_us && ep->credit_due_us < d)
		d = ep->credit_due_us;
	for (i = 0; i < ep->nheld; i++)
		if (ep->held[i].due_us < d)
			d = ep->held[i].due_us;
	return d;
}

static void run_due(struct rp_ep *ep)
{
	u64 now = rp_now_us();

	held_release(ep, now, false);
	rp_hello_timer(ep, now);
	if (ep->connected && !ep->cfg.ud)
		rp_req_timer(ep, now);
	if (ep->connected && !ep->cfg.ud && !ep->dead)
		rp_resp_timer(ep, now);
}

int rp_poll(struct rp_ep *ep, int timeout_ms)
{
	struct pollfd pfd = { .fd = ep->rx_fd, .events = POLLIN };
	u64 now, dl, end;
	int wait_ms;

	end = timeout_ms < 0 ? UINT64_MAX : rp_now_us() + timeout_ms * 1000ULL;
	for (;;) {
		if (ep->dead) {
			/* what still arrives is refused and counted */
			rx_drain(ep, 64);
			return -1;
		}
		run_due(ep);
		while (rx_drain(ep, 64) > 0 && !ep->dead) {
			if (ep->connected)
				rp_req_push(ep);
			if (ep->cq_head != ep->cq_tail)
				break;	/* let the caller reap and repost */
		}
		if (ep->connected && !ep->dead)
			rp_req_push(ep);
		if (ep->dead)
			return -1;
		if (ep->cq_head != ep->cq_tail)
			return ep->cq_tail - ep->cq_head;
		now = rp_now_us();
		if (now >= end)
			return 0;
		dl = next_deadline(ep);
		if (dl > end)
			dl = end;
		wait_ms = dl <= now ? 0 : (int)((dl - now + 999) / 1000);
		if (wait_ms > 1000)
			wait_ms = 1000;
		poll(&pfd, 1, wait_ms);
	}
}
