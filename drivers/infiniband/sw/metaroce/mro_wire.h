/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce wire layer: the only code that touches byte order.  Decodes a
 * received UDP payload into host-order structs after bounding every field,
 * and encodes host-order structs into a packet.  Pure C, driven by KUnit.
 */
#ifndef MRO_WIRE_H
#define MRO_WIRE_H

#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/types.h>
#include <rdma/metaroce_wire.h>

/* why a packet was refused; indexes the drop counters */
enum mro_wire_err {
	MRO_WIRE_OK = 0,
	MRO_WIRE_SHORT,		/* shorter than its headers and CRC */
	MRO_WIRE_VERSION,	/* unknown version or reserved nibble set */
	MRO_WIRE_OPCODE,	/* unknown opcode */
	MRO_WIRE_HDR_LEN,	/* hdr_len disagrees with the opcode */
	MRO_WIRE_CRC,		/* CRC32C mismatch */
	MRO_WIRE_FIELD,		/* reserved bits, QPN range, bad flags... */
	MRO_WIRE_LENGTH,	/* payload/offset/length inconsistent */
	MRO_WIRE_NR_ERR
};

struct mro_msg_hdr {
	u32 msn;
	u32 offset;
	u32 length;
	u32 imm;
	u64 va;
	u32 rkey;
	u32 first_psn;
};

struct mro_atomic_hdr {
	u64 va;
	u32 rkey;
	u32 msn;
	u64 swap_add;
	u64 compare;
};

struct mro_flush_hdr {
	u64 va;
	u32 rkey;
	u32 length;
	u32 msn;
	u8 type;		/* METAROCE_FLUSH_GLOBAL | _PERSISTENT */
	u8 level;		/* METAROCE_FLUSH_RANGE or _MR */
};

struct mro_ack_hdr {
	u8 syndrome;
	u8 nak_code;
	u16 sack_bits;
	u32 cum_psn;
	u32 nak_psn;
	u32 credit_psn;
	u64 sack[METAROCE_SACK_WORDS];
	u32 ts_echo;
	u16 echo_path;
	u16 ecn_ce;
	u32 echo_seq;
};

struct mro_read_resp_hdr {
	u32 offset;
	u32 ts_echo;
};

struct mro_deth_hdr {
	u32 qkey;
	u32 imm;
	/* the datagram seal extension, on a sealed datagram only */
	u8 key_id;
	u64 sender_nonce;	/* 56 bits */
};

struct mro_ctrl_hdr {
	u32 token;
	u32 credit_psn;
};

struct mro_hello_hdr {
	u8 prot;		/* enum metaroce_prot */
	u8 key_id;
	u8 prev_key_id;
	u16 ack_every;
	u16 msg_window;
	u16 sack_bits;
	u32 window;
	u64 nonce;		/* never 0 */
	u64 echo;
};

/* a decoded (or to-be-encoded) packet header, host byte order */
struct mro_hdr {
	u8 opcode;
	u16 flags;
	u32 dqpn;
	u32 sqpn;
	u32 psn;
	u16 path;
	u16 hdr_len;		/* filled by encode and decode */
	u32 path_seq;
	u32 tsval;
	union {
		struct mro_msg_hdr msg;
		struct mro_read_resp_hdr rresp;
		struct mro_atomic_hdr atomic;	/* also ATOMIC_WRITE */
		struct mro_flush_hdr flush;
		u64 orig;	/* ATOMIC_RESP */
		struct mro_ack_hdr ack;
		struct mro_deth_hdr deth;
		struct mro_ctrl_hdr ctrl;
		struct mro_hello_hdr hello;
	};
	u32 ack_psn;		/* with METAROCE_F_ACK_PIGGY */
	u32 payload_len;	/* filled by decode */
	bool ce;		/* receive path: outer IP header was CE */
};

/* length of the extension header of @opcode, or -1 for an unknown opcode */
int mro_wire_ext_len(u8 opcode);
/* bth + extension (+ piggybacked ACK) of a packet, or -1 (unknown opcode) */
int mro_wire_hdr_len(u8 opcode, u16 flags);
/* bytes after the payload: METAROCE_SEAL_LEN if sealed, else the CRC's */
u32 mro_wire_trailer_len(u16 flags);
/* whether packets with @opcode may carry payload */
bool mro_wire_has_payload(u8 opcode);
/* whether @opcode is a request from requester to responder */
bool mro_wire_is_request(u8 opcode);
/* UD_SEND or UD_SEND_IMM */
bool mro_wire_is_datagram(u8 opcode);

/* the datagram nonce of struct metaroce_dseal: 56 bits */
#define MRO_WIRE_DSEAL_NONCE_MASK	0x00ffffffffffffffULL
/* the METAROCE_F_* flags a packet with @opcode may carry */
u16 mro_wire_flags_valid(u8 opcode);

/* CRC32C as carried on the wire, over @len bytes */
u32 mro_wire_crc(const void *buf, size_t len);
/*
 * The same in pieces: start from MRO_WIRE_CRC_SEED, feed every piece in
 * order to mro_wire_crc_add(), and the wire CRC is the complement (~) of
 * the result.
 */
#define MRO_WIRE_CRC_SEED	(~0U)
u32 mro_wire_crc_add(u32 state, const void *buf, size_t len);
/* whether @crc equals the big-endian CRC field at @field */
bool mro_wire_crc_ok(u32 crc, const void *field);

/*
 * Write bth and extension of @h into @buf (at least @room bytes).
 * Returns the header length, or 0 if @h is not encodable or @room is short.
 */
size_t mro_wire_encode(struct mro_hdr *h, void *buf, size_t room);

/* append the CRC of the first @len bytes of @buf at @buf + @len */
void mro_wire_seal(void *buf, size_t len);

/*
 * Receiving is three steps, so the payload of a packet need not be flat:
 * 1. mro_wire_peek(): @buf holds at least METAROCE_BTH_LEN bytes (or the
 *    whole packet if it is shorter) of a UDP payload of @len bytes (CRC
 *    included).  Checks version, opcode and header length against @len
 *    and returns the header length in @hdr_len.
 * 2. the caller checks the CRC over the first @len - METAROCE_CRC_LEN bytes
 *    (mro_wire_crc_add() per piece, mro_wire_crc_ok()), unless the packet
 *    is METAROCE_F_SEALED: its connection checks its tag (mro_prot.c).
 * 3. mro_wire_parse(): @buf now holds the @hdr_len header bytes.  Repeats
 *    step 1, decodes and bounds every field into @h (payload_len included:
 *    the payload is the bytes [hdr_len, hdr_len + payload_len)).
 * Each returns MRO_WIRE_OK or why the packet is refused.
 */
enum mro_wire_err mro_wire_peek(const void *buf, size_t len, u16 *hdr_len);
enum mro_wire_err mro_wire_parse(const void *buf, size_t len,
				 struct mro_hdr *h);

/*
 * All three steps on the flat UDP payload @buf of @len bytes (CRC
 * included; a sealed packet's tag is left to its connection).  On
 * success fills @h (payload starts at @buf + h->hdr_len and is
 * h->payload_len bytes) and returns MRO_WIRE_OK.
 */
enum mro_wire_err mro_wire_decode(const void *buf, size_t len,
				  struct mro_hdr *h);

/*
 * Payload bytes per RC/UC packet, from the QP's path MTU (@path_bytes, an
 * IB MTU) and what the netdev leaves after the worst-case headers
 * (@room).  rdma_cm and perftest round the link's real MTU down to an IB
 * MTU (1024 for a 1500-byte Ethernet MTU), so the path carries anything
 * below twice it.  With @fill, packets take what the netdev allows within
 * that bound, in multiples of 8 bytes: 1384 bytes instead of 1024 at a
 * 1500-byte MTU, so a 4 KiB message takes 3 packets, not 4.  Never less than
 * min(@path_bytes, @room), the RoCE rule that !@fill keeps.
 */
static inline u32 mro_wire_rc_mtu(u32 path_bytes, u32 room, bool fill)
{
	u32 low = min(path_bytes, room), high;

	if (!fill || path_bytes > U32_MAX / 2)
		return low;
	high = min(room, 2 * path_bytes - 1) & ~7U;
	return max(high, low);
}

#endif /* MRO_WIRE_H */
