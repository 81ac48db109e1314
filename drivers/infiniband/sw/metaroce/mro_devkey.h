/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Device keys for wire protocol v2's packet protection: the keys a device
 * derives its connections' keys from (mro_kdf_conn_keys()), and the
 * protection mode of the connections established from now on.
 *
 * A device holds at most two keys, newest first: the current key, which
 * new connections use, and the previous one, which connections keyed with
 * it use until they end.  Installing a key makes it current, the current
 * one becomes previous and an older previous is wiped.  Removing the
 * current key makes the previous one current again.
 *
 * A key id (1..255) names one key for as long as it is installed: an id
 * that is installed cannot be installed again (-EEXIST), so while key N is
 * installed, every lookup of N returns the same bytes.  Once removed, the
 * id may be installed again with other bytes.  Keys are 16 or 32 bytes
 * (AES-128 or AES-256 device keys); removed keys are wiped with
 * memzero_explicit().
 *
 * The protection mode (enum mro_prot) applies to connections established
 * after it is set.  Auth and encrypt need a current key (-ENOKEY), and
 * while either is set the current key cannot be removed (-EBUSY); the
 * previous key can always be removed.
 *
 * Locking: one spinlock, taken with spin_lock_bh(), guards the keys and the
 * mode; every function here may be called from process or softirq context
 * except mro_devkey_install_logon(), which sleeps.  Readers get copies, so
 * a value read may be out of date as soon as the lock is dropped: a
 * connection takes what it needs in one call (mro_devkey_snapshot(), or
 * mro_devkey_get() for the key id its peer names).
 *
 * The transport's API:
 *   mro_devkey_init(), mro_devkey_destroy()   with the device
 *   mro_devkey_snapshot()  mode, current key id and bytes, taken together:
 *                          what a connection established now uses
 *   mro_devkey_get()       the bytes of the key with a given id
 *   mro_devkey_current()   the current key's id, 0 if none
 *   mro_devkey_mode()      the protection mode
 * The administrator's (mro_sysfs.c: key, key_ids, protection):
 *   mro_devkey_install(), mro_devkey_remove(), mro_devkey_set_mode(),
 *   mro_devkey_ids(), and mro_devkey_install_logon() over a logon key
 * Parsers of what user space writes, pure functions:
 *   mro_devkey_parse_cmd(), mro_prot_parse(), mro_prot_name()
 */
#ifndef MRO_DEVKEY_H
#define MRO_DEVKEY_H

#include <linux/spinlock.h>
#include <linux/types.h>

#include "mro_aead.h"

#define MRO_DEVKEY_SLOTS	2	/* current and previous */
#define MRO_DEVKEY_MAX_LEN	32	/* AES-256; the other length is 16 */

/* one installed key */
struct mro_devkey_slot {
	u8 id;				/* 1..255; 0 when not installed */
	bool installed;
	u8 len;				/* 16 or 32 */
	u8 key[MRO_DEVKEY_MAX_LEN];
};

struct mro_devkey {
	spinlock_t lock;		/* slot and mode; taken with _bh */
	/* slot[0] is the current key, slot[1] the previous */
	struct mro_devkey_slot slot[MRO_DEVKEY_SLOTS];
	enum mro_prot mode;		/* under lock */
};

void mro_devkey_init(struct mro_devkey *k);
void mro_devkey_destroy(struct mro_devkey *k);

/*
 * Copy the key named @id to @key, which has room for MRO_DEVKEY_MAX_LEN
 * bytes, and its length to @len: 0, or -ENOKEY if no key of that id is
 * installed (id 0 included).
 */
int mro_devkey_get(struct mro_devkey *k, u8 id, u8 *key, unsigned int *len);

/* the current key's id, 0 if there is none */
u8 mro_devkey_current(struct mro_devkey *k);

/* the protection mode of the connections established from now on */
enum mro_prot mro_devkey_mode(struct mro_devkey *k);

/*
 * the mode, and in *@held whether a key of id @id is installed (0:
 * never), under one lock
 */
enum mro_prot mro_devkey_mode_holding(struct mro_devkey *k, u8 id,
				      bool *held);

/*
 * What a connection established now uses, taken under one lock: returns
 * the mode, and unless it is MRO_PROT_NONE, the current key's id, bytes
 * (@key has room for MRO_DEVKEY_MAX_LEN) and length, and the previous
 * key's id (0: none), which HELLO offers during a rotation.  With
 * MRO_PROT_NONE, *@id, *@prev_id and *@len are 0 and @key is not written.
 */
enum mro_prot mro_devkey_snapshot(struct mro_devkey *k, u8 *id, u8 *prev_id,
				  u8 *key, unsigned int *len);

/*
 * Set the protection mode: -EINVAL for a mode that does not exist,
 * -ENOKEY for auth or encrypt without a current key.
 */
int mro_devkey_set_mode(struct mro_devkey *k, enum mro_prot mode);

/*
 * Install @len bytes (16 or 32) of @key as key @id (1..255), the new
 * current key: -EINVAL for another id or length, -EEXIST if a key of
 * that id is installed.
 */
int mro_devkey_install(struct mro_devkey *k, u8 id, const u8 *key,
		       unsigned int len);

/*
 * Remove key @id: -ENOKEY if it is not installed, -EBUSY if it is the
 * current key and the mode is not MRO_PROT_NONE.
 */
int mro_devkey_remove(struct mro_devkey *k, u8 id);

/* the installed ids, current first: returns how many (0..2) */
unsigned int mro_devkey_ids(struct mro_devkey *k,
			    u8 ids[MRO_DEVKEY_SLOTS]);

/*
 * Install as key @id the payload of the logon key @desc, looked up with
 * request_key() in the caller's keyrings and read under its semaphore.
 * Process context, sleeps.  Errors: request_key()'s (-ENOKEY when there is
 * no such key), -EKEYREVOKED, -EINVAL for a payload that is not 16 or 32
 * bytes, and those of mro_devkey_install().
 */
int mro_devkey_install_logon(struct mro_devkey *k, u8 id, const char *desc);

/* what a write to the `key` attribute asks for */
struct mro_devkey_cmd {
	bool remove;		/* "-ID" */
	u8 id;			/* 1..255 */
	const char *desc;	/* "ID DESC": DESC, inside the parsed buffer */
	size_t desc_len;	/* not NUL-terminated there */
};

/*
 * Parse "ID DESCRIPTION" or "-ID" (ID decimal 1..255, one space, a
 * description without white space; one trailing newline allowed):
 * 0 or -EINVAL.
 */
int mro_devkey_parse_cmd(const char *buf, size_t count,
			 struct mro_devkey_cmd *cmd);

/* "none", "auth", "encrypt" (a trailing newline allowed) or -EINVAL */
int mro_prot_parse(const char *buf, enum mro_prot *mode);
const char *mro_prot_name(enum mro_prot mode);

#endif /* MRO_DEVKEY_H */
