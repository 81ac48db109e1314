// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of mro_hello.c, the negotiation of wire protocol v2: the
 * contract comparison, the exchange of two ends until both have seen the
 * other's nonce (whichever HELLOs are lost or arrive first), the HELLOs a
 * connection must refuse without changing anything, and the end of a
 * connection whose ends disagree.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "mro_hello.h"
#include "mro_wire.h"

#define A_PSN	0x123456
#define B_PSN	0xabcdef
#define A_NONCE	0x1111222233334444ULL
#define B_NONCE	0x5555666677778888ULL

/* a and b, the two ends of one connection, with equal contracts */
static void two_ends(struct mro_hello *a, struct mro_hello *b, u32 win_a,
		     u32 win_b)
{
	struct mro_contract ca, cb;

	mro_contract_local(&ca, METAROCE_PROT_NONE, 0, 0, win_a);
	mro_contract_local(&cb, METAROCE_PROT_NONE, 0, 0, win_b);
	mro_hello_init(a, &ca, A_NONCE, A_PSN, B_PSN);
	mro_hello_init(b, &cb, B_NONCE, B_PSN, A_PSN);
	a->psn_set = true;
	b->psn_set = true;
}

static void hello_contract_diff(struct kunit *test)
{
	struct mro_contract a, b;
	u32 va = 1, vb = 1;

	mro_contract_local(&a, METAROCE_PROT_AUTH, 3, 2, 512);
	b = a;
	KUNIT_EXPECT_EQ(test, mro_contract_diff(&a, &b, &va, &vb),
			MRO_CONTRACT_OK);
	KUNIT_EXPECT_EQ(test, va, 0);
	KUNIT_EXPECT_EQ(test, vb, 0);
	KUNIT_EXPECT_EQ(test, a.ack_every, METAROCE_ACK_EVERY);
	KUNIT_EXPECT_EQ(test, a.msg_window, METAROCE_MSG_WINDOW);
	KUNIT_EXPECT_EQ(test, a.sack_bits, METAROCE_SACK_BITS);

	b.window = 256;
	KUNIT_EXPECT_EQ(test, mro_contract_diff(&a, &b, &va, &vb),
			MRO_CONTRACT_WINDOW);
	KUNIT_EXPECT_EQ(test, va, 512);
	KUNIT_EXPECT_EQ(test, vb, 256);
	KUNIT_EXPECT_STREQ(test, mro_contract_name(MRO_CONTRACT_WINDOW),
			   "window");

	/* the first differing field in protocol order is the one reported */
	b.ack_every = 16;
	KUNIT_EXPECT_EQ(test, mro_contract_diff(&a, &b, &va, &vb),
			MRO_CONTRACT_ACK_EVERY);
	KUNIT_EXPECT_EQ(test, vb, 16);
	/* a different key id is no mismatch: mro_hello_key_id() picks one */
	b.key_id = 4;
	KUNIT_EXPECT_EQ(test, mro_contract_diff(&a, &b, &va, &vb),
			MRO_CONTRACT_ACK_EVERY);
	b.prot = METAROCE_PROT_ENCRYPT;
	KUNIT_EXPECT_EQ(test, mro_contract_diff(&a, &b, &va, &vb),
			MRO_CONTRACT_PROT);
	KUNIT_EXPECT_EQ(test, va, METAROCE_PROT_AUTH);
	KUNIT_EXPECT_EQ(test, vb, METAROCE_PROT_ENCRYPT);

	b = a;
	b.msg_window = 32;
	KUNIT_EXPECT_EQ(test, mro_contract_diff(&a, &b, &va, &vb),
			MRO_CONTRACT_MSG_WINDOW);
	b = a;
	b.sack_bits = 64;
	KUNIT_EXPECT_EQ(test, mro_contract_diff(&a, &b, &va, &vb),
			MRO_CONTRACT_SACK_BITS);
}

/*
 * Deliver @from's HELLO to @to (if !@lost); returns whether @to answers,
 * with the answer's ask flag in *@ask_back.
 */
static bool deliver(struct kunit *test, struct mro_hello *from,
		    struct mro_hello *to, bool ask, bool *ask_back)
{
	struct mro_hello_hdr h;
	enum mro_contract_field f;
	bool answer;

	mro_hello_fill(from, &h);
	from->sent++;
	KUNIT_EXPECT_EQ(test, mro_hello_rcv(to, from->psn, &h, ask, &answer,
					    &f), MRO_HELLO_ACCEPT);
	KUNIT_EXPECT_EQ(test, f, MRO_CONTRACT_OK);
	*ask_back = mro_hello_ask(to);
	return answer;
}

/* play the exchange from @first's HELLO until nobody answers */
static int exchange(struct kunit *test, struct mro_hello *first,
		    struct mro_hello *second)
{
	struct mro_hello *from = first, *to = second, *t;
	bool ask = mro_hello_ask(first), more = true;
	int n = 0;

	while (more && n < 10) {
		more = deliver(test, from, to, ask, &ask);
		n++;
		t = from;
		from = to;
		to = t;
	}
	return n;
}

static void hello_exchange(struct kunit *test)
{
	struct mro_hello a, b;
	int n;

	two_ends(&a, &b, 512, 512);
	KUNIT_EXPECT_STREQ(test, mro_hello_state(&a), "waiting");
	KUNIT_EXPECT_TRUE(test, mro_hello_ask(&a));
	KUNIT_EXPECT_TRUE(test, mro_hello_resend_due(&a));
	n = exchange(test, &a, &b);
	/* a's HELLO, b's answer (asks: a has not echoed b), a's answer */
	KUNIT_EXPECT_EQ(test, n, 3);
	KUNIT_EXPECT_TRUE(test, a.echoed);
	KUNIT_EXPECT_TRUE(test, b.echoed);
	KUNIT_EXPECT_EQ(test, a.peer_nonce, B_NONCE);
	KUNIT_EXPECT_EQ(test, b.peer_nonce, A_NONCE);
	KUNIT_EXPECT_FALSE(test, mro_hello_resend_due(&a));
	KUNIT_EXPECT_FALSE(test, mro_hello_resend_due(&b));
	KUNIT_EXPECT_FALSE(test, a.failed || b.failed);
	KUNIT_EXPECT_STREQ(test, mro_hello_state(&a), "agreed");
}

/* a's HELLO lost: b's own HELLO starts it, and both still end echoed */
static void hello_first_lost(struct kunit *test)
{
	struct mro_hello a, b;
	int n;

	two_ends(&a, &b, 1024, 1024);
	a.sent++;		/* lost on the way */
	KUNIT_EXPECT_TRUE(test, mro_hello_resend_due(&a));
	n = exchange(test, &b, &a);
	KUNIT_EXPECT_LE(test, n, 3);
	KUNIT_EXPECT_TRUE(test, a.echoed);
	KUNIT_EXPECT_TRUE(test, b.echoed);
	/* an answer that repeats (a resend crossing it) is harmless */
	n = exchange(test, &a, &b);
	KUNIT_EXPECT_EQ(test, n, 1);
	KUNIT_EXPECT_TRUE(test, a.echoed && b.echoed);
}

/* a HELLO heard in RTR, before the receiver's own first PSN is known */
static void hello_heard_before_rts(struct kunit *test)
{
	struct mro_hello a, b;
	bool ask;

	two_ends(&a, &b, 512, 512);
	b.psn_set = false;
	KUNIT_EXPECT_FALSE(test, mro_hello_resend_due(&b));
	/* b records a's nonce; its answer is the HELLO it sends at RTS */
	deliver(test, &a, &b, true, &ask);
	KUNIT_EXPECT_EQ(test, b.peer_nonce, A_NONCE);
	b.psn_set = true;
	KUNIT_EXPECT_TRUE(test, mro_hello_ask(&b));
	KUNIT_EXPECT_LE(test, exchange(test, &b, &a), 2);
	KUNIT_EXPECT_TRUE(test, a.echoed && b.echoed);
}

/* what is not this connection's HELLO changes nothing */
static void hello_stale(struct kunit *test)
{
	struct mro_hello a, b, before;
	struct mro_hello_hdr h;
	enum mro_contract_field f;
	bool answer = true, ask;

	two_ends(&a, &b, 512, 512);
	mro_hello_fill(&a, &h);
	before = b;
	/* another PSN: a blind sender's guess, or another connection's */
	KUNIT_EXPECT_EQ(test, mro_hello_rcv(&b, A_PSN + 1, &h, true, &answer,
					    &f), MRO_HELLO_STALE);
	KUNIT_EXPECT_FALSE(test, answer);
	/* an echo of a nonce b never had */
	h.echo = B_NONCE + 1;
	KUNIT_EXPECT_EQ(test, mro_hello_rcv(&b, A_PSN, &h, true, &answer, &f),
			MRO_HELLO_STALE);
	/* no nonce */
	mro_hello_fill(&a, &h);
	h.nonce = 0;
	KUNIT_EXPECT_EQ(test, mro_hello_rcv(&b, A_PSN, &h, true, &answer, &f),
			MRO_HELLO_STALE);
	KUNIT_EXPECT_MEMEQ(test, &b, &before, sizeof(b));

	/* once a's nonce is known, a HELLO with another one is stale */
	deliver(test, &a, &b, true, &ask);
	before = b;
	mro_hello_fill(&a, &h);
	h.nonce = A_NONCE ^ 1;
	h.window = 64;		/* would fail the contract if it counted */
	KUNIT_EXPECT_EQ(test, mro_hello_rcv(&b, A_PSN, &h, true, &answer, &f),
			MRO_HELLO_STALE);
	KUNIT_EXPECT_MEMEQ(test, &b, &before, sizeof(b));

	/* an answer from a peer in RTR: PSN 0, our nonce echoed */
	two_ends(&a, &b, 512, 512);
	mro_hello_fill(&b, &h);
	h.echo = A_NONCE;
	KUNIT_EXPECT_EQ(test, mro_hello_rcv(&a, 0, &h, false, &answer, &f),
			MRO_HELLO_ACCEPT);
	KUNIT_EXPECT_TRUE(test, a.echoed);
	/* but not without the echo */
	two_ends(&a, &b, 512, 512);
	mro_hello_fill(&b, &h);
	KUNIT_EXPECT_EQ(test, mro_hello_rcv(&a, 0, &h, false, &answer, &f),
			MRO_HELLO_STALE);

	/* an end that was never set up (no nonce) takes nothing */
	memset(&b, 0, sizeof(b));
	mro_hello_fill(&a, &h);
	KUNIT_EXPECT_EQ(test, mro_hello_rcv(&b, 0, &h, true, &answer, &f),
			MRO_HELLO_STALE);
}

/* different windows: both ends fail, each answering once */
static void hello_mismatch(struct kunit *test)
{
	struct mro_hello a, b;
	struct mro_hello_hdr h;
	enum mro_contract_field f;
	bool answer;

	two_ends(&a, &b, 512, 256);
	mro_hello_fill(&a, &h);
	KUNIT_EXPECT_EQ(test, mro_hello_rcv(&b, A_PSN, &h, true, &answer, &f),
			MRO_HELLO_MISMATCH);
	KUNIT_EXPECT_EQ(test, f, MRO_CONTRACT_WINDOW);
	KUNIT_EXPECT_TRUE(test, answer);
	KUNIT_EXPECT_TRUE(test, b.failed);
	KUNIT_EXPECT_STREQ(test, mro_hello_state(&b), "failed");
	KUNIT_EXPECT_FALSE(test, mro_hello_resend_due(&b));
	/* b's answer tells a, which fails too */
	mro_hello_fill(&b, &h);
	KUNIT_EXPECT_EQ(test, h.echo, A_NONCE);
	KUNIT_EXPECT_EQ(test, mro_hello_rcv(&a, B_PSN, &h, false, &answer,
					    &f), MRO_HELLO_MISMATCH);
	KUNIT_EXPECT_EQ(test, f, MRO_CONTRACT_WINDOW);
	KUNIT_EXPECT_TRUE(test, a.failed);
	/* nothing after that: the connection has ended */
	KUNIT_EXPECT_EQ(test, mro_hello_rcv(&a, B_PSN, &h, false, &answer,
					    &f), MRO_HELLO_STALE);
	KUNIT_EXPECT_FALSE(test, answer);

	/* a protection mode mismatch is reported as such */
	two_ends(&a, &b, 512, 512);
	b.ours.prot = METAROCE_PROT_AUTH;
	b.ours.key_id = 1;
	mro_hello_fill(&b, &h);
	KUNIT_EXPECT_EQ(test, mro_hello_rcv(&a, B_PSN, &h, true, &answer, &f),
			MRO_HELLO_MISMATCH);
	KUNIT_EXPECT_EQ(test, f, MRO_CONTRACT_PROT);
}

/*
 * Key rotation: the key a connection takes from its ends' current and
 * previous keys, the same from both ends, whichever has the lower nonce.
 */
static void hello_key_choice(struct kunit *test)
{
	static const struct {
		u8 a_cur, a_prev, b_cur, b_prev;
		u8 lo_a, lo_b;	/* the key when a's nonce is lower, b's */
	} cases[] = {
		{ 1, 0, 1, 0, 1, 1 },	/* one key everywhere */
		{ 2, 1, 1, 0, 1, 1 },	/* a has the new key, b not yet */
		{ 2, 1, 2, 1, 2, 2 },	/* both have it */
		{ 2, 1, 1, 2, 2, 1 },	/* both hold both: the lower's current */
		{ 3, 2, 2, 1, 2, 2 },	/* two rotations apart, 2 in common */
		{ 3, 1, 2, 1, 1, 1 },	/* only the previous key in common */
		{ 2, 0, 1, 0, 0, 0 },	/* nothing in common */
		{ 0, 0, 0, 0, 0, 0 },	/* no keys (mode none) */
	};
	struct mro_hello a, b;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		two_ends(&a, &b, 512, 512);
		a.ours.key_id = cases[i].a_cur;
		a.ours.prev_key_id = cases[i].a_prev;
		b.ours.key_id = cases[i].b_cur;
		b.ours.prev_key_id = cases[i].b_prev;
		/* A_NONCE < B_NONCE: a is the lower end */
		a.peer_nonce = B_NONCE;
		b.peer_nonce = A_NONCE;
		KUNIT_EXPECT_EQ_MSG(test, mro_hello_key_id(&a, b.ours.key_id,
							   b.ours.prev_key_id),
				    cases[i].lo_a, "case %d at a", i);
		KUNIT_EXPECT_EQ_MSG(test, mro_hello_key_id(&b, a.ours.key_id,
							   a.ours.prev_key_id),
				    cases[i].lo_a, "case %d at b", i);
		/* swap the nonces: b is the lower end */
		a.nonce = B_NONCE;
		a.peer_nonce = A_NONCE;
		b.nonce = A_NONCE;
		b.peer_nonce = B_NONCE;
		KUNIT_EXPECT_EQ_MSG(test, mro_hello_key_id(&a, b.ours.key_id,
							   b.ours.prev_key_id),
				    cases[i].lo_b, "case %d at a, b lower", i);
		KUNIT_EXPECT_EQ_MSG(test, mro_hello_key_id(&b, a.ours.key_id,
							   a.ours.prev_key_id),
				    cases[i].lo_b, "case %d at b, b lower", i);
	}
	/* different current keys are no contract mismatch */
	two_ends(&a, &b, 512, 512);
	a.ours.key_id = 2;
	b.ours.key_id = 1;
	exchange(test, &a, &b);
	KUNIT_EXPECT_FALSE(test, a.failed || b.failed);
}

/* an unanswered end stops asking after MRO_HELLO_MAX_SENT HELLOs */
static void hello_resend_bound(struct kunit *test)
{
	struct mro_hello a, b;
	int n = 0;

	two_ends(&a, &b, 512, 512);
	while (mro_hello_resend_due(&a) && n < 100) {
		a.sent++;
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, MRO_HELLO_MAX_SENT);
}

/* the wire refuses what no sender may put in a HELLO */
static void hello_wire(struct kunit *test)
{
	u8 buf[128];
	struct mro_hdr h = {}, got;
	size_t n;

	h.opcode = METAROCE_OP_HELLO;
	h.flags = METAROCE_F_ACK_REQ;
	h.hello.prot = METAROCE_PROT_AUTH;
	h.hello.nonce = A_NONCE;
	h.hello.window = 512;
	n = mro_wire_encode(&h, buf, sizeof(buf) - METAROCE_CRC_LEN);
	KUNIT_ASSERT_EQ(test, n, METAROCE_BTH_LEN + METAROCE_HELLO_LEN);
	mro_wire_seal(buf, n);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, n + METAROCE_CRC_LEN, &got),
			MRO_WIRE_OK);
	KUNIT_EXPECT_EQ(test, got.hello.nonce, A_NONCE);

	/* reserved bytes, an unknown mode, no nonce: malformed */
	buf[METAROCE_BTH_LEN + 11] = 1;
	mro_wire_seal(buf, n);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, n + METAROCE_CRC_LEN, &got),
			MRO_WIRE_FIELD);
	buf[METAROCE_BTH_LEN + 11] = 0;
	buf[METAROCE_BTH_LEN] = METAROCE_PROT_MAX + 1;
	mro_wire_seal(buf, n);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, n + METAROCE_CRC_LEN, &got),
			MRO_WIRE_FIELD);
	buf[METAROCE_BTH_LEN] = METAROCE_PROT_AUTH;
	memset(buf + METAROCE_BTH_LEN + 16, 0, 8);
	mro_wire_seal(buf, n);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, n + METAROCE_CRC_LEN, &got),
			MRO_WIRE_FIELD);
	/* a HELLO is never sealed */
	buf[METAROCE_BTH_LEN + 16] = 1;
	buf[2] |= METAROCE_F_SEALED >> 8;
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, n + METAROCE_SEAL_LEN, &got),
			MRO_WIRE_FIELD);
	/* and the encoder does not write them */
	h.hello.nonce = 0;
	KUNIT_EXPECT_EQ(test, mro_wire_encode(&h, buf, sizeof(buf)), 0);
	h.hello.nonce = A_NONCE;
	h.hello.prot = METAROCE_PROT_MAX + 1;
	KUNIT_EXPECT_EQ(test, mro_wire_encode(&h, buf, sizeof(buf)), 0);
}

/*
 * A sealed packet ends in the tag and the counter, not the CRC: the
 * decoder leaves those to the connection and counts them out of the
 * payload.
 */
static void hello_sealed_trailer(struct kunit *test)
{
	u8 buf[160] = {};
	struct mro_hdr h = {}, got;
	size_t n;

	h.opcode = METAROCE_OP_WRITE;
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST | METAROCE_F_SEALED;
	h.msg.length = 40;
	n = mro_wire_encode(&h, buf, sizeof(buf));
	KUNIT_ASSERT_EQ(test, n, METAROCE_BTH_LEN + METAROCE_MSG_LEN);
	KUNIT_EXPECT_EQ(test, mro_wire_trailer_len(h.flags), METAROCE_SEAL_LEN);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, n + 40 + METAROCE_SEAL_LEN,
					      &got), MRO_WIRE_OK);
	KUNIT_EXPECT_EQ(test, got.payload_len, 40);
	KUNIT_EXPECT_TRUE(test, got.flags & METAROCE_F_SEALED);
	/* a trailer too short for the tag and counter */
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, n + METAROCE_SEAL_LEN - 1,
					      &got), MRO_WIRE_SHORT);
	/* a sealed datagram without its sender's key id and nonce */
	h.opcode = METAROCE_OP_UD_SEND;
	h.flags = METAROCE_F_SEALED;
	KUNIT_EXPECT_EQ(test, mro_wire_encode(&h, buf, sizeof(buf)), 0);
	h.deth.key_id = 1;
	KUNIT_EXPECT_EQ(test, mro_wire_encode(&h, buf, sizeof(buf)), 0);
	h.deth.sender_nonce = 1ULL << 56;	/* not in the 56 bits */
	KUNIT_EXPECT_EQ(test, mro_wire_encode(&h, buf, sizeof(buf)), 0);
	h.deth.sender_nonce = 1;
	KUNIT_EXPECT_EQ(test, mro_wire_encode(&h, buf, sizeof(buf)),
			METAROCE_BTH_LEN + METAROCE_DETH_LEN +
			METAROCE_DSEAL_LEN);
	/* HELLO is never sealed */
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_HELLO;
	h.flags = METAROCE_F_SEALED;
	h.hello.nonce = 1;
	KUNIT_EXPECT_EQ(test, mro_wire_encode(&h, buf, sizeof(buf)), 0);
}

static struct kunit_case metaroce_hello_cases[] = {
	KUNIT_CASE(hello_contract_diff),
	KUNIT_CASE(hello_exchange),
	KUNIT_CASE(hello_first_lost),
	KUNIT_CASE(hello_heard_before_rts),
	KUNIT_CASE(hello_stale),
	KUNIT_CASE(hello_mismatch),
	KUNIT_CASE(hello_resend_bound),
	KUNIT_CASE(hello_key_choice),
	KUNIT_CASE(hello_wire),
	KUNIT_CASE(hello_sealed_trailer),
	{}
};

static struct kunit_suite metaroce_hello_suite = {
	.name = "metaroce_hello",
	.test_cases = metaroce_hello_cases,
};

kunit_test_suite(metaroce_hello_suite);
