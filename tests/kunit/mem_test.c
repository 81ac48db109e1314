// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the pure rules of metaroce memory (mro_mem.h): the key
 * format, overflow-safe range checks and the memory window bind rules of
 * the IB spec.  No device is needed.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>

#include "mro_mem.h"

static void mem_test_key_format(struct kunit *test)
{
	u32 key = mro_key_make(0x123456, 0x1ab);	/* byte is masked */

	KUNIT_EXPECT_EQ(test, key, 0x123456abU);
	KUNIT_EXPECT_EQ(test, mro_key_index(key), 0x123456U);
	KUNIT_EXPECT_EQ(test, mro_key_make(MRO_KEY_INDEX_MAX, 0xff),
			0xffffffffU);
	KUNIT_EXPECT_EQ(test, mro_key_index(mro_key_make(MRO_KEY_INDEX_MIN,
							 0)), 1U);
	/* the smallest index never yields the key 0 */
	KUNIT_EXPECT_NE(test, mro_key_make(MRO_KEY_INDEX_MIN, 0), 0U);
}

static void mem_test_key_rekey(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, mro_key_same_index(0x12345600, 0x123456ff));
	KUNIT_EXPECT_TRUE(test, mro_key_same_index(0x12345678, 0x12345678));
	KUNIT_EXPECT_FALSE(test, mro_key_same_index(0x12345600, 0x12345700));
	KUNIT_EXPECT_FALSE(test, mro_key_same_index(0x00000100, 0x80000100));
}

static void mem_test_range_basic(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, mro_range_ok(0x1000, 0x100, 0x1000, 0x100));
	KUNIT_EXPECT_TRUE(test, mro_range_ok(0x1000, 0x100, 0x1080, 0x80));
	KUNIT_EXPECT_FALSE(test, mro_range_ok(0x1000, 0x100, 0x1080, 0x81));
	KUNIT_EXPECT_FALSE(test, mro_range_ok(0x1000, 0x100, 0xfff, 1));
	KUNIT_EXPECT_FALSE(test, mro_range_ok(0x1000, 0x100, 0x1000, 0x101));
	/* zero-length accesses: inside or at the end, not past it */
	KUNIT_EXPECT_TRUE(test, mro_range_ok(0x1000, 0x100, 0x1100, 0));
	KUNIT_EXPECT_FALSE(test, mro_range_ok(0x1000, 0x100, 0x1101, 0));
	/* an empty region (unbound window) admits zero-length only */
	KUNIT_EXPECT_TRUE(test, mro_range_ok(0, 0, 0, 0));
	KUNIT_EXPECT_FALSE(test, mro_range_ok(0, 0, 0, 1));
}

static void mem_test_range_wrap(struct kunit *test)
{
	/* a region that ends exactly at the top of the address space */
	KUNIT_EXPECT_TRUE(test, mro_range_ok(U64_MAX - 15, 16,
					     U64_MAX - 7, 8));
	KUNIT_EXPECT_FALSE(test, mro_range_ok(U64_MAX - 15, 16,
					      U64_MAX - 7, 9));
	/* iova + len wraps to a small number that would look "inside" */
	KUNIT_EXPECT_FALSE(test, mro_range_ok(U64_MAX - 15, 16,
					      U64_MAX, 0x10));
	KUNIT_EXPECT_FALSE(test, mro_range_ok(0, 0x1000, 0x10, U64_MAX));
	/* the DMA MR: the whole address space, nothing wraps */
	KUNIT_EXPECT_TRUE(test, mro_range_ok(0, U64_MAX, U64_MAX - 1, 1));
	KUNIT_EXPECT_TRUE(test, mro_range_ok(0, U64_MAX, 0, U64_MAX));
	KUNIT_EXPECT_FALSE(test, mro_range_ok(0, U64_MAX, 1, U64_MAX));
	KUNIT_EXPECT_FALSE(test, mro_range_ok(0, U64_MAX, U64_MAX, 1));
}

static void mem_test_access(struct kunit *test)
{
	int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;

	KUNIT_EXPECT_TRUE(test, mro_access_ok(0, 0));	/* local read */
	KUNIT_EXPECT_TRUE(test, mro_access_ok(rw, IB_ACCESS_REMOTE_WRITE));
	KUNIT_EXPECT_FALSE(test, mro_access_ok(rw, IB_ACCESS_REMOTE_READ));
	KUNIT_EXPECT_FALSE(test, mro_access_ok(IB_ACCESS_REMOTE_READ,
					       IB_ACCESS_LOCAL_WRITE));

	KUNIT_EXPECT_TRUE(test, mro_writable_ok(IB_ACCESS_REMOTE_READ, 0));
	KUNIT_EXPECT_FALSE(test, mro_writable_ok(IB_ACCESS_REMOTE_WRITE, 0));
	KUNIT_EXPECT_FALSE(test, mro_writable_ok(IB_ACCESS_REMOTE_ATOMIC,
						 IB_ACCESS_REMOTE_ATOMIC));
	KUNIT_EXPECT_TRUE(test, mro_writable_ok(IB_ACCESS_REMOTE_ATOMIC,
						IB_ACCESS_LOCAL_WRITE));
}

/* a type 2 bind that satisfies every rule; tests break one at a time */
static struct mro_bind_req good_type2(void)
{
	return (struct mro_bind_req) {
		.mw_type = IB_MW_TYPE_2,
		.mw_free = true,
		.mw_pd_ok = true,
		.access = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ,
		.addr = 0x10100,
		.length = 0x100,
		.has_mr = true,
		.mr_valid = true,
		.mr_pd_ok = true,
		.mr_access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND,
		.mr_iova = 0x10000,
		.mr_length = 0x1000,
	};
}

static void mem_test_bind_type2(struct kunit *test)
{
	struct mro_bind_req r = good_type2();

	/* window rights need not be a subset of the MR's remote rights */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), 0);

	r.access |= IB_ZERO_BASED;	/* zero based is fine for type 2 */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), 0);

	r = good_type2();
	r.mw_free = false;		/* o10-37.2.30: must be free */
	r.mw_valid = true;
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);

	r = good_type2();
	r.length = 0;			/* o10-37.2.40 */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);

	r = good_type2();
	r.has_mr = false;		/* bad MR key */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);

	r = good_type2();
	r.mr_valid = false;		/* invalidated fast-reg MR */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);
}

static void mem_test_bind_pd_and_rights(struct kunit *test)
{
	struct mro_bind_req r = good_type2();

	r.mw_pd_ok = false;		/* C10-72 */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);

	r = good_type2();
	r.mr_pd_ok = false;
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);

	r = good_type2();
	r.mr_access &= ~IB_ACCESS_MW_BIND;	/* C10-73 */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EACCES);

	r = good_type2();
	r.mr_access = IB_ACCESS_MW_BIND;	/* C10-74: no local write */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EACCES);
	r.access = IB_ACCESS_REMOTE_READ;	/* read-only window: fine */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), 0);
	r.access = IB_ACCESS_REMOTE_ATOMIC;
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EACCES);

	r = good_type2();
	r.access |= IB_ACCESS_MW_BIND;	/* not a window right */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);
}

static void mem_test_bind_bounds(struct kunit *test)
{
	struct mro_bind_req r = good_type2();

	r.addr = r.mr_iova;		/* the whole MR */
	r.length = r.mr_length;
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), 0);

	r.length++;			/* C10-75: one byte past the end */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);

	r = good_type2();
	r.addr = r.mr_iova - 1;		/* one byte before */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);

	r = good_type2();
	r.length = U64_MAX;		/* addr + length wraps */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);

	r = good_type2();		/* zero based still lies in the MR */
	r.access |= IB_ZERO_BASED;
	r.addr = r.mr_iova + r.mr_length - 0x10;
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);

	r = good_type2();
	r.mr_access |= IB_ZERO_BASED;	/* no windows on zero-based MRs */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);
}

static void mem_test_bind_type1(struct kunit *test)
{
	struct mro_bind_req r = good_type2();

	r.mw_type = IB_MW_TYPE_1;
	r.mw_free = false;
	r.mw_valid = true;		/* type 1 is valid from allocation */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), 0);

	r.access |= IB_ZERO_BASED;	/* o10-36.2.2 */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);
	r.access &= ~IB_ZERO_BASED;

	/* a zero-length bind unbinds, no MR needed */
	r.length = 0;
	r.has_mr = false;
	r.mr_valid = false;
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), 0);

	r.mw_valid = false;		/* being deallocated */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);

	r.mw_valid = true;
	r.mw_type = 3;			/* neither type */
	KUNIT_EXPECT_EQ(test, mro_mw_bind_check(&r), -EINVAL);
}

static struct kunit_case metaroce_mem_cases[] = {
	KUNIT_CASE(mem_test_key_format),
	KUNIT_CASE(mem_test_key_rekey),
	KUNIT_CASE(mem_test_range_basic),
	KUNIT_CASE(mem_test_range_wrap),
	KUNIT_CASE(mem_test_access),
	KUNIT_CASE(mem_test_bind_type2),
	KUNIT_CASE(mem_test_bind_pd_and_rights),
	KUNIT_CASE(mem_test_bind_bounds),
	KUNIT_CASE(mem_test_bind_type1),
	{}
};

static struct kunit_suite metaroce_mem_suite = {
	.name = "metaroce_mem",
	.test_cases = metaroce_mem_cases,
};

kunit_test_suite(metaroce_mem_suite);
