// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce wire encode/decode.  Everything that reads a received packet's
 * header goes through mro_wire_parse() (after mro_wire_peek() and the CRC
 * check; mro_wire_decode() does all three on a flat buffer), which bounds
 * every field before anyone else sees it.
 */
#include <linux/build_bug.h>
#include <linux/crc32c.h>
#include <linux/export.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "mro_unaligned.h"

#include "mro_wire.h"

static_assert(sizeof(struct metaroce_bth) == METAROCE_BTH_LEN);
static_assert(sizeof(struct metaroce_msg) == METAROCE_MSG_LEN);
static_assert(sizeof(struct metaroce_atomic) == METAROCE_ATOMIC_LEN);
static_assert(sizeof(struct metaroce_atomic_resp) == METAROCE_ATOMIC_RESP_LEN);
static_assert(sizeof(struct metaroce_read_resp) == METAROCE_READ_RESP_LEN);
static_assert(sizeof(struct metaroce_flush) == METAROCE_FLUSH_LEN);
static_assert(sizeof(struct metaroce_ack) == METAROCE_ACK_LEN);
static_assert(sizeof(struct metaroce_deth) == METAROCE_DETH_LEN);
static_assert(sizeof(struct metaroce_dseal) == METAROCE_DSEAL_LEN);
static_assert(sizeof(struct metaroce_ctrl) == METAROCE_CTRL_LEN);
static_assert(sizeof(struct metaroce_hello) == METAROCE_HELLO_LEN);

/* largest message: IB's 2^31 bytes */
#define MRO_WIRE_MAX_MSG	0x80000000U

int mro_wire_ext_len(u8 opcode)
{
	switch (opcode) {
	case METAROCE_OP_SEND:
	case METAROCE_OP_SEND_IMM:
	case METAROCE_OP_SEND_INV:
	case METAROCE_OP_WRITE:
	case METAROCE_OP_WRITE_IMM:
	case METAROCE_OP_READ_REQ:
		return METAROCE_MSG_LEN;
	case METAROCE_OP_READ_RESP:
		return METAROCE_READ_RESP_LEN;
	case METAROCE_OP_CMP_SWAP:
	case METAROCE_OP_FETCH_ADD:
	case METAROCE_OP_ATOMIC_WRITE:
		return METAROCE_ATOMIC_LEN;
	case METAROCE_OP_FLUSH:
		return METAROCE_FLUSH_LEN;
	case METAROCE_OP_ATOMIC_RESP:
		return METAROCE_ATOMIC_RESP_LEN;
	case METAROCE_OP_ACK:
		return METAROCE_ACK_LEN;
	case METAROCE_OP_UD_SEND:
	case METAROCE_OP_UD_SEND_IMM:
		return METAROCE_DETH_LEN;
	case METAROCE_OP_PROBE:
	case METAROCE_OP_CREDIT:
		return METAROCE_CTRL_LEN;
	case METAROCE_OP_HELLO:
		return METAROCE_HELLO_LEN;
	default:
		return -1;
	}
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_ext_len);

u16 mro_wire_flags_valid(u8 opcode)
{
	/* HELLO is never sealed */
	if (opcode == METAROCE_OP_HELLO)
		return METAROCE_F_ALL;
	if (mro_wire_is_datagram(opcode))
		return METAROCE_F_ALL | METAROCE_F_SEALED;
	if (opcode == METAROCE_OP_PROBE)
		return METAROCE_F_ALL | METAROCE_F_NEW_PORT | METAROCE_F_SEALED;
	if (mro_wire_is_request(opcode))
		return METAROCE_F_ALL | METAROCE_F_ACK_PIGGY |
		       METAROCE_F_SEALED;
	return METAROCE_F_ALL | METAROCE_F_SEALED;
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_flags_valid);

u32 mro_wire_trailer_len(u16 flags)
{
	return flags & METAROCE_F_SEALED ? METAROCE_SEAL_LEN : METAROCE_CRC_LEN;
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_trailer_len);

int mro_wire_hdr_len(u8 opcode, u16 flags)
{
	int ext_len = mro_wire_ext_len(opcode);

	if (ext_len < 0)
		return -1;
	if ((flags & METAROCE_F_ACK_PIGGY) && mro_wire_is_request(opcode))
		ext_len += METAROCE_ACK_PIGGY_LEN;
	if ((flags & METAROCE_F_SEALED) && mro_wire_is_datagram(opcode))
		ext_len += METAROCE_DSEAL_LEN;
	return METAROCE_BTH_LEN + ext_len;
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_hdr_len);

bool mro_wire_has_payload(u8 opcode)
{
	switch (opcode) {
	case METAROCE_OP_SEND:
	case METAROCE_OP_SEND_IMM:
	case METAROCE_OP_SEND_INV:
	case METAROCE_OP_WRITE:
	case METAROCE_OP_WRITE_IMM:
	case METAROCE_OP_READ_RESP:
	case METAROCE_OP_UD_SEND:
	case METAROCE_OP_UD_SEND_IMM:
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_has_payload);

bool mro_wire_is_datagram(u8 opcode)
{
	return opcode == METAROCE_OP_UD_SEND ||
	       opcode == METAROCE_OP_UD_SEND_IMM;
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_is_datagram);

bool mro_wire_is_request(u8 opcode)
{
	return opcode >= METAROCE_OP_SEND && opcode <= METAROCE_OP_ATOMIC_WRITE;
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_is_request);

u32 mro_wire_crc_add(u32 state, const void *buf, size_t len)
{
	return crc32c(state, buf, len);
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_crc_add);

u32 mro_wire_crc(const void *buf, size_t len)
{
	return ~mro_wire_crc_add(MRO_WIRE_CRC_SEED, buf, len);
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_crc);

bool mro_wire_crc_ok(u32 crc, const void *field)
{
	return crc == get_unaligned_be32(field);
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_crc_ok);

void mro_wire_seal(void *buf, size_t len)
{
	put_unaligned_be32(mro_wire_crc(buf, len), (u8 *)buf + len);
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_seal);

static void encode_msg(const struct mro_msg_hdr *m, struct metaroce_msg *w)
{
	put_unaligned_be32(m->msn, &w->msn);
	put_unaligned_be32(m->offset, &w->offset);
	put_unaligned_be32(m->length, &w->length);
	put_unaligned_be32(m->imm, &w->imm);
	put_unaligned_be64(m->va, &w->va);
	put_unaligned_be32(m->rkey, &w->rkey);
	put_unaligned_be32(m->first_psn, &w->first_psn);
}

static void encode_atomic(const struct mro_atomic_hdr *a,
			  struct metaroce_atomic *w)
{
	put_unaligned_be64(a->va, &w->va);
	put_unaligned_be32(a->rkey, &w->rkey);
	put_unaligned_be32(a->msn, &w->msn);
	put_unaligned_be64(a->swap_add, &w->swap_add);
	put_unaligned_be64(a->compare, &w->compare);
}

static void encode_flush(const struct mro_flush_hdr *f,
			 struct metaroce_flush *w)
{
	put_unaligned_be64(f->va, &w->va);
	put_unaligned_be32(f->rkey, &w->rkey);
	put_unaligned_be32(f->length, &w->length);
	put_unaligned_be32(f->msn, &w->msn);
	w->type = f->type;
	w->level = f->level;
	put_unaligned_be16(0, &w->rsvd);
}

/* the datagram seal extension: key id, then the nonce's low 56 bits */
static void encode_dseal(const struct mro_deth_hdr *d, u8 *p)
{
	put_unaligned_be64(d->sender_nonce & MRO_WIRE_DSEAL_NONCE_MASK, p);
	p[0] = d->key_id;
}

static void encode_ack(const struct mro_ack_hdr *a, struct metaroce_ack *w)
{
	int i;

	w->syndrome = a->syndrome;
	w->nak_code = a->nak_code;
	put_unaligned_be16(a->sack_bits, &w->sack_bits);
	put_unaligned_be32(a->cum_psn, &w->cum_psn);
	put_unaligned_be32(a->nak_psn, &w->nak_psn);
	put_unaligned_be32(a->credit_psn, &w->credit_psn);
	for (i = 0; i < METAROCE_SACK_WORDS; i++)
		put_unaligned_be64(a->sack[i], &w->sack[i]);
	put_unaligned_be32(a->ts_echo, &w->ts_echo);
	put_unaligned_be16(a->echo_path, &w->echo_path);
	put_unaligned_be16(a->ecn_ce, &w->ecn_ce);
	put_unaligned_be32(a->echo_seq, &w->echo_seq);
	put_unaligned_be32(0, &w->rsvd);
}

static void encode_hello(const struct mro_hello_hdr *h,
			 struct metaroce_hello *w)
{
	w->prot = h->prot;
	w->key_id = h->key_id;
	put_unaligned_be16(h->ack_every, &w->ack_every);
	put_unaligned_be16(h->msg_window, &w->msg_window);
	put_unaligned_be16(h->sack_bits, &w->sack_bits);
	w->prev_key_id = h->prev_key_id;
	memset(w->rsvd, 0, sizeof(w->rsvd));
	put_unaligned_be32(h->window, &w->window);
	put_unaligned_be64(h->nonce, &w->nonce);
	put_unaligned_be64(h->echo, &w->echo);
}

size_t mro_wire_encode(struct mro_hdr *h, void *buf, size_t room)
{
	struct metaroce_bth *bth = buf;
	void *ext = (u8 *)buf + METAROCE_BTH_LEN;
	int hdr_len = mro_wire_hdr_len(h->opcode, h->flags);
	size_t len;

	if (hdr_len < 0 || (h->flags & ~mro_wire_flags_valid(h->opcode)) ||
	    (h->dqpn & ~METAROCE_QPN_MASK) || (h->sqpn & ~METAROCE_QPN_MASK))
		return 0;
	if (h->opcode == METAROCE_OP_ACK &&
	    (h->ack.syndrome > METAROCE_SYN_MAX ||
	     h->ack.sack_bits > METAROCE_SACK_BITS))
		return 0;
	if (h->opcode == METAROCE_OP_HELLO &&
	    (h->hello.prot > METAROCE_PROT_MAX || !h->hello.nonce))
		return 0;
	/* a sealed datagram names its sender's key */
	if (mro_wire_is_datagram(h->opcode) &&
	    (h->flags & METAROCE_F_SEALED) &&
	    (!h->deth.key_id ||
	     !(h->deth.sender_nonce & MRO_WIRE_DSEAL_NONCE_MASK)))
		return 0;
	len = hdr_len;
	if (room < len)
		return 0;
	h->hdr_len = len;
	if (h->flags & METAROCE_F_ACK_PIGGY)
		put_unaligned_be32(h->ack_psn, (u8 *)buf + len -
				   METAROCE_ACK_PIGGY_LEN);

	bth->ver = METAROCE_WIRE_VERSION << 4;
	bth->opcode = h->opcode;
	put_unaligned_be16(h->flags, &bth->flags);
	put_unaligned_be32(h->dqpn, &bth->dqpn);
	put_unaligned_be32(h->sqpn, &bth->sqpn);
	put_unaligned_be32(h->psn, &bth->psn);
	put_unaligned_be16(h->path, &bth->path);
	put_unaligned_be16(len, &bth->hdr_len);
	put_unaligned_be32(h->path_seq, &bth->path_seq);
	put_unaligned_be32(h->tsval, &bth->tsval);

	switch (h->opcode) {
	case METAROCE_OP_CMP_SWAP:
	case METAROCE_OP_FETCH_ADD:
	case METAROCE_OP_ATOMIC_WRITE:
		encode_atomic(&h->atomic, ext);
		break;
	case METAROCE_OP_FLUSH:
		encode_flush(&h->flush, ext);
		break;
	case METAROCE_OP_ATOMIC_RESP:
		put_unaligned_be64(h->orig, ext);
		break;
	case METAROCE_OP_READ_RESP:
		put_unaligned_be32(h->rresp.offset, ext);
		put_unaligned_be32(h->rresp.ts_echo, (u8 *)ext + 4);
		break;
	case METAROCE_OP_ACK:
		encode_ack(&h->ack, ext);
		break;
	case METAROCE_OP_UD_SEND:
	case METAROCE_OP_UD_SEND_IMM:
		put_unaligned_be32(h->deth.qkey, ext);
		put_unaligned_be32(h->deth.imm, (u8 *)ext + 4);
		if (h->flags & METAROCE_F_SEALED)
			encode_dseal(&h->deth, (u8 *)ext + METAROCE_DETH_LEN);
		break;
	case METAROCE_OP_PROBE:
	case METAROCE_OP_CREDIT:
		put_unaligned_be32(h->ctrl.token, ext);
		put_unaligned_be32(h->ctrl.credit_psn, (u8 *)ext + 4);
		put_unaligned_be32(0, (u8 *)ext + 8);
		break;
	case METAROCE_OP_HELLO:
		encode_hello(&h->hello, ext);
		break;
	default:
		encode_msg(&h->msg, ext);
		break;
	}
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_encode);

static enum mro_wire_err decode_msg(const struct metaroce_msg *w,
				    struct mro_hdr *h)
{
	struct mro_msg_hdr *m = &h->msg;

	m->msn = get_unaligned_be32(&w->msn);
	m->offset = get_unaligned_be32(&w->offset);
	m->length = get_unaligned_be32(&w->length);
	m->imm = get_unaligned_be32(&w->imm);
	m->va = get_unaligned_be64(&w->va);
	m->rkey = get_unaligned_be32(&w->rkey);
	m->first_psn = get_unaligned_be32(&w->first_psn);

	if (m->length > MRO_WIRE_MAX_MSG)
		return MRO_WIRE_LENGTH;
	if (h->opcode == METAROCE_OP_READ_REQ) {
		/* bytes [offset, offset + length) in segments of imm bytes */
		if ((u64)m->offset + m->length > MRO_WIRE_MAX_MSG ||
		    m->imm < 256 || m->imm > 65536)
			return MRO_WIRE_LENGTH;
		return MRO_WIRE_OK;
	}
	/* u64 arithmetic: offset + payload may not wrap */
	if ((u64)m->offset + h->payload_len > m->length)
		return MRO_WIRE_LENGTH;
	if ((h->flags & METAROCE_F_FIRST) && m->offset)
		return MRO_WIRE_FIELD;
	if ((h->flags & METAROCE_F_LAST) &&
	    (u64)m->offset + h->payload_len != m->length)
		return MRO_WIRE_LENGTH;
	return MRO_WIRE_OK;
}

static enum mro_wire_err decode_atomic(const struct metaroce_atomic *w,
				       u8 opcode, struct mro_atomic_hdr *a)
{
	a->va = get_unaligned_be64(&w->va);
	a->rkey = get_unaligned_be32(&w->rkey);
	a->msn = get_unaligned_be32(&w->msn);
	a->swap_add = get_unaligned_be64(&w->swap_add);
	a->compare = get_unaligned_be64(&w->compare);
	/* atomics are 8-byte aligned 64-bit operations */
	if (a->va & 7)
		return MRO_WIRE_FIELD;
	/* ATOMIC_WRITE has nothing to compare */
	if (opcode == METAROCE_OP_ATOMIC_WRITE && a->compare)
		return MRO_WIRE_FIELD;
	return MRO_WIRE_OK;
}

#define MRO_FLUSH_TYPES	(METAROCE_FLUSH_GLOBAL | METAROCE_FLUSH_PERSISTENT)

static enum mro_wire_err decode_flush(const struct metaroce_flush *w,
				      struct mro_flush_hdr *f)
{
	f->va = get_unaligned_be64(&w->va);
	f->rkey = get_unaligned_be32(&w->rkey);
	f->length = get_unaligned_be32(&w->length);
	f->msn = get_unaligned_be32(&w->msn);
	f->type = w->type;
	f->level = w->level;
	if (!f->type || (f->type & ~MRO_FLUSH_TYPES) ||
	    f->level > METAROCE_FLUSH_MR || get_unaligned_be16(&w->rsvd))
		return MRO_WIRE_FIELD;
	return MRO_WIRE_OK;
}

static enum mro_wire_err decode_dseal(const u8 *p, struct mro_deth_hdr *d)
{
	d->key_id = p[0];
	d->sender_nonce = get_unaligned_be64(p) & MRO_WIRE_DSEAL_NONCE_MASK;
	if (!d->key_id || !d->sender_nonce)
		return MRO_WIRE_FIELD;
	return MRO_WIRE_OK;
}

static enum mro_wire_err decode_ack(const struct metaroce_ack *w,
				    struct mro_ack_hdr *a)
{
	int i;

	a->syndrome = w->syndrome;
	a->nak_code = w->nak_code;
	a->sack_bits = get_unaligned_be16(&w->sack_bits);
	a->cum_psn = get_unaligned_be32(&w->cum_psn);
	a->nak_psn = get_unaligned_be32(&w->nak_psn);
	a->credit_psn = get_unaligned_be32(&w->credit_psn);
	for (i = 0; i < METAROCE_SACK_WORDS; i++)
		a->sack[i] = get_unaligned_be64(&w->sack[i]);
	a->ts_echo = get_unaligned_be32(&w->ts_echo);
	a->echo_path = get_unaligned_be16(&w->echo_path);
	a->ecn_ce = get_unaligned_be16(&w->ecn_ce);
	a->echo_seq = get_unaligned_be32(&w->echo_seq);

	if (a->syndrome > METAROCE_SYN_MAX ||
	    a->sack_bits > METAROCE_SACK_BITS ||
	    get_unaligned_be32(&w->rsvd))
		return MRO_WIRE_FIELD;
	/* bits beyond sack_bits must be clear */
	for (i = 0; i < METAROCE_SACK_BITS; i++)
		if (i >= a->sack_bits && (a->sack[i / 64] >> (i % 64)) & 1)
			return MRO_WIRE_FIELD;
	return MRO_WIRE_OK;
}

static enum mro_wire_err decode_hello(const struct metaroce_hello *w,
				      struct mro_hello_hdr *h)
{
	h->prot = w->prot;
	h->key_id = w->key_id;
	h->ack_every = get_unaligned_be16(&w->ack_every);
	h->msg_window = get_unaligned_be16(&w->msg_window);
	h->sack_bits = get_unaligned_be16(&w->sack_bits);
	h->prev_key_id = w->prev_key_id;
	h->window = get_unaligned_be32(&w->window);
	h->nonce = get_unaligned_be64(&w->nonce);
	h->echo = get_unaligned_be64(&w->echo);
	/*
	 * Only what no sender may put there: the values themselves are the
	 * peer's to announce, and a different one is a negotiation failure
	 * the connection reports, not a malformed packet.
	 */
	if (h->prot > METAROCE_PROT_MAX || !h->nonce || w->rsvd[0] ||
	    w->rsvd[1] || w->rsvd[2])
		return MRO_WIRE_FIELD;
	return MRO_WIRE_OK;
}

enum mro_wire_err mro_wire_peek(const void *buf, size_t len, u16 *hdr_len)
{
	const struct metaroce_bth *bth = buf;
	u32 trailer;
	u16 hlen, seal;
	int want;

	if (len < METAROCE_BTH_LEN + METAROCE_CRC_LEN)
		return MRO_WIRE_SHORT;
	/* whether the flags are allowed is checked with the rest */
	trailer = mro_wire_trailer_len(get_unaligned_be16(&bth->flags));
	if (bth->ver != METAROCE_WIRE_VERSION << 4)
		return MRO_WIRE_VERSION;
	/* a sealed datagram's headers hold its seal extension */
	seal = get_unaligned_be16(&bth->flags) & METAROCE_F_SEALED;
	want = mro_wire_hdr_len(bth->opcode, seal);
	if (want < 0)
		return MRO_WIRE_OPCODE;
	/* the trailer's kind decides what the CRC covers: not after it */
	if (trailer == METAROCE_SEAL_LEN &&
	    !(mro_wire_flags_valid(bth->opcode) & METAROCE_F_SEALED))
		return MRO_WIRE_FIELD;
	/*
	 * Nothing but ver, opcode and hdr_len before the CRC: either length
	 * may be right (a request's may count a piggybacked ACK); whether the
	 * flags agree is checked after the CRC (mro_wire_parse())
	 */
	hlen = get_unaligned_be16(&bth->hdr_len);
	if (hlen != want &&
	    hlen != mro_wire_hdr_len(bth->opcode, METAROCE_F_ACK_PIGGY | seal))
		return MRO_WIRE_HDR_LEN;
	if (len < (size_t)hlen + trailer)
		return MRO_WIRE_SHORT;
	*hdr_len = hlen;
	return MRO_WIRE_OK;
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_peek);

enum mro_wire_err mro_wire_parse(const void *buf, size_t len,
				 struct mro_hdr *h)
{
	const struct metaroce_bth *bth = buf;
	const void *ext = (const u8 *)buf + METAROCE_BTH_LEN;
	enum mro_wire_err err;

	err = mro_wire_peek(buf, len, &h->hdr_len);
	if (err != MRO_WIRE_OK)
		return err;
	h->opcode = bth->opcode;
	h->flags = get_unaligned_be16(&bth->flags);
	h->dqpn = get_unaligned_be32(&bth->dqpn);
	h->sqpn = get_unaligned_be32(&bth->sqpn);
	h->psn = get_unaligned_be32(&bth->psn);
	h->path = get_unaligned_be16(&bth->path);
	h->path_seq = get_unaligned_be32(&bth->path_seq);
	h->tsval = get_unaligned_be32(&bth->tsval);
	h->payload_len = len - mro_wire_trailer_len(h->flags) - h->hdr_len;

	if (h->hdr_len != mro_wire_hdr_len(h->opcode, h->flags))
		return MRO_WIRE_HDR_LEN;	/* ACK_PIGGY and hdr_len disagree */

	if ((h->flags & ~mro_wire_flags_valid(h->opcode)) ||
	    (h->dqpn & ~METAROCE_QPN_MASK) || (h->sqpn & ~METAROCE_QPN_MASK))
		return MRO_WIRE_FIELD;
	if (h->payload_len && !mro_wire_has_payload(h->opcode))
		return MRO_WIRE_LENGTH;
	h->ack_psn = 0;
	if (h->flags & METAROCE_F_ACK_PIGGY)
		h->ack_psn = get_unaligned_be32((const u8 *)buf + h->hdr_len -
						METAROCE_ACK_PIGGY_LEN);

	switch (h->opcode) {
	case METAROCE_OP_CMP_SWAP:
	case METAROCE_OP_FETCH_ADD:
	case METAROCE_OP_ATOMIC_WRITE:
		return decode_atomic(ext, h->opcode, &h->atomic);
	case METAROCE_OP_FLUSH:
		return decode_flush(ext, &h->flush);
	case METAROCE_OP_ATOMIC_RESP:
		h->orig = get_unaligned_be64(ext);
		return MRO_WIRE_OK;
	case METAROCE_OP_READ_RESP:
		h->rresp.offset = get_unaligned_be32(ext);
		h->rresp.ts_echo = get_unaligned_be32((const u8 *)ext + 4);
		/* u64: offset + payload may not wrap, nor pass IB's 2^31 */
		if ((u64)h->rresp.offset + h->payload_len > MRO_WIRE_MAX_MSG)
			return MRO_WIRE_LENGTH;
		return MRO_WIRE_OK;
	case METAROCE_OP_ACK:
		return decode_ack(ext, &h->ack);
	case METAROCE_OP_UD_SEND:
	case METAROCE_OP_UD_SEND_IMM:
		h->deth.qkey = get_unaligned_be32(ext);
		h->deth.imm = get_unaligned_be32((const u8 *)ext + 4);
		h->deth.key_id = 0;
		h->deth.sender_nonce = 0;
		if (!(h->flags & METAROCE_F_SEALED))
			return MRO_WIRE_OK;
		return decode_dseal((const u8 *)ext + METAROCE_DETH_LEN,
				    &h->deth);
	case METAROCE_OP_PROBE:
	case METAROCE_OP_CREDIT:
		h->ctrl.token = get_unaligned_be32(ext);
		h->ctrl.credit_psn = get_unaligned_be32((const u8 *)ext + 4);
		if (get_unaligned_be32((const u8 *)ext + 8))
			return MRO_WIRE_FIELD;
		return MRO_WIRE_OK;
	case METAROCE_OP_HELLO:
		return decode_hello(ext, &h->hello);
	default:
		return decode_msg(ext, h);
	}
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_parse);

enum mro_wire_err mro_wire_decode(const void *buf, size_t len,
				  struct mro_hdr *h)
{
	enum mro_wire_err err;
	u16 hdr_len;

	err = mro_wire_peek(buf, len, &hdr_len);
	if (err != MRO_WIRE_OK)
		return err;
	/* a sealed packet's tag is checked by its connection (mro_prot.c) */
	if (!(get_unaligned_be16((const u8 *)buf + 2) &
	      METAROCE_F_SEALED) &&
	    !mro_wire_crc_ok(mro_wire_crc(buf, len - METAROCE_CRC_LEN),
			     (const u8 *)buf + len - METAROCE_CRC_LEN))
		return MRO_WIRE_CRC;
	return mro_wire_parse(buf, len, h);
}
EXPORT_SYMBOL_IF_KUNIT(mro_wire_decode);
