// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the responder's acceptance rules for failing and replayed
 * requests (mro_respres.h): only the packet at the next expected PSN may end
 * the connection, and a duplicate READ_REQ is answered again only when it
 * asks for responses of a READ the responder executed (the security review's
 * H2: a blind READ_REQ anywhere in the duplicate window used to be executed,
 * and a failing one ended the QP).
 */
#include <kunit/test.h>

#include "mro_respres.h"

/* the NVMe-oF shape: a 4-response READ at PSN 100, 4096-byte responses */
static const struct mro_read_res read_at_100 = {
	.psn = 100, .npsn = 4, .va = 0x7f0000001000ULL, .rkey = 0x123456,
	.offset = 0, .end = 4 * 4096 - 512, .seg = 4096, .valid = true,
};

static void resp_fail_only_in_order(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, mro_resp_may_fail(7, 7));
	KUNIT_EXPECT_FALSE(test, mro_resp_may_fail(8, 7));
	KUNIT_EXPECT_FALSE(test, mro_resp_may_fail(7 + 511, 7));
	/* behind the base is a duplicate, never fatal either */
	KUNIT_EXPECT_FALSE(test, mro_resp_may_fail(6, 7));
	KUNIT_EXPECT_TRUE(test, mro_resp_may_fail(0xffffffffU, 0xffffffffU));
	KUNIT_EXPECT_FALSE(test, mro_resp_may_fail(0, 0xffffffffU));
}

/* what a requester resends for a lost response is answered again */
static void read_replay_resends(struct kunit *test)
{
	const struct mro_read_res *r = &read_at_100;
	u32 k;

	/* the whole READ again */
	KUNIT_EXPECT_TRUE(test, mro_read_replay_ok(r, 100, r->va, r->rkey,
						   4096, 0, r->end));
	/* one response at a time, the last one short */
	for (k = 0; k < 3; k++)
		KUNIT_EXPECT_TRUE(test,
				  mro_read_replay_ok(r, 100 + k, r->va, r->rkey,
						     4096, k * 4096, 4096));
	KUNIT_EXPECT_TRUE(test, mro_read_replay_ok(r, 103, r->va, r->rkey,
						   4096, 3 * 4096, 4096 - 512));
	/* from a response on to the end */
	KUNIT_EXPECT_TRUE(test, mro_read_replay_ok(r, 102, r->va, r->rkey,
						   4096, 2 * 4096,
						   r->end - 2 * 4096));
}

/* the attacks of review H2 and M1 find nothing to replay */
static void read_replay_forged(struct kunit *test)
{
	const struct mro_read_res *r = &read_at_100;
	struct mro_read_res gone = read_at_100;

	/* a PSN that was not one of its responses */
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(r, 99, r->va, r->rkey,
						    4096, 0, 4096));
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(r, 104, r->va, r->rkey,
						    4096, 4 * 4096, 4096));
	/* another key, address or segment size */
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(r, 100, r->va,
						    r->rkey ^ 1, 4096, 0,
						    4096));
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(r, 100, r->va + 4096,
						    r->rkey, 4096, 0, 4096));
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(r, 100, r->va, r->rkey,
						    256, 0, 256));
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(r, 100, r->va, r->rkey,
						    0, 0, 0));
	/* the amplification: more than was read, or at the wrong offset */
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(r, 100, r->va, r->rkey,
						    4096, 0, 0x7fffffff));
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(r, 101, r->va, r->rkey,
						    4096, 0, 4096));
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(r, 103, r->va, r->rkey,
						    4096, 3 * 4096, 4096));
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(r, 100, r->va, r->rkey,
						    4096, 0xffffffffU, 2));
	/* a forgotten READ */
	gone.valid = false;
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(&gone, 100, r->va,
						    r->rkey, 4096, 0, 4096));
}

/* PSNs wrap; offsets of a READ past 4 GiB do not */
static void read_replay_wrap(struct kunit *test)
{
	struct mro_read_res r = {
		.psn = 0xfffffffeU, .npsn = 4, .va = 0x1000, .rkey = 7,
		.offset = 0x10000, .end = 0x10000 + 4 * 1024, .seg = 1024,
		.valid = true,
	};

	KUNIT_EXPECT_TRUE(test, mro_read_replay_ok(&r, 0xffffffffU, 0x1000, 7,
						   1024, 0x10400, 1024));
	KUNIT_EXPECT_TRUE(test, mro_read_replay_ok(&r, 1, 0x1000, 7, 1024,
						   0x10c00, 1024));
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(&r, 2, 0x1000, 7, 1024,
						    0x11000, 1024));
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(&r, 0xfffffffdU, 0x1000,
						    7, 1024, 0xfc00, 1024));
	r.offset = 0xfffff000U;
	r.end = 0xffffffffU;
	r.npsn = 0x100000;
	r.psn = 0;
	/* k * seg + offset overflows 32 bits: no match, no wrap */
	KUNIT_EXPECT_FALSE(test, mro_read_replay_ok(&r, 0x4, 0x1000, 7, 1024,
						    0x0, 1024));
}

/*
 * A 1 MiB READ in READ_REQs of 64 responses: the parts extend one
 * resource (a READ WQE takes one, as max_dest_rd_atomic counts them), and
 * a lost response of any part is answered again from it.
 */
static void read_res_parts(struct kunit *test)
{
	struct mro_read_res r = {
		.psn = 1000, .npsn = 64, .va = 0x10000, .rkey = 9, .offset = 0,
		.end = 64 * 4096, .seg = 4096, .valid = true,
	};
	u32 k;

	for (k = 1; k < 4; k++) {
		KUNIT_EXPECT_TRUE(test, mro_read_res_extends(&r, 1000 + 64 * k,
							     0x10000, 9, 4096,
							     64 * 4096 * k));
		r.npsn += 64;
		r.end += 64 * 4096;
	}
	KUNIT_EXPECT_TRUE(test, mro_read_replay_ok(&r, 1000 + 200, 0x10000, 9,
						   4096, 200 * 4096, 4096));
	/* not the next part: a gap, another READ, another key, a new READ */
	KUNIT_EXPECT_FALSE(test, mro_read_res_extends(&r, 1000 + 257, 0x10000,
						      9, 4096, 256 * 4096));
	KUNIT_EXPECT_FALSE(test, mro_read_res_extends(&r, 1000 + 256, 0x20000,
						      9, 4096, 256 * 4096));
	KUNIT_EXPECT_FALSE(test, mro_read_res_extends(&r, 1000 + 256, 0x10000,
						      8, 4096, 256 * 4096));
	KUNIT_EXPECT_FALSE(test, mro_read_res_extends(&r, 1000 + 256, 0x10000,
						      9, 4096, 0));
	r.valid = false;
	KUNIT_EXPECT_FALSE(test, mro_read_res_extends(&r, 1000 + 256, 0x10000,
						      9, 4096, 256 * 4096));
}

static struct kunit_case metaroce_respres_cases[] = {
	KUNIT_CASE(resp_fail_only_in_order),
	KUNIT_CASE(read_replay_resends),
	KUNIT_CASE(read_replay_forged),
	KUNIT_CASE(read_replay_wrap),
	KUNIT_CASE(read_res_parts),
	{}
};

static struct kunit_suite metaroce_respres_suite = {
	.name = "metaroce_respres",
	.test_cases = metaroce_respres_cases,
};

kunit_test_suite(metaroce_respres_suite);
