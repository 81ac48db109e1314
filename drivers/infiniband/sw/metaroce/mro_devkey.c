// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device keys: the store of a device's (at most) two keys and its
 * protection mode, the parsers of what the administrator writes, and the
 * install of a logon key from the writer's keyrings.  The rules are in
 * mro_devkey.h; the sysfs attributes are in mro_sysfs.c.
 */
#include <keys/user-type.h>
#include <linux/bug.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/key.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "mro_devkey.h"

#define MRO_DEVKEY_CUR	0
#define MRO_DEVKEY_PREV	1

static const char *const mro_prot_names[] = {
	[MRO_PROT_NONE] = "none",
	[MRO_PROT_AUTH] = "auth",
	[MRO_PROT_ENCRYPT] = "encrypt",
};

static bool mro_devkey_len_ok(unsigned int len)
{
	return len == 16 || len == 32;
}

static void mro_devkey_wipe(struct mro_devkey_slot *s)
{
	memzero_explicit(s, sizeof(*s));
}

/* the slot of key @id, or -1; caller holds the lock */
static int mro_devkey_find(struct mro_devkey *k, u8 id)
{
	int i;

	lockdep_assert_held(&k->lock);
	if (!id)
		return -1;
	for (i = 0; i < MRO_DEVKEY_SLOTS; i++)
		if (k->slot[i].installed && k->slot[i].id == id)
			return i;
	return -1;
}

void mro_devkey_init(struct mro_devkey *k)
{
	spin_lock_init(&k->lock);
	memset(k->slot, 0, sizeof(k->slot));
	k->mode = MRO_PROT_NONE;
}

void mro_devkey_destroy(struct mro_devkey *k)
{
	int i;

	spin_lock_bh(&k->lock);
	for (i = 0; i < MRO_DEVKEY_SLOTS; i++)
		mro_devkey_wipe(&k->slot[i]);
	k->mode = MRO_PROT_NONE;
	spin_unlock_bh(&k->lock);
}

int mro_devkey_get(struct mro_devkey *k, u8 id, u8 *key, unsigned int *len)
{
	int i, err = -ENOKEY;

	spin_lock_bh(&k->lock);
	i = mro_devkey_find(k, id);
	if (i >= 0) {
		memcpy(key, k->slot[i].key, k->slot[i].len);
		*len = k->slot[i].len;
		err = 0;
	}
	spin_unlock_bh(&k->lock);
	return err;
}

u8 mro_devkey_current(struct mro_devkey *k)
{
	u8 id;

	spin_lock_bh(&k->lock);
	id = k->slot[MRO_DEVKEY_CUR].installed ? k->slot[MRO_DEVKEY_CUR].id : 0;
	spin_unlock_bh(&k->lock);
	return id;
}

enum mro_prot mro_devkey_mode(struct mro_devkey *k)
{
	enum mro_prot mode;

	spin_lock_bh(&k->lock);
	mode = k->mode;
	spin_unlock_bh(&k->lock);
	return mode;
}

enum mro_prot mro_devkey_mode_holding(struct mro_devkey *k, u8 id,
				      bool *held)
{
	enum mro_prot mode;

	spin_lock_bh(&k->lock);
	mode = k->mode;
	*held = mro_devkey_find(k, id) >= 0;
	spin_unlock_bh(&k->lock);
	return mode;
}

enum mro_prot mro_devkey_snapshot(struct mro_devkey *k, u8 *id, u8 *prev_id,
				  u8 *key, unsigned int *len)
{
	struct mro_devkey_slot *cur = &k->slot[MRO_DEVKEY_CUR];
	struct mro_devkey_slot *prev = &k->slot[MRO_DEVKEY_PREV];
	enum mro_prot mode;

	*id = 0;
	*prev_id = 0;
	*len = 0;
	spin_lock_bh(&k->lock);
	mode = k->mode;
	/* set_mode and remove keep a current key under auth and encrypt */
	if (mode != MRO_PROT_NONE && !WARN_ON_ONCE(!cur->installed)) {
		memcpy(key, cur->key, cur->len);
		*len = cur->len;
		*id = cur->id;
		*prev_id = prev->installed ? prev->id : 0;
	}
	spin_unlock_bh(&k->lock);
	return *id ? mode : MRO_PROT_NONE;
}

int mro_devkey_set_mode(struct mro_devkey *k, enum mro_prot mode)
{
	int err = 0;

	if (mode != MRO_PROT_NONE && mode != MRO_PROT_AUTH &&
	    mode != MRO_PROT_ENCRYPT)
		return -EINVAL;
	spin_lock_bh(&k->lock);
	if (mode != MRO_PROT_NONE && !k->slot[MRO_DEVKEY_CUR].installed)
		err = -ENOKEY;
	else
		k->mode = mode;
	spin_unlock_bh(&k->lock);
	return err;
}

int mro_devkey_install(struct mro_devkey *k, u8 id, const u8 *key,
		       unsigned int len)
{
	struct mro_devkey_slot *cur = &k->slot[MRO_DEVKEY_CUR];
	struct mro_devkey_slot *prev = &k->slot[MRO_DEVKEY_PREV];
	int err = 0;

	if (!id || !mro_devkey_len_ok(len))
		return -EINVAL;
	spin_lock_bh(&k->lock);
	if (mro_devkey_find(k, id) >= 0) {
		err = -EEXIST;
		goto out;
	}
	/* the previous key goes, the current one becomes previous */
	memcpy(prev, cur, sizeof(*prev));
	mro_devkey_wipe(cur);
	cur->id = id;
	cur->len = len;
	memcpy(cur->key, key, len);
	cur->installed = true;
out:
	spin_unlock_bh(&k->lock);
	return err;
}

int mro_devkey_remove(struct mro_devkey *k, u8 id)
{
	int i, err = 0;

	spin_lock_bh(&k->lock);
	i = mro_devkey_find(k, id);
	if (i < 0) {
		err = -ENOKEY;
	} else if (i == MRO_DEVKEY_CUR && k->mode != MRO_PROT_NONE) {
		err = -EBUSY;
	} else {
		/* the keys after it move up: the previous may become current */
		for (; i < MRO_DEVKEY_SLOTS - 1; i++)
			memcpy(&k->slot[i], &k->slot[i + 1], sizeof(k->slot[i]));
		mro_devkey_wipe(&k->slot[i]);
	}
	spin_unlock_bh(&k->lock);
	return err;
}

unsigned int mro_devkey_ids(struct mro_devkey *k, u8 ids[MRO_DEVKEY_SLOTS])
{
	unsigned int i, n = 0;

	spin_lock_bh(&k->lock);
	for (i = 0; i < MRO_DEVKEY_SLOTS; i++)
		if (k->slot[i].installed)
			ids[n++] = k->slot[i].id;
	spin_unlock_bh(&k->lock);
	return n;
}

int mro_devkey_install_logon(struct mro_devkey *k, u8 id, const char *desc)
{
	const struct user_key_payload *payload;
	u8 bytes[MRO_DEVKEY_MAX_LEN];
	unsigned int len = 0;
	struct key *key;
	int err = 0;

	key = request_key(&key_type_logon, desc, NULL);
	if (IS_ERR(key))
		return PTR_ERR(key);
	down_read(&key->sem);
	payload = user_key_payload_locked(key);
	if (!payload)
		err = -EKEYREVOKED;
	else if (!mro_devkey_len_ok(payload->datalen))
		err = -EINVAL;
	else
		len = payload->datalen;
	if (!err)
		memcpy(bytes, payload->data, len);
	up_read(&key->sem);
	key_put(key);
	if (!err)
		err = mro_devkey_install(k, id, bytes, len);
	memzero_explicit(bytes, sizeof(bytes));
	return err;
}

/* a decimal key id, 1..255, with no sign and no leading zero */
static int mro_devkey_parse_id(const char *p, size_t n, u8 *id)
{
	unsigned int v = 0;
	size_t i;

	if (!n || n > 3 || p[0] == '0')
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!isdigit(p[i]))
			return -EINVAL;
		v = v * 10 + (p[i] - '0');
	}
	if (v > 255)
		return -EINVAL;
	*id = v;
	return 0;
}

int mro_devkey_parse_cmd(const char *buf, size_t count,
			 struct mro_devkey_cmd *cmd)
{
	size_t id_len, i;

	memset(cmd, 0, sizeof(*cmd));
	if (count && buf[count - 1] == '\n')
		count--;
	if (count && buf[0] == '-') {
		cmd->remove = true;
		return mro_devkey_parse_id(buf + 1, count - 1, &cmd->id);
	}
	for (id_len = 0; id_len < count && buf[id_len] != ' '; id_len++)
		;
	/* an id, one space and at least one character of description */
	if (id_len + 1 >= count || mro_devkey_parse_id(buf, id_len, &cmd->id))
		return -EINVAL;
	cmd->desc = buf + id_len + 1;
	cmd->desc_len = count - id_len - 1;
	for (i = 0; i < cmd->desc_len; i++)
		if (isspace(cmd->desc[i]) || !isprint(cmd->desc[i]))
			return -EINVAL;
	return 0;
}

int mro_prot_parse(const char *buf, enum mro_prot *mode)
{
	int i = sysfs_match_string(mro_prot_names, buf);

	if (i < 0)
		return -EINVAL;
	*mode = i;
	return 0;
}

const char *mro_prot_name(enum mro_prot mode)
{
	if ((unsigned int)mode >= ARRAY_SIZE(mro_prot_names))
		return "?";
	return mro_prot_names[mode];
}
