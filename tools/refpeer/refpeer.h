/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * librefpeer: a userspace endpoint of the metaroce wire protocol, version
 * 2 (Documentation/metaroce/protocol.rst), written from the specification.
 * One struct rp_ep is one RC queue pair with its requester and responder
 * sides, bound to a local IPv4 address and talking to one peer QP.
 *
 * The library is single-threaded and event driven: the caller posts work
 * (rp_post_*()), calls rp_poll() to move packets and run timers, and
 * reaps completions with rp_poll_cq().  A test can also script the wire
 * directly: rp_send_hdr() sends a packet built by hand, and the hooks
 * (rp_set_rx_hook(), rp_set_tx_hook()) show every packet that arrives or
 * leaves and may hide it from the engine or from the wire.
 */
#ifndef REFPEER_H
#define REFPEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "mro_wire.h"	/* struct mro_hdr, the decoded header */

#define RP_MAX_PATHS		64
#define RP_MAX_KEY		32

struct rp_ep;

struct rp_cfg {
	struct in_addr local_ip;	/* address to bind (packets leave from it) */
	struct in_addr peer_ip;
	u16 port;			/* local metaroce UDP port (4796) */
	u16 peer_port;			/* the peer's metaroce UDP port */
	u32 qpn;			/* local QPN (24 bits) */
	u32 peer_qpn;
	u32 sq_psn;			/* first PSN this end sends (24 bits) */
	u32 rq_psn;			/* first PSN the peer sends (24 bits) */
	unsigned int paths;		/* path slots (UDP source ports), 1..64 */
	u16 sport_base;			/* first source port (512) */
	u16 sport_span;			/* source ports to draw from (512) */
	bool check_sport;		/* drop datagrams from outside the span */
	u32 mtu;			/* payload bytes per packet */
	u32 window;			/* PSNs in flight, power of 2, 64..16384 */
	/* the contract announced in HELLO; 0 takes the wire header's value */
	u16 ack_every;
	u16 msg_window;
	u16 sack_bits;
	/* packet protection */
	u8 prot;			/* enum metaroce_prot */
	u8 key[RP_MAX_KEY];		/* the device key: 16 or 32 bytes */
	u8 key_len;
	u8 key_id;			/* current device key id (nonzero) */
	u8 prev_key_id;			/* previous key id, 0 if none */
	bool hello;			/* run the HELLO exchange (v2: yes) */
	bool ud;			/* a UD QP instead of RC: one path, no HELLO */
	u32 qkey;			/* UD: this QP's Q_Key */
	/* timers and retries */
	u8 timeout;			/* IB local ACK timeout code (14) */
	/* READ/atomics the responder takes (16); 0: NAK_INVALID (RES-2) */
	u8 max_dest_rd_atomic;
	/* READ/atomic WQEs this end keeps outstanding, 1..16 (16) */
	u8 max_rd_atomic;
	u8 retry_cnt;			/* RTO expirations before giving up (7) */
	u32 rto_min_us;			/* margin over srtt (5000) */
	/* a responder's CREDIT after a sender's silence (2000); 0: none */
	u32 credit_idle_us;
	/* loss and reordering of this end's own outgoing packets */
	double drop;			/* probability 0..1 */
	double reorder;			/* probability 0..1 */
	u64 seed;			/* for nonces, ports, drops (0: random) */
	int verbose;
};

/* fill @cfg with the defaults above */
void rp_cfg_default(struct rp_cfg *cfg);

/* create the endpoint: binds its sockets; NULL with errno on failure */
struct rp_ep *rp_ep_create(const struct rp_cfg *cfg);
/* move the QP to RTS: sends its HELLO and allows data */
int rp_ep_connect(struct rp_ep *ep);
void rp_ep_destroy(struct rp_ep *ep);

/*
 * Process what arrived and what is due: at most @timeout_ms of waiting
 * (0: none, -1: until something happens).  Returns the number of
 * completions ready, or -1 once the connection has ended (rp_error()).
 */
int rp_poll(struct rp_ep *ep, int timeout_ms);
/* the receive socket, for a caller's own poll() beside others */
int rp_ep_fd(struct rp_ep *ep);
/* why the connection ended, or NULL while it is alive */
const char *rp_error(struct rp_ep *ep);
/* true once the HELLO exchange is done (or not needed) */
bool rp_negotiated(struct rp_ep *ep);
/* true when no posted work request is outstanding */
bool rp_idle(struct rp_ep *ep);

/* memory regions: the va of a byte is its address in this process */
#define RP_ACCESS_REMOTE_WRITE	0x1
#define RP_ACCESS_REMOTE_READ	0x2
#define RP_ACCESS_REMOTE_ATOMIC	0x4
#define RP_ACCESS_FLUSH_GLOBAL	0x8	/* FLUSH with type global visibility */
u32 rp_reg_mr(struct rp_ep *ep, void *addr, size_t len, unsigned int access);

enum rp_wc_opcode {
	RP_WC_SEND,
	RP_WC_WRITE,
	RP_WC_READ,
	RP_WC_CMP_SWAP,
	RP_WC_FETCH_ADD,
	RP_WC_RECV,		/* SEND or SEND_IMM received */
	RP_WC_RECV_RDMA_IMM,	/* WRITE_IMM received */
};

enum rp_wc_status {
	RP_WC_SUCCESS,
	RP_WC_RETRY_EXC_ERR,
	RP_WC_RNR_RETRY_EXC_ERR,
	RP_WC_REM_INV_REQ_ERR,
	RP_WC_REM_ACCESS_ERR,
	RP_WC_REM_OP_ERR,
	RP_WC_LOC_LEN_ERR,
	RP_WC_FLUSH_ERR,
	RP_WC_LOC_PROT_ERR,	/* SEND_INV of a key it cannot invalidate */
};

struct rp_wc {
	u64 wr_id;
	enum rp_wc_opcode opcode;
	enum rp_wc_status status;
	u32 byte_len;
	u32 imm;
	bool with_imm;
	u32 src_qp;		/* UD receive: the sender's QPN */
};

/*
 * Requests.  @opcode is a METAROCE_OP_* request opcode; the buffers must
 * stay valid until the completion.  Return 0 or -1 (queue full, bad
 * arguments, connection ended).
 */
int rp_post_send(struct rp_ep *ep, u64 wr_id, const void *buf, u32 len,
		 bool with_imm, u32 imm);
/* the same, its last packet SOLICITED if @solicited (IB_SEND_SOLICITED) */
int rp_post_send_se(struct rp_ep *ep, u64 wr_id, const void *buf, u32 len,
		    bool with_imm, u32 imm, bool solicited);
int rp_post_write(struct rp_ep *ep, u64 wr_id, const void *buf, u32 len,
		  u64 va, u32 rkey, bool with_imm, u32 imm);
int rp_post_read(struct rp_ep *ep, u64 wr_id, void *buf, u32 len, u64 va,
		 u32 rkey);
/* CMP_SWAP or FETCH_ADD; the original value lands in *@result */
int rp_post_atomic(struct rp_ep *ep, u64 wr_id, u8 opcode, u64 *result,
		   u64 va, u32 rkey, u64 swap_add, u64 compare);
/*
 * UD: one datagram of at most the MTU to the peer QP (cfg.peer_qpn) under
 * Q_Key @qkey; completes at once (UD is unreliable).
 */
int rp_post_ud_send(struct rp_ep *ep, u64 wr_id, const void *buf, u32 len,
		    u32 qkey, bool with_imm, u32 imm);
/* receive buffer for SEND, SEND_IMM, WRITE_IMM and UD datagrams */
int rp_post_recv(struct rp_ep *ep, u64 wr_id, void *buf, u32 len);
int rp_poll_cq(struct rp_ep *ep, struct rp_wc *wc, int n);

/*
 * Scripting.  rp_send_hdr() encodes @h (the caller fills opcode, flags,
 * the extension, and psn; dqpn and sqpn default to the connection's when
 * 0), seals it if the connection is protected (not HELLO; a UD
 * endpoint's datagrams with its own datagram key), and sends
 * it from path slot @slot with @payload; path, path_seq and tsval are
 * filled unless @raw_fields.  rp_send_datagram() sends @len bytes exactly
 * as given from slot @slot.
 */
int rp_send_hdr(struct rp_ep *ep, struct mro_hdr *h, const void *payload,
		u32 len, unsigned int slot, bool raw_fields);
int rp_send_datagram(struct rp_ep *ep, const void *buf, size_t len,
		     unsigned int slot);
/*
 * rp_send_hdr()'s packet (fields filled, sealed on a protected
 * connection: it takes a transmission counter value) into @out instead of
 * onto the wire, for a test to alter and send with rp_send_datagram();
 * its length, or -1
 */
int rp_build_hdr(struct rp_ep *ep, struct mro_hdr *h, const void *payload,
		 u32 len, unsigned int slot, u8 *out, size_t room);
/* the same with the IP header's TOS byte set to @tos (ECN: its low 2 bits) */
int rp_send_datagram_tos(struct rp_ep *ep, const void *buf, size_t len,
			 unsigned int slot, int tos);

/*
 * Called for every datagram that arrives, after decoding (and opening, on
 * a protected connection): @h is NULL if it was refused, @why then says
 * why.  Return false to hide it from the engine.
 */
typedef bool (*rp_rx_hook_t)(void *arg, const struct mro_hdr *h,
			     const u8 *payload, u16 sport, const char *why);
/* called for every packet before it leaves; return false to drop it */
typedef bool (*rp_tx_hook_t)(void *arg, const struct mro_hdr *h,
			     unsigned int slot);
void rp_set_rx_hook(struct rp_ep *ep, rp_rx_hook_t fn, void *arg);
/*
 * In the rx hook: the sealed datagram it is called for as it arrived
 * (before opening: tag, counter and, with encrypt, the ciphertext), and
 * its length; NULL for an unsealed one
 */
const u8 *rp_rx_raw(const struct rp_ep *ep, size_t *len);
void rp_set_tx_hook(struct rp_ep *ep, rp_tx_hook_t fn, void *arg);

struct rp_stats {
	u64 tx_pkts, tx_bytes, tx_dropped_sim, tx_reordered_sim;
	u64 rx_pkts, rx_bytes;
	u64 retransmits, rto, tlp_probes, rnr_naks_rcvd;
	u64 acks_sent, acks_rcvd, acks_piggybacked, sack_holes;
	u64 rx_duplicate, rx_out_of_order, rx_drop_window, rx_drop_field;
	u64 rx_drop_wire, rx_drop_qp, rx_drop_sport, rx_drop_ack;
	/* rx_drop_wire by reason, indexed by enum mro_wire_err */
	u64 rx_drop_wire_err[MRO_WIRE_NR_ERR];
	u64 rx_drop_no_qp;		/* dqpn is not this QP's (also in _qp) */
	/* rx_drop_ack by reason */
	u64 rx_drop_ack_range, rx_drop_ack_echo, cc_bad_feedback;
	u64 rx_drop_error_ahead, rx_drop_dup_req, rx_drop_stale_resp;
	u64 rx_key_order_wait;	/* held back by a key fence (ORD-2, ORD-3) */
	u64 rnr_nak_sent, nak_sent;
	u64 negotiation_failed;
	u64 rx_drop_qp_state;		/* the connection has ended */
	u64 reprobes_rcvd;		/* PROBEs with NEW_PORT taken */
	u64 rx_drop_auth, rx_drop_replay, rx_drop_unkeyed;
	u64 rx_drop_qkey, rx_drop_no_wqe;
	u64 hello_sent, hello_rcvd;
	u64 path_tx[RP_MAX_PATHS];
};
const struct rp_stats *rp_stats(struct rp_ep *ep);
/*
 * the IP TOS byte of the datagram being received (in an rx hook), -1 if
 * the socket did not say
 */
int rp_rx_tos(struct rp_ep *ep);
/* the UDP source port of path slot @slot */
u16 rp_path_sport(struct rp_ep *ep, unsigned int slot);

/* crypto helpers, exposed for the self test */
int rp_hkdf_sha256(const u8 *salt, size_t salt_len, const u8 *ikm,
		   size_t ikm_len, const u8 *info, size_t info_len, u8 *okm,
		   size_t okm_len);
struct rp_conn_end {
	u8 gid[16];
	u32 qpn, psn;
	u64 nonce;
};
int rp_kdf_conn_keys(const u8 *dev_key, size_t dev_key_len, u8 key_id,
		     const struct rp_conn_end *a, const struct rp_conn_end *b,
		     u8 *key_a_to_b, u8 *key_b_to_a, size_t key_len);

/*
 * Datagrams (protocol.rst, Packet protection, Datagrams): the sending
 * key of UD QP @qpn with datagram nonce @nonce (56 bits) under device key
 * @dev_key (16 or 32 bytes) of id @key_id, @dev_key_len bytes into @key
 * (PROT-18)
 */
int rp_kdf_dgram_key(const u8 *dev_key, size_t dev_key_len, u8 key_id,
		     u32 qpn, u64 nonce, u8 *key);
/*
 * Seal the datagram of @len bytes in @buf (@hdr_len of them headers,
 * encoded with SEALED and the seal extension) under the datagram key
 * @key with counter @ctr: the tag and counter are written at @buf + @len;
 * the new length, or -1.  rp_dgram_open() the reverse: 0, or -1 when the
 * tag fails.  No key cache or replay window: for tests.
 */
int rp_dgram_seal(const u8 *key, size_t key_len, u8 prot, u8 key_id,
		  u64 ctr, u8 *buf, size_t hdr_len, size_t len);
int rp_dgram_open(const u8 *key, size_t key_len, u8 prot, u8 key_id,
		  u8 *buf, size_t hdr_len, size_t len);
/* a UD endpoint's datagram nonce (0: it sends unsealed, or is not in RTS) */
u64 rp_dgram_nonce(struct rp_ep *ep);

/* map an IPv4 address to the GID (::ffff:a.b.c.d) the kernel uses */
void rp_ipv4_gid(struct in_addr ip, u8 gid[16]);

#endif /* REFPEER_H */
