// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of mro_devkey.c without a device: the two key slots
 * (install, rotation, removal, ids current first, lengths and ids refused,
 * an installed id refused), the protection mode's rules (no auth or encrypt
 * without a current key, no removal of the current key under them), the
 * snapshot a connection takes, wiping (no byte of a dropped or destroyed
 * key left in the store), and the parsers of the `key` and `protection`
 * attributes.  The logon-key lookup needs a process with keyrings: the VM
 * scenario metaroce-devkey.sh covers it.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "mro_devkey.h"

/* a recognisable key: @len bytes @first, @first + 1, ... */
static void fill_key(u8 *p, u8 first, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = first + i;
}

/* whether the @len bytes of @needle appear anywhere in the store */
static bool store_holds(const struct mro_devkey *k, const u8 *needle,
			unsigned int len)
{
	const u8 *p = (const u8 *)k->slot;
	size_t i;

	for (i = 0; i + len <= sizeof(k->slot); i++)
		if (!memcmp(p + i, needle, len))
			return true;
	return false;
}

static void expect_ids(struct kunit *test, struct mro_devkey *k,
		       unsigned int n, u8 first, u8 second)
{
	u8 ids[MRO_DEVKEY_SLOTS] = { 0xee, 0xee };

	KUNIT_ASSERT_EQ(test, mro_devkey_ids(k, ids), n);
	if (n > 0)
		KUNIT_EXPECT_EQ(test, ids[0], first);
	if (n > 1)
		KUNIT_EXPECT_EQ(test, ids[1], second);
	KUNIT_EXPECT_EQ(test, mro_devkey_current(k), n ? first : 0);
}

static void expect_key(struct kunit *test, struct mro_devkey *k, u8 id,
		       const u8 *want, unsigned int want_len)
{
	u8 got[MRO_DEVKEY_MAX_LEN];
	unsigned int len = 0;

	memset(got, 0xa5, sizeof(got));
	KUNIT_ASSERT_EQ(test, mro_devkey_get(k, id, got, &len), 0);
	KUNIT_EXPECT_EQ(test, len, want_len);
	KUNIT_EXPECT_MEMEQ(test, got, want, want_len);
	/* nothing written past the key */
	if (want_len < sizeof(got))
		KUNIT_EXPECT_EQ(test, got[want_len], 0xa5);
}

static void devkey_empty(struct kunit *test)
{
	struct mro_devkey k;
	u8 key[MRO_DEVKEY_MAX_LEN];
	unsigned int len = 77;

	mro_devkey_init(&k);
	expect_ids(test, &k, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, mro_devkey_mode(&k), MRO_PROT_NONE);
	KUNIT_EXPECT_EQ(test, mro_devkey_get(&k, 0, key, &len), -ENOKEY);
	KUNIT_EXPECT_EQ(test, mro_devkey_get(&k, 1, key, &len), -ENOKEY);
	KUNIT_EXPECT_EQ(test, len, 77);
	KUNIT_EXPECT_EQ(test, mro_devkey_remove(&k, 1), -ENOKEY);
	mro_devkey_destroy(&k);
}

/* two installs: the newer is current, both readable, byte for byte */
static void devkey_install_two(struct kunit *test)
{
	u8 k32[32], k16[16], again[32];
	struct mro_devkey k;

	fill_key(k32, 0x10, sizeof(k32));
	fill_key(k16, 0x80, sizeof(k16));
	mro_devkey_init(&k);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 2, k32, 32), 0);
	expect_ids(test, &k, 1, 2, 0);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 3, k16, 16), 0);
	expect_ids(test, &k, 2, 3, 2);
	expect_key(test, &k, 2, k32, 32);
	expect_key(test, &k, 3, k16, 16);
	/* the store holds copies: the caller's buffer may change */
	memset(k32, 0, sizeof(k32));
	fill_key(again, 0x10, sizeof(again));
	expect_key(test, &k, 2, again, 32);
	mro_devkey_destroy(&k);
}

static void devkey_bad_len_and_id(struct kunit *test)
{
	static const unsigned int bad_len[] = { 0, 1, 15, 17, 20, 24, 31, 33, 64 };
	u8 key[64], good[32];
	struct mro_devkey k;
	unsigned int i;

	fill_key(key, 0x40, sizeof(key));
	fill_key(good, 0xc0, sizeof(good));
	mro_devkey_init(&k);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 9, good, 32), 0);
	for (i = 0; i < ARRAY_SIZE(bad_len); i++)
		KUNIT_EXPECT_EQ_MSG(test, mro_devkey_install(&k, 5, key,
							     bad_len[i]),
				    -EINVAL, "len %u", bad_len[i]);
	KUNIT_EXPECT_EQ(test, mro_devkey_install(&k, 0, key, 32), -EINVAL);
	/* nothing changed: 9 alone, and still its bytes */
	expect_ids(test, &k, 1, 9, 0);
	expect_key(test, &k, 9, good, 32);
	KUNIT_EXPECT_FALSE(test, store_holds(&k, key, 16));
	/* the largest id is fine */
	KUNIT_EXPECT_EQ(test, mro_devkey_install(&k, 255, key, 16), 0);
	expect_ids(test, &k, 2, 255, 9);
	mro_devkey_destroy(&k);
}

/* a third install drops the oldest and wipes it */
static void devkey_rotate_drops_oldest(struct kunit *test)
{
	u8 a[32], b[16], c[32], got[MRO_DEVKEY_MAX_LEN];
	struct mro_devkey k;
	unsigned int len;

	fill_key(a, 0x01, sizeof(a));
	fill_key(b, 0x41, sizeof(b));
	fill_key(c, 0x81, sizeof(c));
	mro_devkey_init(&k);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 1, a, 32), 0);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 2, b, 16), 0);
	KUNIT_ASSERT_TRUE(test, store_holds(&k, a, 32));
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 3, c, 32), 0);
	expect_ids(test, &k, 2, 3, 2);
	KUNIT_EXPECT_EQ(test, mro_devkey_get(&k, 1, got, &len), -ENOKEY);
	/* not even half of key 1 is left anywhere in the slots */
	KUNIT_EXPECT_FALSE(test, store_holds(&k, a, 16));
	KUNIT_EXPECT_FALSE(test, store_holds(&k, a + 16, 16));
	expect_key(test, &k, 2, b, 16);
	expect_key(test, &k, 3, c, 32);
	/* the dropped id may come back, as a new key */
	KUNIT_EXPECT_EQ(test, mro_devkey_install(&k, 1, b, 16), 0);
	expect_ids(test, &k, 2, 1, 3);
	mro_devkey_destroy(&k);
}

/* an installed id names one key: current or previous, it is refused */
static void devkey_id_exists(struct kunit *test)
{
	u8 a[16], b[32], c[32];
	struct mro_devkey k;

	fill_key(a, 0x11, sizeof(a));
	fill_key(b, 0x51, sizeof(b));
	fill_key(c, 0x91, sizeof(c));
	mro_devkey_init(&k);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 7, a, 16), 0);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 8, b, 32), 0);
	KUNIT_EXPECT_EQ(test, mro_devkey_install(&k, 8, c, 32), -EEXIST);
	KUNIT_EXPECT_EQ(test, mro_devkey_install(&k, 7, c, 32), -EEXIST);
	expect_ids(test, &k, 2, 8, 7);
	expect_key(test, &k, 7, a, 16);
	expect_key(test, &k, 8, b, 32);
	KUNIT_EXPECT_FALSE(test, store_holds(&k, c, 16));
	mro_devkey_destroy(&k);
}

static void devkey_mode_needs_key(struct kunit *test)
{
	struct mro_devkey k;
	u8 a[32];

	fill_key(a, 0x21, sizeof(a));
	mro_devkey_init(&k);
	KUNIT_EXPECT_EQ(test, mro_devkey_set_mode(&k, MRO_PROT_AUTH), -ENOKEY);
	KUNIT_EXPECT_EQ(test, mro_devkey_set_mode(&k, MRO_PROT_ENCRYPT),
			-ENOKEY);
	KUNIT_EXPECT_EQ(test, mro_devkey_mode(&k), MRO_PROT_NONE);
	KUNIT_EXPECT_EQ(test, mro_devkey_set_mode(&k, MRO_PROT_NONE), 0);
	KUNIT_EXPECT_EQ(test, mro_devkey_set_mode(&k, (enum mro_prot)3),
			-EINVAL);

	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 4, a, 32), 0);
	KUNIT_EXPECT_EQ(test, mro_devkey_set_mode(&k, MRO_PROT_ENCRYPT), 0);
	KUNIT_EXPECT_EQ(test, mro_devkey_mode(&k), MRO_PROT_ENCRYPT);
	KUNIT_EXPECT_EQ(test, mro_devkey_set_mode(&k, (enum mro_prot)3),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mro_devkey_mode(&k), MRO_PROT_ENCRYPT);
	KUNIT_EXPECT_EQ(test, mro_devkey_set_mode(&k, MRO_PROT_AUTH), 0);
	KUNIT_EXPECT_EQ(test, mro_devkey_mode(&k), MRO_PROT_AUTH);
	mro_devkey_destroy(&k);
}

/*
 * Under auth or encrypt the current key stays; the previous one may go.
 * With none, removing the current key makes the previous one current.
 */
static void devkey_remove_rules(struct kunit *test)
{
	u8 a[16], b[32], got[MRO_DEVKEY_MAX_LEN];
	struct mro_devkey k;
	unsigned int len;

	fill_key(a, 0x31, sizeof(a));
	fill_key(b, 0x71, sizeof(b));
	mro_devkey_init(&k);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 1, a, 16), 0);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 2, b, 32), 0);
	KUNIT_ASSERT_EQ(test, mro_devkey_set_mode(&k, MRO_PROT_AUTH), 0);
	KUNIT_EXPECT_EQ(test, mro_devkey_remove(&k, 2), -EBUSY);
	expect_ids(test, &k, 2, 2, 1);
	KUNIT_EXPECT_EQ(test, mro_devkey_set_mode(&k, MRO_PROT_ENCRYPT), 0);
	KUNIT_EXPECT_EQ(test, mro_devkey_remove(&k, 2), -EBUSY);
	/* the previous one goes, under any mode, and is wiped */
	KUNIT_EXPECT_EQ(test, mro_devkey_remove(&k, 1), 0);
	expect_ids(test, &k, 1, 2, 0);
	KUNIT_EXPECT_EQ(test, mro_devkey_get(&k, 1, got, &len), -ENOKEY);
	KUNIT_EXPECT_FALSE(test, store_holds(&k, a, 16));
	KUNIT_EXPECT_EQ(test, mro_devkey_remove(&k, 1), -ENOKEY);
	KUNIT_EXPECT_EQ(test, mro_devkey_remove(&k, 0), -ENOKEY);

	/* under none: the current goes, the previous becomes current */
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 1, a, 16), 0);
	expect_ids(test, &k, 2, 1, 2);
	KUNIT_EXPECT_EQ(test, mro_devkey_remove(&k, 1), -EBUSY);
	KUNIT_ASSERT_EQ(test, mro_devkey_set_mode(&k, MRO_PROT_NONE), 0);
	KUNIT_EXPECT_EQ(test, mro_devkey_remove(&k, 1), 0);
	expect_ids(test, &k, 1, 2, 0);
	KUNIT_EXPECT_FALSE(test, store_holds(&k, a, 16));
	expect_key(test, &k, 2, b, 32);
	/* the last key goes too: nothing current, auth refused again */
	KUNIT_EXPECT_EQ(test, mro_devkey_remove(&k, 2), 0);
	expect_ids(test, &k, 0, 0, 0);
	KUNIT_EXPECT_FALSE(test, store_holds(&k, b, 16));
	KUNIT_EXPECT_EQ(test, mro_devkey_set_mode(&k, MRO_PROT_AUTH), -ENOKEY);
	mro_devkey_destroy(&k);
}

/* what a new connection takes: the mode and the current key together */
static void devkey_snapshot(struct kunit *test)
{
	u8 a[16], b[32], got[MRO_DEVKEY_MAX_LEN];
	struct mro_devkey k;
	unsigned int len;
	u8 id, prev;

	fill_key(a, 0x61, sizeof(a));
	fill_key(b, 0xa1, sizeof(b));
	mro_devkey_init(&k);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 5, a, 16), 0);
	memset(got, 0x5a, sizeof(got));
	id = 99;
	prev = 99;
	len = 99;
	KUNIT_EXPECT_EQ(test, mro_devkey_snapshot(&k, &id, &prev, got, &len),
			MRO_PROT_NONE);
	KUNIT_EXPECT_EQ(test, id, 0);
	KUNIT_EXPECT_EQ(test, prev, 0);
	KUNIT_EXPECT_EQ(test, len, 0);
	KUNIT_EXPECT_EQ(test, got[0], 0x5a);

	KUNIT_ASSERT_EQ(test, mro_devkey_set_mode(&k, MRO_PROT_AUTH), 0);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 6, b, 32), 0);
	KUNIT_EXPECT_EQ(test, mro_devkey_snapshot(&k, &id, &prev, got, &len),
			MRO_PROT_AUTH);
	KUNIT_EXPECT_EQ(test, id, 6);
	KUNIT_EXPECT_EQ(test, prev, 5);
	KUNIT_EXPECT_EQ(test, len, 32);
	KUNIT_EXPECT_MEMEQ(test, got, b, 32);
	mro_devkey_destroy(&k);
}

static void devkey_destroy_wipes(struct kunit *test)
{
	static const u8 zero[sizeof_field(struct mro_devkey, slot)];
	u8 a[32], b[32];
	struct mro_devkey k;

	fill_key(a, 0x03, sizeof(a));
	fill_key(b, 0x83, sizeof(b));
	mro_devkey_init(&k);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 1, a, 32), 0);
	KUNIT_ASSERT_EQ(test, mro_devkey_install(&k, 2, b, 32), 0);
	KUNIT_ASSERT_EQ(test, mro_devkey_set_mode(&k, MRO_PROT_AUTH), 0);
	mro_devkey_destroy(&k);
	KUNIT_EXPECT_MEMEQ(test, k.slot, zero, sizeof(zero));
	KUNIT_EXPECT_EQ(test, k.mode, MRO_PROT_NONE);
}

struct cmd_case {
	const char *in;
	int err;
	bool remove;
	u8 id;
	const char *desc;
};

static const struct cmd_case cmd_cases[] = {
	{ "3 metaroce:k1\n", 0, false, 3, "metaroce:k1" },
	{ "3 metaroce:k1", 0, false, 3, "metaroce:k1" },
	{ "255 a:b", 0, false, 255, "a:b" },
	{ "1 x", 0, false, 1, "x" },
	{ "-3\n", 0, true, 3, NULL },
	{ "-255", 0, true, 255, NULL },
	{ "", -EINVAL },
	{ "\n", -EINVAL },
	{ "3", -EINVAL },
	{ "3 ", -EINVAL },
	{ "3 \t", -EINVAL },
	{ "0 metaroce:k1", -EINVAL },
	{ "256 metaroce:k1", -EINVAL },
	{ "1000 metaroce:k1", -EINVAL },
	{ "03 metaroce:k1", -EINVAL },
	{ "+3 metaroce:k1", -EINVAL },
	{ "0x3 metaroce:k1", -EINVAL },
	{ " 3 metaroce:k1", -EINVAL },
	{ "3  metaroce:k1", -EINVAL },
	{ "3 metaroce:k1 ", -EINVAL },
	{ "3 metaroce: k1", -EINVAL },
	{ "3 metaroce:k1\n\n", -EINVAL },
	{ "3\tmetaroce:k1", -EINVAL },
	{ "-", -EINVAL },
	{ "-0", -EINVAL },
	{ "-256", -EINVAL },
	{ "-3 metaroce:k1", -EINVAL },
	{ "--3", -EINVAL },
};

static void devkey_parse_cmd(struct kunit *test)
{
	struct mro_devkey_cmd cmd;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmd_cases); i++) {
		const struct cmd_case *c = &cmd_cases[i];
		int err = mro_devkey_parse_cmd(c->in, strlen(c->in), &cmd);

		KUNIT_EXPECT_EQ_MSG(test, err, c->err, "input \"%s\"", c->in);
		if (err || c->err)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, cmd.remove, c->remove, "\"%s\"", c->in);
		KUNIT_EXPECT_EQ_MSG(test, cmd.id, c->id, "\"%s\"", c->in);
		if (!c->desc)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, cmd.desc_len, strlen(c->desc),
				    "\"%s\"", c->in);
		KUNIT_EXPECT_TRUE_MSG(test,
				      cmd.desc_len == strlen(c->desc) &&
				      !memcmp(cmd.desc, c->desc, cmd.desc_len),
				      "\"%s\"", c->in);
	}
}

/* the count bounds the parse: bytes after it are not looked at */
static void devkey_parse_cmd_count(struct kunit *test)
{
	static const char buf[] = "12 ab:cd XYZ";
	struct mro_devkey_cmd cmd;

	KUNIT_EXPECT_EQ(test, mro_devkey_parse_cmd(buf, 8, &cmd), 0);
	KUNIT_EXPECT_EQ(test, cmd.id, 12);
	KUNIT_EXPECT_EQ(test, cmd.desc_len, 5);
	KUNIT_EXPECT_PTR_EQ(test, cmd.desc, buf + 3);
	KUNIT_EXPECT_EQ(test, mro_devkey_parse_cmd(buf, 1, &cmd), -EINVAL);
	KUNIT_EXPECT_EQ(test, mro_devkey_parse_cmd(buf, 0, &cmd), -EINVAL);
	KUNIT_EXPECT_EQ(test, mro_devkey_parse_cmd(buf, sizeof(buf) - 1, &cmd),
			-EINVAL);
}

static void devkey_prot_names(struct kunit *test)
{
	enum mro_prot mode = MRO_PROT_ENCRYPT;

	KUNIT_EXPECT_EQ(test, mro_prot_parse("none\n", &mode), 0);
	KUNIT_EXPECT_EQ(test, mode, MRO_PROT_NONE);
	KUNIT_EXPECT_EQ(test, mro_prot_parse("auth", &mode), 0);
	KUNIT_EXPECT_EQ(test, mode, MRO_PROT_AUTH);
	KUNIT_EXPECT_EQ(test, mro_prot_parse("encrypt\n", &mode), 0);
	KUNIT_EXPECT_EQ(test, mode, MRO_PROT_ENCRYPT);
	KUNIT_EXPECT_EQ(test, mro_prot_parse("Auth", &mode), -EINVAL);
	KUNIT_EXPECT_EQ(test, mro_prot_parse("", &mode), -EINVAL);
	KUNIT_EXPECT_EQ(test, mro_prot_parse("1", &mode), -EINVAL);
	KUNIT_EXPECT_EQ(test, mro_prot_parse("encryp", &mode), -EINVAL);
	KUNIT_EXPECT_EQ(test, mro_prot_parse("none none", &mode), -EINVAL);
	KUNIT_EXPECT_EQ(test, mode, MRO_PROT_ENCRYPT);

	KUNIT_EXPECT_STREQ(test, mro_prot_name(MRO_PROT_NONE), "none");
	KUNIT_EXPECT_STREQ(test, mro_prot_name(MRO_PROT_AUTH), "auth");
	KUNIT_EXPECT_STREQ(test, mro_prot_name(MRO_PROT_ENCRYPT), "encrypt");
	KUNIT_EXPECT_STREQ(test, mro_prot_name((enum mro_prot)3), "?");
}

static struct kunit_case metaroce_devkey_cases[] = {
	KUNIT_CASE(devkey_empty),
	KUNIT_CASE(devkey_install_two),
	KUNIT_CASE(devkey_bad_len_and_id),
	KUNIT_CASE(devkey_rotate_drops_oldest),
	KUNIT_CASE(devkey_id_exists),
	KUNIT_CASE(devkey_mode_needs_key),
	KUNIT_CASE(devkey_remove_rules),
	KUNIT_CASE(devkey_snapshot),
	KUNIT_CASE(devkey_destroy_wipes),
	KUNIT_CASE(devkey_parse_cmd),
	KUNIT_CASE(devkey_parse_cmd_count),
	KUNIT_CASE(devkey_prot_names),
	{}
};

static struct kunit_suite metaroce_devkey_suite = {
	.name = "metaroce_devkey",
	.test_cases = metaroce_devkey_cases,
};

kunit_test_suite(metaroce_devkey_suite);
