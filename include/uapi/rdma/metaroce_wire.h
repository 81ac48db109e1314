/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * metaroce wire format, version 2.
 *
 * Every metaroce packet is a UDP datagram to the metaroce destination port
 * (module parameter, default METAROCE_DEFAULT_UDP_PORT).  The UDP source port
 * names the path the packet took.  The UDP payload is:
 *
 *   struct metaroce_bth            every packet
 *   one extension header           chosen by bth.opcode (see below)
 *   __be32 ack_psn                 requests with METAROCE_F_ACK_PIGGY only
 *   payload                        data packets only
 *   __be32 crc                     CRC32C over everything above
 *
 * or, on a protected connection (METAROCE_F_SEALED), instead of the CRC:
 *
 *   __u8 tag[16]                   AES-GCM tag over everything above
 *   __be64 seq                     the sender's transmission counter
 *
 * All multi-byte fields are big-endian.  The protocol is specified in
 * Documentation/metaroce/protocol.rst; keep both in step.
 */
#ifndef _UAPI_RDMA_METAROCE_WIRE_H
#define _UAPI_RDMA_METAROCE_WIRE_H

#include <linux/types.h>

#define METAROCE_WIRE_VERSION		2
#define METAROCE_DEFAULT_UDP_PORT	4796

/*
 * The UDP source ports of metaroce packets, one per path: 512-1023,
 * privileged ports, which a local user without CAP_NET_BIND_SERVICE
 * cannot send from (net.ipv4.ip_unprivileged_port_start, 1024 by
 * default).  A receiver drops a datagram from any other source port.
 */
#define METAROCE_SPORT_BASE		0x0200
#define METAROCE_SPORT_MASK		0x01ff

/*
 * Receive-consuming messages (SEND*, WRITE_IMM) a responder tracks: an RC
 * requester starts message msn only once every message before
 * msn - METAROCE_MSG_WINDOW is acknowledged
 */
#define METAROCE_MSG_WINDOW		64

/*
 * The responder's ACK rhythm: it acknowledges at least every
 * METAROCE_ACK_EVERY PSNs of a connection without being asked, so a
 * requester's PSN psn with psn % METAROCE_ACK_EVERY == METAROCE_ACK_EVERY - 1
 * is answered like one that carries METAROCE_F_ACK_REQ.
 */
#define METAROCE_ACK_EVERY		32

/* PSNs in flight per connection: a power of two in this range */
#define METAROCE_WINDOW_MIN		64
#define METAROCE_WINDOW_MAX		16384

/* bth.opcode */
enum metaroce_opcode {
	/* requests: connection (RC/UC) data */
	METAROCE_OP_SEND		= 0x01,
	METAROCE_OP_SEND_IMM		= 0x02,
	METAROCE_OP_SEND_INV		= 0x03,
	METAROCE_OP_WRITE		= 0x04,
	METAROCE_OP_WRITE_IMM		= 0x05,
	METAROCE_OP_READ_REQ		= 0x06,
	METAROCE_OP_CMP_SWAP		= 0x07,
	METAROCE_OP_FETCH_ADD		= 0x08,
	METAROCE_OP_FLUSH		= 0x09,
	METAROCE_OP_ATOMIC_WRITE	= 0x0a,
	/* responses (flow from responder to requester) */
	METAROCE_OP_READ_RESP		= 0x10,
	METAROCE_OP_ATOMIC_RESP		= 0x11,
	METAROCE_OP_ACK			= 0x12,
	/* datagram */
	METAROCE_OP_UD_SEND		= 0x20,
	METAROCE_OP_UD_SEND_IMM		= 0x21,
	/* control */
	METAROCE_OP_PROBE		= 0x30,
	METAROCE_OP_CREDIT		= 0x31,
	METAROCE_OP_HELLO		= 0x32,
};

/* bth.flags */
#define METAROCE_F_FIRST	0x0001	/* first packet of a message */
#define METAROCE_F_LAST		0x0002	/* last packet of a message */
#define METAROCE_F_ACK_REQ	0x0004	/* sender asks for an immediate ACK */
#define METAROCE_F_SOLICITED	0x0008	/* solicited event on completion */
#define METAROCE_F_RETX		0x0010	/* this is a retransmission */
#define METAROCE_F_ECT		0x0020	/* sender set ECT on this packet */
#define METAROCE_F_ALL		0x003f	/* the flags any opcode may carry */
/*
 * PROBE only: a re-probe of a retired path slot, sent from a fresh source
 * port; the responder answers it, and sends on that slot from then on,
 * from a fresh source port of its own.
 */
#define METAROCE_F_NEW_PORT	0x0040
/*
 * Requests only: a __be32 follows the extension header (counted in
 * hdr_len), the sender's own cumulative ACK as a responder (an ACK's
 * cum_psn: every PSN before it of the connection's other direction has
 * arrived).  The receiver applies it before the request, so a request
 * that overtook its sender's last ACK on another path cannot complete
 * before the WQE that ACK completes (the order a single-path fabric
 * gives).
 */
#define METAROCE_F_ACK_PIGGY	0x0080
#define METAROCE_ACK_PIGGY_LEN	4
/*
 * Every opcode but HELLO: the packet is protected (protocol.rst, Packet
 * protection) and ends in METAROCE_SEAL_LEN bytes, a 16-byte AES-GCM tag
 * and the sender's 64-bit transmission counter, instead of the CRC; a
 * sealed UD_SEND or UD_SEND_IMM also carries struct metaroce_dseal.
 */
#define METAROCE_F_SEALED	0x0100
#define METAROCE_SEAL_LEN	24

/*
 * Headers follow each other without padding, so 64-bit fields may be
 * misaligned in a packet: read and write them with the unaligned helpers.
 *
 * Base transport header, 28 bytes, on every packet.
 *
 * @ver:      METAROCE_WIRE_VERSION in the high nibble, low nibble reserved (0)
 * @opcode:   enum metaroce_opcode
 * @flags:    METAROCE_F_*
 * @dqpn:     destination QP number (24 bits used, high byte must be 0)
 * @sqpn:     source QP number (24 bits used); checked against the connection
 * @psn:      connection-wide packet sequence number (32-bit, wraps)
 * @path:     sender's path slot that carried this packet
 * @hdr_len:  bytes from the start of the bth to the payload (bth + extension)
 * @path_seq: per-path sequence number of this transmission (wraps)
 * @tsval:    sender timestamp in microseconds (wraps), echoed in ACKs
 */
struct metaroce_bth {
	__u8	ver;
	__u8	opcode;
	__be16	flags;
	__be32	dqpn;
	__be32	sqpn;
	__be32	psn;
	__be16	path;
	__be16	hdr_len;
	__be32	path_seq;
	__be32	tsval;
};

/*
 * Message extension, 32 bytes, on SEND*, WRITE* and READ_REQ.
 * It makes every data packet self-describing: the receiver can place it
 * without having seen any other packet of the message.
 *
 * @msn:    message sequence number: ordinal of the message among
 *          those that consume a receive WQE (SEND*, WRITE_IMM); for other
 *          requests the value the next consuming message will carry.
 * @offset: byte offset of this packet's payload inside the message
 *          (READ_REQ: first byte requested)
 * @length: total message length in bytes (READ_REQ: bytes requested from
 *          @offset)
 * @imm:    immediate data (SEND_IMM, WRITE_IMM) or rkey to invalidate
 *          (SEND_INV); READ_REQ: response segment size in bytes, 256..65536:
 *          response k carries bytes offset + k * imm onwards with PSN
 *          psn + k, so the requester alone decides the segmentation; 0
 *          otherwise
 * @va:     WRITE, WRITE_IMM, READ_REQ: remote virtual address of byte 0 of the message;
 *          0 otherwise
 * @rkey:   WRITE, WRITE_IMM, READ_REQ: remote key; 0 otherwise
 * @first_psn: PSN of the first packet of the message
 */
struct metaroce_msg {
	__be32	msn;
	__be32	offset;
	__be32	length;
	__be32	imm;
	__be64	va;
	__be32	rkey;
	__be32	first_psn;
};

/*
 * Atomic extension, 32 bytes, on CMP_SWAP, FETCH_ADD and ATOMIC_WRITE.
 * @va:       remote address, 8-byte aligned
 * @swap_add: swap value (CMP_SWAP), addend (FETCH_ADD), or for
 *            ATOMIC_WRITE the 8 bytes to store, read as a big-endian
 *            number (the responder stores them in the same byte order, so
 *            memory receives exactly the requester's 8 bytes)
 * @compare:  compare value (CMP_SWAP), 0 for FETCH_ADD and ATOMIC_WRITE
 */
struct metaroce_atomic {
	__be64	va;
	__be32	rkey;
	__be32	msn;
	__be64	swap_add;
	__be64	compare;
};

/* metaroce_flush.type: what the flush must achieve (bits, IB values) */
#define METAROCE_FLUSH_GLOBAL		0x01	/* global visibility */
#define METAROCE_FLUSH_PERSISTENT	0x02	/* persistence */
/* metaroce_flush.level: what it covers (IB values) */
#define METAROCE_FLUSH_RANGE		0	/* [va, va + length) */
#define METAROCE_FLUSH_MR		1	/* the whole region of rkey */

/*
 * FLUSH extension, 24 bytes (IB's RETH + FETH in one).
 * @va:     first byte (FLUSH_RANGE); ignored for FLUSH_MR
 * @rkey:   remote key of the region (or window) to flush
 * @length: bytes from @va (FLUSH_RANGE); ignored for FLUSH_MR
 * @msn:    as in metaroce_atomic
 * @type:   METAROCE_FLUSH_* bits, at least one
 * @level:  METAROCE_FLUSH_RANGE or METAROCE_FLUSH_MR
 * @rsvd:   0
 */
struct metaroce_flush {
	__be64	va;
	__be32	rkey;
	__be32	length;
	__be32	msn;
	__u8	type;
	__u8	level;
	__be16	rsvd;
};

/*
 * READ_RESP extension, 8 bytes.  Response k to the READ_REQ with PSN p
 * has PSN p + k and carries the bytes of the READ from @offset on; the
 * requester knows the rest (length, segment, addresses) from its request.
 * @offset:  byte offset of the payload in the READ (the READ_REQ's offset
 *           + k * its segment size)
 * @ts_echo: the READ_REQ's tsval, which tells the requester which of its
 *           transmissions of the request was answered; 0: no echo
 */
struct metaroce_read_resp {
	__be32	offset;
	__be32	ts_echo;
};

/* ATOMIC_RESP extension, 8 bytes: the value found before the operation */
struct metaroce_atomic_resp {
	__be64	orig;
};

/* metaroce_ack.syndrome */
enum metaroce_syndrome {
	METAROCE_SYN_ACK		= 0,
	METAROCE_SYN_RNR_NAK		= 1,	/* no receive WQE; retry later */
	METAROCE_SYN_NAK_INVALID	= 2,	/* invalid request */
	METAROCE_SYN_NAK_ACCESS		= 3,	/* remote access error */
	METAROCE_SYN_NAK_OP		= 4,	/* remote operational error */
	METAROCE_SYN_NAK_RANGE		= 5,	/* PSN outside the receive window */
	METAROCE_SYN_MAX		= METAROCE_SYN_NAK_RANGE,
};

#define METAROCE_SACK_BITS	128
#define METAROCE_SACK_WORDS	(METAROCE_SACK_BITS / 64)

/*
 * ACK extension, 48 bytes (opcode ACK).  bth.psn of an ACK is unused (0).
 *
 * @syndrome:  enum metaroce_syndrome
 * @nak_code:  RNR_NAK: RNR timer code (IB encoding); other NAKs: detail
 * @sack_bits: number of valid bits in @sack (0..METAROCE_SACK_BITS)
 * @cum_psn:   every PSN before this one has been received (next expected)
 * @nak_psn:   PSN the NAK refers to (0 for a plain ACK)
 * @credit_psn: receiver grant: the sender may transmit PSNs before this
 *             one (cumulative, so a lost ACK loses no credit)
 * @sack:      bit i (word i / 64, bit i % 64) set: PSN cum_psn + 1 + i
 *             has been received; cum_psn itself is missing by definition
 * @ts_echo:   tsval of the packet that triggered this ACK
 * @echo_path: path slot of the packet that triggered this ACK
 * @ecn_ce:    CE-marked packets received so far (cumulative, wraps)
 * @echo_seq:  path_seq of the packet that triggered this ACK
 * @rsvd:      0
 */
struct metaroce_ack {
	__u8	syndrome;
	__u8	nak_code;
	__be16	sack_bits;
	__be32	cum_psn;
	__be32	nak_psn;
	__be32	credit_psn;
	__be64	sack[METAROCE_SACK_WORDS];
	__be32	ts_echo;
	__be16	echo_path;
	__be16	ecn_ce;
	__be32	echo_seq;
	__be32	rsvd;
};

/* Datagram extension, 8 bytes, on UD_SEND and UD_SEND_IMM */
struct metaroce_deth {
	__be32	qkey;
	__be32	imm;
};

/*
 * Datagram seal extension, 8 bytes, right after the datagram extension on
 * a sealed UD_SEND or UD_SEND_IMM (protocol.rst, Packet protection,
 * Datagrams): the id of the device key the sender sealed with and the
 * sending QP's datagram nonce (56 bits, big-endian, random, never 0), which
 * with its QPN name the sender's key.
 */
struct metaroce_dseal {
	__u8	key_id;
	__u8	sender_nonce[7];
};

/*
 * PROBE and CREDIT control extension, 12 bytes.
 * PROBE: @token is the probe's path_seq; a PROBE carries
 * METAROCE_F_ACK_REQ and is answered by an ACK whose echo_seq echoes it;
 * CREDIT: @credit_psn as in metaroce_ack.
 */
struct metaroce_ctrl {
	__be32	token;
	__be32	credit_psn;
	__be32	rsvd;
};

/* metaroce_hello.prot: how the connection's packets are protected */
enum metaroce_prot {
	METAROCE_PROT_NONE		= 0,	/* CRC32C only */
	METAROCE_PROT_AUTH		= 1,	/* authenticated */
	METAROCE_PROT_ENCRYPT		= 2,	/* payload encrypted too */
	METAROCE_PROT_MAX		= METAROCE_PROT_ENCRYPT,
};

/*
 * HELLO extension, 32 bytes (opcode HELLO, RC and UC connections): what
 * the sending end of a connection requires of the other, and the
 * connection's two nonces.  Each end sends one when its QP enters RTS;
 * bth.psn is the first PSN the sender sends on the connection (the
 * peer's rq_psn), bth.path and bth.path_seq 0, bth.tsval as on any
 * packet.  A HELLO with METAROCE_F_ACK_REQ asks for a HELLO back.  The
 * receiver compares every field but the nonces with its own values: any
 * difference ends the connection on that end (protocol.rst,
 * Negotiation).
 *
 * @prot:       enum metaroce_prot
 * @key_id:     the sender's current device key; 0 with PROT_NONE
 * @prev_key_id: the sender's previous device key, 0 if none (rotation:
 *              the connection is keyed with a key both ends hold)
 * @ack_every:  METAROCE_ACK_EVERY of the sender
 * @msg_window: METAROCE_MSG_WINDOW of the sender
 * @sack_bits:  METAROCE_SACK_BITS of the sender
 * @rsvd:       0
 * @window:     PSNs in flight per QP (METAROCE_WINDOW_MIN..MAX, power of 2)
 * @nonce:      the sender's, random, fixed for the connection, never 0
 * @echo:       the receiver's nonce as the sender last saw it, 0 if none
 */
struct metaroce_hello {
	__u8	prot;
	__u8	key_id;
	__be16	ack_every;
	__be16	msg_window;
	__be16	sack_bits;
	__u8	prev_key_id;
	__u8	rsvd[3];
	__be32	window;
	__be64	nonce;
	__be64	echo;
};

#define METAROCE_BTH_LEN	28
#define METAROCE_MSG_LEN	32
#define METAROCE_ATOMIC_LEN	32
#define METAROCE_ATOMIC_RESP_LEN 8
#define METAROCE_READ_RESP_LEN	8
#define METAROCE_FLUSH_LEN	24
#define METAROCE_ACK_LEN	48
#define METAROCE_DETH_LEN	8
#define METAROCE_DSEAL_LEN	8
#define METAROCE_CTRL_LEN	12
#define METAROCE_HELLO_LEN	32
#define METAROCE_CRC_LEN	4

#define METAROCE_QPN_MASK	0x00ffffff

#endif /* _UAPI_RDMA_METAROCE_WIRE_H */
