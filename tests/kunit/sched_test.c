// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of metaroce's path schedulers (mro_sched*.c): the ops seam
 * (registration, private areas, which op each choice goes through),
 * lookup by name, and the health-weighted scheduler's shares, order,
 * treatment of retired and revived paths.
 */
#include <kunit/test.h>

#include "mro_path.h"
#include "mro_pathscore.h"
#include "mro_psn.h"
#include "mro_sched.h"

static void sched_setup(struct kunit *test, struct mro_pathset *ps, u16 n)
{
	KUNIT_ASSERT_EQ(test, mro_paths_init(ps, n, 0x1234, GFP_KERNEL), 0);
	mro_paths_set_sched(ps, &mro_sched_weighted);
}

/* picks per path over @picks picks */
static void sched_count(struct mro_pathset *ps, u32 picks, u32 *count)
{
	u32 seq;

	while (picks--)
		count[mro_path_pick(ps, &seq)]++;
}

static void sched_find(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, mro_sched_find("rr"), &mro_sched_rr);
	KUNIT_EXPECT_PTR_EQ(test, mro_sched_find("weighted"),
			    &mro_sched_weighted);
	/* as written to sysfs, with a newline */
	KUNIT_EXPECT_PTR_EQ(test, mro_sched_find("weighted\n"),
			    &mro_sched_weighted);
	KUNIT_EXPECT_NULL(test, mro_sched_find("weigh"));
	KUNIT_EXPECT_NULL(test, mro_sched_find(""));
	KUNIT_EXPECT_NULL(test, mro_sched_find("rr2"));
}

/* healthy paths: exact round robin, every path once per round */
static void sched_equal_is_round_robin(struct kunit *test)
{
	struct mro_pathset ps;
	u32 round, i, seq;

	sched_setup(test, &ps, 8);
	for (round = 0; round < 50; round++) {
		u64 seen = 0;

		for (i = 0; i < 8; i++)
			seen |= BIT_ULL(mro_path_pick(&ps, &seq));
		KUNIT_EXPECT_EQ(test, seen, 0xffULL);
	}
	/* each path's own sequence advanced once per pick on it */
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, ps.path[i].next_seq, 50U);
	mro_paths_free(&ps);
}

/* a lossy path gets a small share, the healthy ones share the rest */
static void sched_lossy_share(struct kunit *test)
{
	struct mro_pathset ps;
	u32 count[4] = {};
	u32 i;

	sched_setup(test, &ps, 4);
	/* path 3 lost everything lately: score 1024 + 64 * 8 = 1536 */
	ps.path[3].loss_ewma = MRO_LOSS_ONE;
	ps.path[3].streak = 8;
	KUNIT_ASSERT_EQ(test, mro_path_score(&ps, 3), 1536U);
	sched_count(&ps, 1000, count);
	/* weights 16, 16, 16 and 16 * 256 / 1792 = 2: 2/50 of the picks */
	KUNIT_EXPECT_GE(test, count[3], 30U);
	KUNIT_EXPECT_LE(test, count[3], 50U);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_GE(test, count[i], 300U);
		KUNIT_EXPECT_LE(test, count[i], 340U);
	}
	/* the lossy path still carries some traffic: its health is measured */
	KUNIT_EXPECT_GT(test, count[3], 0U);
	mro_paths_free(&ps);
}

/* a worse score never gets a larger share */
static void sched_monotonic(struct kunit *test)
{
	struct mro_pathset ps;
	u32 count[4] = {};
	u32 i;

	sched_setup(test, &ps, 4);
	for (i = 0; i < 4; i++)
		ps.path[i].loss_ewma = 300 * i;	/* scores 0, 300, 600, 900 */
	sched_count(&ps, 4000, count);
	for (i = 1; i < 4; i++)
		KUNIT_EXPECT_LT(test, count[i], count[i - 1]);
	mro_paths_free(&ps);
}

/* retired paths carry nothing while others are active */
static void sched_skips_retired(struct kunit *test)
{
	struct mro_pathset ps;
	u32 count[8] = {};
	u32 i;

	sched_setup(test, &ps, 8);
	sched_count(&ps, 5, count);	/* weights taken, mid-round */
	mro_path_retire(&ps, 2, 0, 0);
	mro_path_retire(&ps, 5, 0, 0);
	memset(count, 0, sizeof(count));
	sched_count(&ps, 600, count);
	KUNIT_EXPECT_EQ(test, count[2], 0U);
	KUNIT_EXPECT_EQ(test, count[5], 0U);
	/* even shares; balances from before the change shift one pick */
	for (i = 0; i < 8; i++) {
		if (i == 2 || i == 5)
			continue;
		KUNIT_EXPECT_GE(test, count[i], 99U);
		KUNIT_EXPECT_LE(test, count[i], 101U);
	}
	mro_paths_free(&ps);
}

/* a revived path is back in the rotation within two rounds */
static void sched_revived_rejoins(struct kunit *test)
{
	struct mro_pathset ps;
	u32 count[4] = {};
	u32 seq;

	sched_setup(test, &ps, 4);
	mro_path_retire(&ps, 1, 0, 0);
	sched_count(&ps, 3, count);	/* weights now say: path 1 is out */
	KUNIT_EXPECT_EQ(test, count[1], 0U);
	ps.path[1].state = MRO_PATH_ACTIVE;	/* as mro_path_echo() revives */
	memset(count, 0, sizeof(count));
	sched_count(&ps, 2 * 4, count);
	KUNIT_EXPECT_GT(test, count[1], 0U);
	KUNIT_EXPECT_LT(test, mro_path_pick(&ps, &seq), 4);
	mro_paths_free(&ps);
}

/* all paths retired: the packets still go somewhere valid */
static void sched_all_retired(struct kunit *test)
{
	struct mro_pathset ps;
	u32 count[3] = {};
	u32 i;

	sched_setup(test, &ps, 3);
	sched_count(&ps, 2, count);
	for (i = 0; i < 3; i++)
		ps.path[i].state = MRO_PATH_RETIRED;
	memset(count, 0, sizeof(count));
	sched_count(&ps, 30, count);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, count[i], 10U);
	mro_paths_free(&ps);
}

static void sched_single_path(struct kunit *test)
{
	struct mro_pathset ps;
	u32 count[1] = {};

	sched_setup(test, &ps, 1);
	ps.path[0].loss_ewma = MRO_LOSS_ONE;
	ps.path[0].streak = U16_MAX;
	sched_count(&ps, 100, count);
	KUNIT_EXPECT_EQ(test, count[0], 100U);
	mro_paths_free(&ps);
}

/* the largest set: shares stay exact and balances bounded */
static void sched_many_paths(struct kunit *test)
{
	struct mro_pathset ps;
	u32 *count;
	u32 i;

	count = kunit_kcalloc(test, MRO_MAX_PATHS, sizeof(*count), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, count);
	sched_setup(test, &ps, MRO_MAX_PATHS);
	sched_count(&ps, 100 * MRO_MAX_PATHS, count);
	for (i = 0; i < MRO_MAX_PATHS; i++) {
		KUNIT_EXPECT_EQ(test, count[i], 100U);
		KUNIT_EXPECT_LE(test, abs(mro_sched_weighted_credit(&ps, i)),
				MRO_MAX_PATHS * MRO_WEIGHT_MAX);
	}
	mro_paths_free(&ps);
}

/*
 * The PSNs acknowledged unasked (mro_psn_self_acked()) go by the active
 * paths in turn, whatever the scheduler and the path count: a sender of
 * new packets through mro_emit()'s choice (rhythm PSNs by
 * mro_path_pick_rhythm(), the rest by the scheduler) gets those ACKs back
 * on every path, and every path still carries an even share.  Under the
 * scheduler alone, round robin over 8 paths put all of them on one.
 */
static void sched_rhythm_takes_turns(struct kunit *test)
{
	static const u16 counts[] = { 1, 2, 3, 4, 8, 16, 17, 32, 64 };
	const struct mro_sched_ops *scheds[] = { &mro_sched_rr,
						 &mro_sched_weighted };
	struct mro_pathset ps;
	u32 *count, psn, seq, lo, hi, s, k;
	u64 rhythm, want;
	u16 n, p;

	count = kunit_kcalloc(test, MRO_MAX_PATHS, sizeof(*count), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, count);
	for (s = 0; s < ARRAY_SIZE(scheds); s++) {
		for (k = 0; k < ARRAY_SIZE(counts); k++) {
			n = counts[k];
			KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, n, 7,
							     GFP_KERNEL), 0);
			mro_paths_set_sched(&ps, scheds[s]);
			memset(count, 0, MRO_MAX_PATHS * sizeof(*count));
			rhythm = 0;
			/* across the PSN wrap */
			for (psn = U32_MAX - 40; psn != 64 * n * 16 - 41; psn++) {
				if (mro_psn_self_acked(psn)) {
					p = mro_path_pick_rhythm(&ps, &seq);
					rhythm |= BIT_ULL(p);
				} else {
					p = mro_path_pick(&ps, &seq);
				}
				KUNIT_ASSERT_LT(test, p, n);
				KUNIT_EXPECT_EQ(test, seq, count[p]);
				count[p]++;
			}
			want = n == 64 ? U64_MAX : BIT_ULL(n) - 1;
			KUNIT_EXPECT_EQ_MSG(test, rhythm, want, "%s, %u paths",
					    scheds[s]->name, n);
			lo = U32_MAX;
			hi = 0;
			for (p = 0; p < n; p++) {
				lo = min(lo, count[p]);
				hi = max(hi, count[p]);
			}
			KUNIT_EXPECT_LE_MSG(test, hi - lo, 2U, "%s, %u paths",
					    scheds[s]->name, n);
			mro_paths_free(&ps);
		}
	}
	/* retired paths take no turn; all retired: still a path of ours */
	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 4, 7, GFP_KERNEL), 0);
	mro_path_retire(&ps, 1, 0, 0);
	for (k = 0; k < 30; k++)
		KUNIT_EXPECT_NE(test, mro_path_pick_rhythm(&ps, &seq), 1);
	for (p = 0; p < 4; p++)
		mro_path_retire(&ps, p, 0, 0);
	KUNIT_EXPECT_LT(test, mro_path_pick_rhythm(&ps, &seq), 4);
	mro_paths_free(&ps);
}

/* a duplicate's ACK: never the request's path, every other one in turn */
static void sched_dup_ack_rotates(struct kunit *test)
{
	u16 n, path, turn, p;
	u64 seen, want;

	for (n = 2; n <= MRO_MAX_PATHS; n++) {
		for (path = 0; path < n; path++) {
			seen = 0;
			for (turn = 0; turn < n - 1; turn++) {
				p = mro_path_dup_ack(path, n, turn);
				KUNIT_ASSERT_LT(test, p, n);
				KUNIT_EXPECT_NE(test, p, path);
				KUNIT_EXPECT_FALSE(test, seen & BIT_ULL(p));
				seen |= BIT_ULL(p);
			}
			want = (n == 64 ? U64_MAX : BIT_ULL(n) - 1) & ~BIT_ULL(path);
			KUNIT_EXPECT_EQ(test, seen, want);
		}
	}
	/* the turn counter wraps (u16) without leaving the range */
	KUNIT_EXPECT_LT(test, mro_path_dup_ack(3, 8, U16_MAX), 8);
	KUNIT_EXPECT_NE(test, mro_path_dup_ack(3, 8, U16_MAX), 3);
	/* a hostile path number beyond n still gives a path of ours */
	KUNIT_EXPECT_LT(test, mro_path_dup_ack(U16_MAX, 8, 5), 8);
	KUNIT_EXPECT_EQ(test, mro_path_dup_ack(0, 1, 9), 0);
	KUNIT_EXPECT_EQ(test, mro_path_dup_ack(7, 1, 9), 0);
}

/* a READ response: on the request's path while it is ours and active */
static void sched_reply_on_request_path(struct kunit *test)
{
	struct mro_pathset ps;
	u32 seq, seq3;
	u16 p, i;

	sched_setup(test, &ps, 8);
	seq3 = ps.path[3].next_seq;
	for (i = 0; i < 5; i++) {
		KUNIT_EXPECT_EQ(test, mro_path_reply(&ps, 3, &seq), 3);
		KUNIT_EXPECT_EQ(test, seq, seq3 + i);
	}
	/* the path's own sequence moved, no other path's */
	KUNIT_EXPECT_EQ(test, ps.path[3].next_seq, seq3 + 5);
	for (i = 0; i < 8; i++)
		if (i != 3)
			KUNIT_EXPECT_EQ(test, ps.path[i].next_seq, 0U);
	/* retired here: another path, by the scheduler */
	mro_path_retire(&ps, 3, 0, 0);
	for (i = 0; i < 20; i++) {
		p = mro_path_reply(&ps, 3, &seq);
		KUNIT_EXPECT_LT(test, p, 8);
		KUNIT_EXPECT_NE(test, p, 3);
	}
	/* a path number from the wire beyond the set: still one of ours */
	p = mro_path_reply(&ps, 8, &seq);
	KUNIT_EXPECT_LT(test, p, 8);
	p = mro_path_reply(&ps, U16_MAX, &seq);
	KUNIT_EXPECT_LT(test, p, 8);
	mro_paths_free(&ps);
}

/* a scheduler of the test's own: records what the path set asks of it */
struct seam_state {
	u32 inits;
	u32 releases;
	u32 sends;
	u32 retrans;
	u64 last_avoid;
	bool zeroed;		/* the private areas were zero at init */
};

static struct seam_state seam;

struct seam_priv {
	u64 magic;
	u32 sends;
};

static void seam_init(struct mro_pathset *ps)
{
	struct seam_priv *sp = mro_sched_priv(ps);
	u16 i;

	seam.inits++;
	seam.zeroed = !sp->magic && !sp->sends;
	for (i = 0; i < ps->n; i++)
		seam.zeroed &= !*(u64 *)mro_sched_path_priv(ps, i);
	sp->magic = 0x5eed;
}

static void seam_release(struct mro_pathset *ps)
{
	seam.releases++;
}

/* always the last path, counting in its own private area */
static u16 seam_get_send(struct mro_pathset *ps)
{
	struct seam_priv *sp = mro_sched_priv(ps);

	seam.sends++;
	sp->sends++;
	(*(u64 *)mro_sched_path_priv(ps, ps->n - 1))++;
	return ps->n - 1;
}

/* the lowest path outside @avoid */
static u16 seam_get_retrans(struct mro_pathset *ps, u64 avoid)
{
	seam.retrans++;
	seam.last_avoid = avoid;
	return avoid == U64_MAX ? 0 : __ffs64(~avoid) % ps->n;
}

static struct mro_sched_ops seam_ops = {
	.name = "kunit-seam",
	.priv_size = sizeof(struct seam_priv),
	.path_priv_size = sizeof(u64),
	.init = seam_init,
	.release = seam_release,
	.get_send = seam_get_send,
	.get_retrans = seam_get_retrans,
};

/* registration refuses what the path set could not run */
static void sched_register_checks(struct kunit *test)
{
	struct mro_sched_ops bad;

	bad = seam_ops;
	bad.get_send = NULL;
	KUNIT_EXPECT_EQ(test, mro_sched_register(&bad), -EINVAL);
	bad = seam_ops;
	bad.get_retrans = NULL;
	KUNIT_EXPECT_EQ(test, mro_sched_register(&bad), -EINVAL);
	bad = seam_ops;
	bad.priv_size = MRO_SCHED_PRIV_SIZE + 1;
	KUNIT_EXPECT_EQ(test, mro_sched_register(&bad), -EINVAL);
	bad = seam_ops;
	bad.path_priv_size = MRO_SCHED_PATH_PRIV_SIZE + 1;
	KUNIT_EXPECT_EQ(test, mro_sched_register(&bad), -EINVAL);
	bad = seam_ops;
	bad.name = "a-name-of-sixteen";
	KUNIT_EXPECT_EQ(test, mro_sched_register(&bad), -EINVAL);
	bad = seam_ops;
	bad.name = "";
	KUNIT_EXPECT_EQ(test, mro_sched_register(&bad), -EINVAL);
	bad = seam_ops;
	bad.name = "weighted";		/* a built-in one's */
	KUNIT_EXPECT_EQ(test, mro_sched_register(&bad), -EEXIST);
	KUNIT_EXPECT_NULL(test, mro_sched_find("kunit-seam"));

	KUNIT_ASSERT_EQ(test, mro_sched_register(&seam_ops), 0);
	KUNIT_EXPECT_PTR_EQ(test, mro_sched_find("kunit-seam\n"),
			    (const struct mro_sched_ops *)&seam_ops);
	bad = seam_ops;
	KUNIT_EXPECT_EQ(test, mro_sched_register(&bad), -EEXIST);
	KUNIT_EXPECT_PTR_EQ(test, mro_sched_get("kunit-seam"),
			    (const struct mro_sched_ops *)&seam_ops);
	mro_sched_put(&seam_ops);
	mro_sched_unregister(&seam_ops);
	KUNIT_EXPECT_NULL(test, mro_sched_find("kunit-seam"));
	KUNIT_EXPECT_NULL(test, mro_sched_get("kunit-seam"));
	/* the built-in ones stay */
	KUNIT_EXPECT_PTR_EQ(test, mro_sched_get("rr"), &mro_sched_rr);
}

/*
 * New packets go through get_send, retransmissions through get_retrans
 * with the mask as given, and nothing else asks the scheduler; init and
 * release bracket its use, on zeroed private areas.
 */
static void sched_ops_seam(struct kunit *test)
{
	struct mro_pathset ps;
	struct seam_priv *sp;
	u32 seq, i;
	u16 p;

	memset(&seam, 0, sizeof(seam));
	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 4, 3, GFP_KERNEL), 0);
	/* dirty private areas, as the previous scheduler may leave them */
	memset(ps.sched_priv, 0xa5, sizeof(ps.sched_priv));
	for (i = 0; i < 4; i++)
		memset(ps.path[i].sched_priv, 0xa5,
		       sizeof(ps.path[i].sched_priv));
	mro_paths_set_sched(&ps, &seam_ops);
	KUNIT_EXPECT_EQ(test, seam.inits, 1U);
	KUNIT_EXPECT_TRUE(test, seam.zeroed);
	sp = mro_sched_priv(&ps);
	KUNIT_EXPECT_EQ(test, sp->magic, 0x5eedULL);

	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, mro_path_pick(&ps, &seq), 3);
	KUNIT_EXPECT_EQ(test, seam.sends, 10U);
	KUNIT_EXPECT_EQ(test, sp->sends, 10U);
	KUNIT_EXPECT_EQ(test, *(u64 *)mro_sched_path_priv(&ps, 3), 10ULL);
	KUNIT_EXPECT_EQ(test, ps.path[3].next_seq, 10U);

	p = mro_path_pick_retx(&ps, BIT_ULL(0) | BIT_ULL(1), &seq);
	KUNIT_EXPECT_EQ(test, p, 2);
	KUNIT_EXPECT_EQ(test, seam.retrans, 1U);
	KUNIT_EXPECT_EQ(test, seam.last_avoid, BIT_ULL(0) | BIT_ULL(1));
	KUNIT_EXPECT_EQ(test, seq, 0U);
	KUNIT_EXPECT_EQ(test, seam.sends, 10U);

	/* the transport's own rules do not ask the scheduler */
	mro_path_reply(&ps, 1, &seq);
	mro_path_pick_rhythm(&ps, &seq);
	KUNIT_EXPECT_EQ(test, seam.sends, 10U);
	KUNIT_EXPECT_EQ(test, seam.retrans, 1U);

	/* handing over releases it and zeroes what it kept */
	mro_paths_set_sched(&ps, &mro_sched_weighted);
	KUNIT_EXPECT_EQ(test, seam.releases, 1U);
	KUNIT_EXPECT_EQ(test, mro_sched_weighted_credit(&ps, 3), 0);
	mro_paths_set_sched(&ps, &seam_ops);
	KUNIT_EXPECT_EQ(test, seam.inits, 2U);
	KUNIT_EXPECT_TRUE(test, seam.zeroed);
	mro_paths_free(&ps);
	KUNIT_EXPECT_EQ(test, seam.releases, 2U);
	KUNIT_EXPECT_NULL(test, ps.sched);
}

static struct kunit_case metaroce_sched_cases[] = {
	KUNIT_CASE(sched_register_checks),
	KUNIT_CASE(sched_ops_seam),
	KUNIT_CASE(sched_reply_on_request_path),
	KUNIT_CASE(sched_dup_ack_rotates),
	KUNIT_CASE(sched_rhythm_takes_turns),
	KUNIT_CASE(sched_find),
	KUNIT_CASE(sched_equal_is_round_robin),
	KUNIT_CASE(sched_lossy_share),
	KUNIT_CASE(sched_monotonic),
	KUNIT_CASE(sched_skips_retired),
	KUNIT_CASE(sched_revived_rejoins),
	KUNIT_CASE(sched_all_retired),
	KUNIT_CASE(sched_single_path),
	KUNIT_CASE(sched_many_paths),
	{}
};

static struct kunit_suite metaroce_sched_suite = {
	.name = "metaroce_sched",
	.test_cases = metaroce_sched_cases,
};

kunit_test_suite(metaroce_sched_suite);
