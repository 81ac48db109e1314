/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * conform: the metaroce conformance suite's case runner.  A case sets up
 * a connection between this process's librefpeer endpoint (the tester)
 * and the target (a QP the agent creates), sends crafted packets, expects
 * packets back (or none) within given times and checks the target's
 * counters and completions through the agent.
 */
#ifndef CONFORM_H
#define CONFORM_H

#include <netinet/in.h>

#include "refpeer.h"
#include "agent.h"

#define CX_MAX_PKTS	8192
#define CX_PAYLOAD	2048	/* payload bytes kept of a captured packet */
#define CX_MAX_CTRS	128

/* a packet the target sent, as the tester decoded it */
struct pkt {
	struct mro_hdr h;
	u8 payload[CX_PAYLOAD];
	u16 sport;
	int tos;		/* its IP TOS byte, -1 if unknown */
	u64 t_us;		/* arrival, on the runner's clock */
	bool used;		/* consumed by a cx_wait() */
	/* sealed: the transmission counter of its trailer, and whether
	 * its payload on the wire was the plaintext (not encrypted) */
	bool sealed;
	u64 seal_ctr;
	bool clear_payload;
};

struct conf {
	struct agent_conn ag;
	struct in_addr local_ip;
	u16 port;		/* metaroce UDP port of both ends */
	u8 prot;		/* the tester's protection mode */
	u8 key[RP_MAX_KEY];
	u8 key_len;
	u8 key_id;
	char impl[64];
	int verbose;
};

struct ctr {
	char name[40];
	u64 val;
};

/* a completion the target reported */
struct twc {
	u64 wr;
	char status[24];
	char opcode[24];
	u32 len;
	u32 imm;
};

struct cx_opts {
	u32 psn;		/* tester's first PSN; 0: random */
	u32 window;		/* tester's window (512) */
	unsigned int paths;	/* tester's path slots (4) */
	const char *create;	/* extra CREATE fields for the target */
	bool no_wait;		/* do not wait for the negotiation */
	u16 ack_every;		/* tester's contract; 0: the default */
	bool ud;		/* UD QPs at both ends */
};

struct cx {
	struct conf *g;
	struct rp_ep *ep;
	struct rp_cfg cfg;
	u32 tqpn;		/* the target's QPN */
	u32 tpsn;		/* the target's first PSN */
	struct in_addr tip;
	u64 va;			/* the target's region */
	u32 rkey;
	u32 rlen;
	bool flush;		/* the region grants FLUSH (global) */
	/* UD: bytes before the payload in a receive buffer (40: GRH, or 0) */
	u32 grh;
	u32 tqkey;		/* UD: the target's Q_Key */
	u32 tmtu;		/* UD: its largest datagram (0: not reported) */
	u32 psn;		/* next request PSN the tester uses */
	u32 msn;		/* next msn the tester uses */
	u32 seq;		/* path_seq for cx_build() */
	unsigned int slot;	/* path slot the tester sends from */
	bool pass;		/* show non-HELLO packets to the engine too */
	bool block_hello;	/* keep the tester's HELLOs off the wire */
	unsigned int hellos_out;	/* HELLOs the tester sent */
	struct pkt *q;
	unsigned int nq;
	unsigned int refused;	/* datagrams the tester's decode refused */
	struct mro_hdr my_hello;	/* the tester's latest HELLO */
	/* the latest sealed datagram as it arrived, opened or refused */
	u8 raw[4096];
	size_t raw_len;
	char raw_why[64];	/* why the tester refused it ("": opened) */
	struct ctr ctr0[CX_MAX_CTRS];
	unsigned int nctr0;
	int fails;
	const char *skip;	/* why the case could not run here */
	char reply[AGENT_LINE];
};

typedef void (*case_fn)(struct cx *cx);

#define CF_MANUAL	0x1	/* the case sets up its connection itself */
/* a protected run's case (--prot); the others run unprotected */
#define CF_PROT		0x2

struct ccase {
	const char *rules;	/* "RX-9 HDR-2": the rules it checks */
	const char *name;
	case_fn fn;
	unsigned int flags;
};

extern const struct ccase cases_rx[], cases_resp[], cases_req[], cases_neg[],
	cases_ud[], cases_timer[], cases_loss[],
	cases_path[], cases_uc[];

/* failing an assertion: the case goes on, and is reported not ok */
void cx_fail(struct cx *cx, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cx_note(struct cx *cx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define CHECK(cx, cond, ...) \
	do { if (!(cond)) cx_fail(cx, __LINE__, __VA_ARGS__); } while (0)

/* connection setup (done for every case but CF_MANUAL) and teardown */
int cx_setup(struct cx *cx, const struct cx_opts *o);
void cx_teardown(struct cx *cx);

/* one agent request; 0 when the answer is OK (in cx->reply) */
int cx_agent(struct cx *cx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* the target's completions, waiting at most @ms for the first */
int cx_wc(struct cx *cx, int ms, struct twc *wc, int max);
/* the same in polls of 100 ms until @ms passed (0: none came) */
int cx_wc_wait(struct cx *cx, int ms, struct twc *wc, int max);
/* the target's QP state ("RTS", "ERR", ...) into @out */
void cx_state(struct cx *cx, char *out, size_t room);
/* @len bytes of the target's region at @off */
int cx_mem(struct cx *cx, u32 off, u32 len, u8 *out);
int cx_setmem(struct cx *cx, u32 off, const u8 *p, u32 len);

/* counters: snapshot, and growth since it (-1: not reported) */
void cx_snap(struct cx *cx);
long long cx_delta(struct cx *cx, const char *name);
/* assert that counter @name grew by exactly @want (unless not reported) */
void cx_expect_delta(struct cx *cx, int line, const char *name, long long want);
#define CHECK_DELTA(cx, name, want) cx_expect_delta(cx, __LINE__, name, want)

/* packets */
void cx_req(struct cx *cx, struct mro_hdr *h, u8 opcode, u32 psn);
int cx_send(struct cx *cx, struct mro_hdr *h, const void *payload, u32 len);
size_t cx_build(struct cx *cx, struct mro_hdr *h, const void *payload,
		u32 len, u8 *buf);
void cx_raw(struct cx *cx, const u8 *buf, size_t len);
/*
 * A sealed datagram built by hand (Packet protection, Datagrams): @h (a
 * UD_SEND or UD_SEND_IMM; dqpn and sqpn default as in cx_build()) with the
 * seal extension (@key_id, @nonce), sealed in mode @prot with counter @ctr
 * under the datagram key derived from @dev_key (@key_len bytes) for the
 * key id, h->sqpn and the nonce; its length in @buf, or 0
 */
size_t cx_dgram(struct cx *cx, struct mro_hdr *h, const void *payload,
		u32 len, u8 prot, const u8 *dev_key, u8 key_len, u8 key_id,
		u64 nonce, u64 ctr, u8 *buf);
/* a random nonzero 56-bit datagram nonce */
u64 cx_rand_nonce(void);
void cx_recrc(u8 *buf, size_t len);
/* wait at most @ms for a packet of @opcode (0: any but HELLO) */
struct pkt *cx_wait(struct cx *cx, u8 opcode, int ms);
/* poll for @ms; the number of new packets of @opcode (0: any but HELLO) */
unsigned int cx_quiet(struct cx *cx, u8 opcode, int ms);
/* pump the tester's socket for @ms */
void cx_pump(struct cx *cx, int ms);
/* PROBE at the tester's next PSN and its answer (NULL: none in 1 s) */
struct pkt *cx_probe(struct cx *cx);
/* a one-packet SEND at @psn with ACK_REQ and its ACK (NULL: none) */
struct pkt *cx_send_one(struct cx *cx, u32 psn, u32 len, bool ack_req);
/* answer a target request @p with an ACK of @syndrome (cum_psn @cum) */
void cx_ack(struct cx *cx, const struct pkt *p, u8 syndrome, u32 cum,
	    u32 nak_psn, u8 nak_code);
/* an ACK echoing @p: cum_psn @cum, grant @credit, SACK words @sack[2] */
void cx_ack_sack(struct cx *cx, const struct pkt *p, u32 cum, u32 credit,
		 const u64 *sack);
/* the target is the reference peer (INFO impl=refpeer) */
bool cx_is_refpeer(const struct cx *cx);
u64 cx_now_us(void);

#endif /* CONFORM_H */
