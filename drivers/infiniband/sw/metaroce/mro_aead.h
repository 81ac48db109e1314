/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Packet protection for wire protocol v2: AES-GCM over one direction of a
 * connection, keyed with a key of mro_kdf_conn_keys(), and the receiver's
 * replay window.  Pure C over the kernel crypto API, driven by KUnit.
 *
 * Every transmission of a packet, a retransmission included, is sealed
 * with the next value of its direction's 64-bit transmission counter.
 * The counter travels in the packet (MRO_AEAD_SEQ_LEN bytes, big-endian,
 * mro_aead_put_seq()) and, with the key id and the direction, forms the
 * GCM nonce (mro_aead_nonce(), whose layout mro_aead.c specifies).  It is
 * not part of the sealed bytes: it is authenticated through the nonce, so
 * a changed counter makes the receiver rebuild another nonce and the tag
 * check fail.
 *
 * Locking: an mro_aead_dir holds one crypto request, and seal advances its
 * counter, so the caller serializes every call on one mro_aead_dir (the
 * sender's on its transmit context, the receiver's on its receive
 * context).  An mro_replay is likewise protected by the caller's lock.
 * Neither sleeps in seal or open: both may run in softirq context.
 */
#ifndef MRO_AEAD_H
#define MRO_AEAD_H

#include <linux/bitops.h>
#include <linux/limits.h>
#include <linux/types.h>
#include <rdma/metaroce_wire.h>

struct crypto_aead;
struct aead_request;

#define MRO_AEAD_TAG_LEN	16	/* appended to every protected packet */
#define MRO_AEAD_NONCE_LEN	12
#define MRO_AEAD_SEQ_LEN	8	/* the counter as carried in the packet */

/*
 * The last counter value a packet may be sealed with.  U64_MAX is never
 * used: once a direction's counter reaches it, seal fails with
 * -EKEYEXPIRED and the connection must rekey.
 */
#define MRO_AEAD_SEQ_MAX	(U64_MAX - 1)

/* the direction byte of the nonce: the KDF's direction byte of the key */
#define MRO_AEAD_DIR_LO		'L'	/* the packets the lower end sends */
#define MRO_AEAD_DIR_HI		'H'	/* the packets the higher end sends */
#define MRO_AEAD_DIR_DGRAM	'D'	/* a UD QP's datagrams (mro_dgram.c) */

/* the wire's enum metaroce_prot (HELLO's prot carries it) */
enum mro_prot {
	MRO_PROT_NONE = METAROCE_PROT_NONE,
	/* the whole packet is associated data; nothing is encrypted */
	MRO_PROT_AUTH = METAROCE_PROT_AUTH,
	/* the header is associated data; the payload is encrypted in place */
	MRO_PROT_ENCRYPT = METAROCE_PROT_ENCRYPT,
};

/*
 * one direction of a connection, at the sender or at the receiver: the
 * same key in two transforms, used where each may run (see mro_aead.c)
 */
struct mro_aead_dir {
	struct crypto_aead *tfm;	/* gcm(aes), synchronous */
	struct aead_request *req;	/* reused by every call */
	struct crypto_aead *simd_tfm;	/* vector gcm(aes), or NULL */
	struct aead_request *simd_req;
	u8 key_id;
	u8 dir;				/* MRO_AEAD_DIR_LO or _HI */
	u64 next_seq;			/* the sender's next counter value */
};

/*
 * The direction bytes of a connection's two nonces: the end with the lower
 * HELLO nonce (an unsigned 64-bit number) sends as L, the other as H.  A QP
 * connected to itself (@one_flow: the same GID and QPN at both ends) has
 * one nonce and one flow: L both ways, as its key is L's both ways.  Equal
 * nonces of two ends are refused (-EINVAL): their packets would share one
 * nonce sequence.
 */
int mro_aead_dirs(u64 own_nonce, u64 peer_nonce, bool one_flow, u8 *dir_tx,
		  u8 *dir_rx);

int mro_aead_warm_up(void);
int mro_aead_dir_init(struct mro_aead_dir *d, const u8 *key,
		      unsigned int key_len, u8 key_id, u8 dir);
void mro_aead_dir_destroy(struct mro_aead_dir *d);

void mro_aead_nonce(u8 nonce[MRO_AEAD_NONCE_LEN], u8 key_id, u8 dir, u64 seq);
void mro_aead_put_seq(u8 *p, u64 seq);
u64 mro_aead_get_seq(const u8 *p);

int mro_aead_seal(struct mro_aead_dir *d, enum mro_prot mode, u8 *pkt,
		  unsigned int hdr_len, unsigned int len, u64 *seq_out);
/*
 * Seal a whole packet of @pkt_len bytes whose last METAROCE_SEAL_LEN are
 * its trailer: the tag after the payload, the counter value after the
 * tag (the layout of protocol.rst, Protection).
 */
int mro_aead_seal_packet(struct mro_aead_dir *d, enum mro_prot mode, u8 *pkt,
			 unsigned int hdr_len, unsigned int pkt_len);
int mro_aead_open(struct mro_aead_dir *d, enum mro_prot mode, u8 *pkt,
		  unsigned int hdr_len, unsigned int len_with_tag, u64 seq);

#if IS_ENABLED(CONFIG_KUNIT)
int mro_aead_seal_nonce(struct mro_aead_dir *d, enum mro_prot mode,
			const u8 nonce[MRO_AEAD_NONCE_LEN], u8 *pkt,
			unsigned int hdr_len, unsigned int len);
#endif

/* the transmissions a receiver remembers behind the newest it accepted */
#define MRO_REPLAY_WIN		1024

/*
 * The receiver's replay window over one direction's counter values.
 * top is one more than the highest value committed (0: none yet); bit
 * (seq % MRO_REPLAY_WIN) of bits says whether seq was committed, for the
 * MRO_REPLAY_WIN values top - MRO_REPLAY_WIN .. top - 1.
 */
struct mro_replay {
	u64 top;
	DECLARE_BITMAP(bits, MRO_REPLAY_WIN);
};

void mro_replay_init(struct mro_replay *w);
bool mro_replay_check(const struct mro_replay *w, u64 seq);
bool mro_replay_commit(struct mro_replay *w, u64 seq);

#endif /* MRO_AEAD_H */
