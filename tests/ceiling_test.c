// SPDX-License-Identifier: GPL-2.0
/*
 * Capability ceilings for user namespaces: the user namespace set of a task
 * (prctl(PR_CAP_USERNS), CapUns), the ceiling of a namespace
 * (NS_GET_USERNS_CAP_CEILING) and the system mask
 * (kernel.userns_cap_mask), seen through real operations of unprivileged
 * users.
 *
 * Most cases take CAP_NET_ADMIN away, written "-NET" in the drawings, and
 * check it against what it gates inside a network namespace of the user
 * namespace: setting lo's MTU, adding a link, adding a netfilter table.
 */

#include <linux/io_uring.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>

#include "kselftest_harness.h"
#include "nscaps_test.h"

#define NET		(1LL << CAP_NET_ADMIN)

/*
 * What a namespace's root may do with CAP_NET_ADMIN, by where the namespace
 * sits and what its creators dropped:
 *
 *   init
 *   +-- A   alice's, her set as the variant says
 *       +-- A1   root of A's, its set full
 *           +-- A2   root of A1's, its set full
 *
 * The variant acts as root of A, A1 or A2, in a new network namespace of
 * that user namespace.  A cap that alice dropped is gone at every depth:
 * nested creation never regains it.
 */
FIXTURE(nested) {
	struct agent a[3];
};

FIXTURE_VARIANT(nested) {
	unsigned long long alice_drops;
	int depth;		/* 0: root of A, 1: of A1, 2: of A2 */
	int expected;
};

FIXTURE_VARIANT_ADD(nested, full_set_a) {
	.depth = 0, .expected = 0,
};
FIXTURE_VARIANT_ADD(nested, full_set_a2) {
	.depth = 2, .expected = 0,
};
FIXTURE_VARIANT_ADD(nested, dropped_a) {
	.alice_drops = NET, .depth = 0, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(nested, dropped_a1) {
	.alice_drops = NET, .depth = 1, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(nested, dropped_a2) {
	.alice_drops = NET, .depth = 2, .expected = EPERM,
};

FIXTURE_SETUP(nested)
{
	struct agent_spec a = { .creator = ALICE, .drop = variant->alice_drops,
				.unshare = CLONE_NEWUSER | CLONE_NEWNET,
				.uid = 0 };
	struct agent_spec below = { .creator = 0, .uid = 0,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	int i;

	ASSERT_EQ(0, agent_start(&self->a[0], &a));
	for (i = 1; i <= variant->depth; i++) {
		below.join = self->a[i - 1].pid;
		ASSERT_EQ(0, agent_start(&self->a[i], &below));
	}
}

FIXTURE_TEARDOWN(nested)
{
	int i;

	for (i = 2; i >= 0; i--)
		agent_stop(&self->a[i]);
}

TEST_F(nested, net_admin)
{
	struct agent *root = &self->a[variant->depth];
	bool has = !variant->expected;

	/*
	 * The sets are what a kernel without clamps gives; the clamp shows
	 * in CapClamped, and holds at each check.
	 */
	EXPECT_EQ(ALL_CAPS, task_caps(root->pid, "CapEff:"));
	EXPECT_EQ(ALL_CAPS, task_caps(root->pid, "CapBnd:"));
	EXPECT_EQ(!has, HAS(task_caps(root->pid, "CapClamped:"),
			    CAP_NET_ADMIN));
	EXPECT_EQ(has, HAS(ns_ceiling(root->pid), CAP_NET_ADMIN));
	/* What was not dropped is not clamped. */
	EXPECT_FALSE(HAS(task_caps(root->pid, "CapClamped:"), CAP_SYS_ADMIN));

	EXPECT_EQ(variant->expected, agent_do(root, OP_LO_MTU, 0, 0, NULL));
	EXPECT_EQ(variant->expected,
		  agent_do(root, OP_ADD_DUMMY, 0, 0, "dummy0"));
	EXPECT_EQ(variant->expected,
		  agent_do(root, OP_NFT_TABLE, 0, 0, "filter"));
	/* Capabilities that were not dropped still work: CAP_SYS_ADMIN. */
	EXPECT_EQ(0, agent_do(root, OP_UNSHARE, 0, CLONE_NEWUTS, NULL));
	EXPECT_EQ(0, agent_do(root, OP_SETHOSTNAME, 0, 0, "nested"));
}

/*
 * An empty network namespace is still there for isolation:
 *
 *   init: alice drops CAP_NET_ADMIN from her set
 *   +-- A, with a network namespace: created fine, lo exists, nothing can
 *       be configured
 */
TEST(clamped_user_still_gets_empty_netns)
{
	struct agent a;
	struct agent_spec spec = { .creator = ALICE, .drop = NET,
				   .unshare = CLONE_NEWUSER | CLONE_NEWNET,
				   .uid = 0 };

	ASSERT_EQ(0, agent_start(&a, &spec));
	EXPECT_NE(ns_ino(1, "net"), ns_ino(a.pid, "net"));
	EXPECT_EQ(EPERM, agent_do(&a, OP_ADD_DUMMY, 0, 0, "dummy0"));
	EXPECT_EQ(EPERM, agent_do(&a, OP_NFT_TABLE, 0, 0, "filter"));
	agent_stop(&a);
}

/*
 * The owner rule, from the parent namespace, is clamped by the owner's own
 * user namespace set and by the namespace's ceiling:
 *
 *   init: alice (no caps)
 *   +-- U  alice's, created with her set full or -KILL; root of U is kuid
 *          200000 (U_MAP), so a signal from alice needs CAP_KILL in U
 *
 *   alice's set when U was made   alice's set now   alice signals root of U
 *   full                          full              allowed
 *   full                          -KILL             EPERM (owner's set)
 *   -KILL                         -KILL             EPERM (ceiling)
 *
 * and attaches to it: allowed, but for the middle case, where root of U
 * holds a fuller set than alice.
 */
FIXTURE(owner) {
	struct agent u, alice;
};

FIXTURE_VARIANT(owner) {
	bool drop_before;
	bool drop_after;
	int expected;
	int attach;	/* PTRACE_ATTACH to root of U */
	int open_ns;	/* opening its namespace file, to join U */
};

FIXTURE_VARIANT_ADD(owner, full) {
	.expected = 0, .attach = 0,
};
FIXTURE_VARIANT_ADD(owner, owner_set_lowered) {
	.drop_after = true, .expected = EPERM, .attach = EPERM,
	.open_ns = EACCES,
};
FIXTURE_VARIANT_ADD(owner, ceiling_lowered) {
	.drop_before = true, .drop_after = true, .expected = EPERM,
	.attach = 0,
};

FIXTURE_SETUP(owner)
{
	struct agent_spec u = { .creator = ALICE, .unshare = CLONE_NEWUSER,
				.uid_map = U_MAP, .uid = 0,
				.drop = variant->drop_before ?
					1ULL << CAP_KILL : 0 };
	struct agent_spec alice = { .creator = ALICE, .uid = KEEP };

	ASSERT_EQ(0, agent_start(&self->u, &u));
	ASSERT_EQ(0, agent_start(&self->alice, &alice));
	if (variant->drop_after)
		ASSERT_EQ(0, agent_do(&self->alice, OP_USERNS_LOWER, 0,
				      CAP_KILL, NULL));
}

FIXTURE_TEARDOWN(owner)
{
	agent_stop(&self->alice);
	agent_stop(&self->u);
}

TEST_F(owner, signal)
{
	EXPECT_EQ(variant->expected, agent_do(&self->alice, OP_SIGNAL,
					      self->u.pid, 0, NULL));
	/*
	 * Attaching, and opening U's namespace file to join it, need
	 * CAP_SYS_PTRACE in U, which the owner rule gives, and alice's set
	 * to hold root of U's: it does not once she lowered hers below the
	 * set root of U was started with.  Joining then needs CAP_SYS_ADMIN
	 * in U, which the owner rule still gives.
	 */
	EXPECT_EQ(variant->attach, agent_do(&self->alice, OP_ATTACH,
					    self->u.pid, 0, NULL));
	EXPECT_EQ(variant->open_ns, agent_do(&self->alice, OP_TRY_SETNS,
					     self->u.pid, 0, NULL));
}

/*
 * setns() into an older namespace with a fuller ceiling:
 *
 *   init: alice
 *   +-- B  alice's, made with her set full: ceiling full
 *
 *   an alice task that dropped CAP_NET_ADMIN cannot open B's namespace
 *   files through /proc (root of B holds a fuller set); given them (the
 *   test opens them for it, as a helper could pass them), it joins B (the
 *   owner rule gives it CAP_SYS_ADMIN in B) and gets B's caps, with
 *   CAP_NET_ADMIN clamped by its set; root of B, which entered B before,
 *   keeps it.
 */
TEST(setns_into_fuller_namespace_is_clamped)
{
	struct agent b, joiner;
	struct agent_spec bspec = { .creator = ALICE, .uid = 0,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	struct agent_spec jspec = { .creator = ALICE, .drop = NET,
				    .uid = KEEP };
	char path[64];
	int user, net;
	long long clamped;

	ASSERT_EQ(0, agent_start(&b, &bspec));
	EXPECT_TRUE(HAS(ns_ceiling(b.pid), CAP_NET_ADMIN));
	snprintf(path, sizeof(path), "/proc/%d/ns/user", b.pid);
	user = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", b.pid);
	net = open(path, O_RDONLY);
	ASSERT_LE(0, user);
	ASSERT_LE(0, net);
	ASSERT_EQ(0, agent_start(&joiner, &jspec));
	close(user);
	close(net);

	EXPECT_EQ(EACCES, agent_do(&joiner, OP_SETNS, b.pid, 0, "user"));
	ASSERT_EQ(0, agent_do(&joiner, OP_SETNS_FD, 0, user, NULL));
	ASSERT_EQ(0, agent_do(&joiner, OP_SETNS_FD, 0, net, NULL));
	EXPECT_EQ(ALL_CAPS, task_caps(joiner.pid, "CapEff:"));
	clamped = task_caps(joiner.pid, "CapClamped:");
	EXPECT_TRUE(HAS(clamped, CAP_NET_ADMIN));
	EXPECT_FALSE(HAS(clamped, CAP_SYS_ADMIN));
	EXPECT_EQ(0, task_caps(b.pid, "CapClamped:"));
	EXPECT_EQ(EPERM, agent_do(&joiner, OP_LO_MTU, 0, 0, NULL));
	EXPECT_EQ(0, agent_do(&b, OP_LO_MTU, 0, 0, NULL));

	agent_stop(&joiner);
	agent_stop(&b);
}

/*
 * The system mask clamps namespaces that already exist, and raising it
 * restores them; real root in the initial namespace is never masked:
 *
 *   init: real root
 *   +-- C  alice's, full ceiling, root of C in its own network namespace
 *
 *   mask -NET:  root of C: lo's MTU EPERM; real root adds a link inside C's
 *               network namespace and writes the maps of a new namespace
 *   mask full:  root of C: lo's MTU allowed again
 */
FIXTURE(mask) {
	long long saved;
	struct agent c;
};

FIXTURE_SETUP(mask)
{
	struct agent_spec c = { .creator = ALICE, .uid = 0,
				.unshare = CLONE_NEWUSER | CLONE_NEWNET };

	self->saved = get_mask();
	ASSERT_EQ(ALL_CAPS, self->saved);
	ASSERT_EQ(0, agent_start(&self->c, &c));
}

FIXTURE_TEARDOWN(mask)
{
	agent_stop(&self->c);
	set_mask(self->saved);
}

TEST_F(mask, clamps_existing_and_restores)
{
	struct agent fresh;
	struct agent_spec fspec = { .creator = ALICE, .uid = 0,
				    .unshare = CLONE_NEWUSER,
				    .uid_map = U_MAP };

	ASSERT_EQ(0, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));

	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	EXPECT_EQ(ALL_CAPS & ~NET, get_mask());
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_NFT_TABLE, 0, 0, "t"));
	/* The namespace's own ceiling did not change: the mask is apart. */
	EXPECT_TRUE(HAS(ns_ceiling(self->c.pid), CAP_NET_ADMIN));
	/* Other capabilities are untouched. */
	EXPECT_EQ(0, agent_do(&self->c, OP_UNSHARE, 0, CLONE_NEWUTS, NULL));
	EXPECT_EQ(0, agent_do(&self->c, OP_SETHOSTNAME, 0, 0, "c"));

	/* Real root manages the container as before. */
	EXPECT_EQ(0, net_add_dummy("fromhost", self->c.pid));
	EXPECT_EQ(0, agent_start(&fresh, &fspec));
	agent_stop(&fresh);

	ASSERT_EQ(0, set_mask(ALL_CAPS));
	EXPECT_EQ(0, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	EXPECT_EQ(0, agent_do(&self->c, OP_NFT_TABLE, 0, 0, "t2"));
}

/*
 * A task that enters a namespace while the mask is low is held by the mask
 * at each check, not at entry: its sets are what a kernel without clamps
 * gives, CapClamped says what the mask cuts, and raising the mask restores
 * it as it restores everyone else.
 *
 *   mask -NET:  alice creates L (full ceiling); root of L: CapEff has
 *               CAP_NET_ADMIN, CapClamped too; lo's MTU EPERM
 *   mask full:  root of L: lo's MTU allowed, CapClamped empty
 */
TEST_F(mask, entering_while_low_restored)
{
	struct agent late;
	struct agent_spec lspec = { .creator = ALICE, .uid = 0,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET };

	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	ASSERT_EQ(0, agent_start(&late, &lspec));
	EXPECT_TRUE(HAS(task_caps(late.pid, "CapEff:"), CAP_NET_ADMIN));
	EXPECT_TRUE(HAS(task_caps(late.pid, "CapBnd:"), CAP_NET_ADMIN));
	EXPECT_EQ(NET, task_caps(late.pid, "CapClamped:"));
	EXPECT_EQ(EPERM, agent_do(&late, OP_LO_MTU, 0, 0, NULL));

	ASSERT_EQ(0, set_mask(ALL_CAPS));
	EXPECT_EQ(0, task_caps(late.pid, "CapClamped:"));
	EXPECT_EQ(0, agent_do(&late, OP_LO_MTU, 0, 0, NULL));
	agent_stop(&late);
}

/*
 * A new namespace may map its root to its creator's uid 0 only if the
 * creator held CAP_SETFCAP, for file capabilities valid in the parent
 * then count.  The mask counts there too, whether it was lowered before
 * the namespace was made or between that and the writing of its map:
 *
 *   init: real root, mask as the variant says
 *   +-- U  alice's, she maps herself to its root (CapEff full)
 *       +-- M  made by root of U, which writes its uid_map "0 0 1"
 *
 *   mask when M is made   when the map is written   the map
 *   full                  full                      allowed
 *   -SETFCAP              -SETFCAP                  EPERM
 *   full                  -SETFCAP                  EPERM
 *   -SETFCAP              full                      allowed: raising the
 *                                                   mask restores it
 */
FIXTURE(root_map) {
	long long saved;
};

FIXTURE_VARIANT(root_map) {
	bool low_at_creation, low_at_map;
	int expected;
};

FIXTURE_VARIANT_ADD(root_map, mask_full) { .expected = 0 };
FIXTURE_VARIANT_ADD(root_map, mask_low) {
	.low_at_creation = true, .low_at_map = true, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(root_map, mask_lowered_before_map) {
	.low_at_map = true, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(root_map, mask_raised_before_map) {
	.low_at_creation = true, .expected = 0,
};

FIXTURE_SETUP(root_map)
{
	self->saved = get_mask();
}

FIXTURE_TEARDOWN(root_map)
{
	set_mask(self->saved);
}

TEST_F(root_map, map_root_to_root)
{
	long long no_setfcap = ALL_CAPS & ~(1LL << CAP_SETFCAP);
	int made[2], go[2], status;
	char c = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(made));
	ASSERT_EQ(0, pipe(go));
	if (variant->low_at_creation)
		ASSERT_EQ(0, set_mask(no_setfcap));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (become(ALICE, false) || unshare(CLONE_NEWUSER) ||
		    proc_write(getpid(), "setgroups", "deny") ||
		    proc_write(getpid(), "uid_map", "0 1000 1") ||
		    proc_write(getpid(), "gid_map", "0 1000 1") ||
		    unshare(CLONE_NEWUSER) || write(made[1], &c, 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(255);
		_exit(-proc_write(getpid(), "uid_map", "0 0 1"));
	}
	ASSERT_EQ(1, read(made[0], &c, 1));
	ASSERT_EQ(0, set_mask(variant->low_at_map ? no_setfcap : ALL_CAPS));
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(variant->expected, WEXITSTATUS(status));
}

/*
 * Denials caused by a clamp are logged, each user's rate-limited apart,
 * and a line names a task only if the credentials checked were its own.
 *
 *   init: real root lowers the mask (-NET, or -SYS_PTRACE)
 *   +-- C  alice's, root of C is kuid 200000 (U_MAP)
 *   +-- D  bob's, he maps himself to its root
 *   +-- R1 alice's, with a range of uids mapped as newuidmap maps them:
 *   |      root of R1 is kuid 300000
 *   +-- R2 the same, root of R2 is kuid 400000
 *
 * (Not real root's: the mask does not hold the namespaces real root makes.)
 */
struct log_world {
	long long saved;
	struct agent c, d, r1, r2;
	char log[1 << 18];
};

static int log_world_start(struct log_world *w)
{
	struct agent_spec c = { .creator = ALICE, .uid = 0, .uid_map = U_MAP,
				.unshare = CLONE_NEWUSER | CLONE_NEWNET };
	struct agent_spec d = { .creator = BOB, .uid = 0,
				.unshare = CLONE_NEWUSER | CLONE_NEWNET };
	struct agent_spec r = { .creator = ALICE, .uid = 0,
				.uid_map = "0 300000 1000",
				.unshare = CLONE_NEWUSER | CLONE_NEWNET };
	int err;

	w->saved = get_mask();
	err = agent_start(&w->c, &c);
	if (!err)
		err = agent_start(&w->d, &d);
	if (!err)
		err = agent_start(&w->r1, &r);
	r.uid_map = "0 400000 1000";
	if (!err)
		err = agent_start(&w->r2, &r);
	return err;
}

static void log_world_stop(struct log_world *w)
{
	agent_stop(&w->r2);
	agent_stop(&w->r1);
	agent_stop(&w->d);
	agent_stop(&w->c);
	set_mask(w->saved);
}

/*
 * The tests that read the log count what follows a marker; a marker the
 * log does not show yet would send them to an earlier test's.  Nothing is
 * logged after this one.
 */
TEST(log_marker_read_at_once)
{
	static char log[1 << 18];
	char marker[64];

	snprintf(marker, sizeof(marker), "nscaps: marker %d", getpid());
	ASSERT_EQ(0, log_mark(marker));
	EXPECT_NE(NULL, strstr(log_since(marker, log, sizeof(log)), marker));
}

FIXTURE(denial_log) {
	struct log_world w;
};

FIXTURE_SETUP(denial_log)
{
	ASSERT_EQ(0, log_world_start(&self->w));
}

FIXTURE_TEARDOWN(denial_log)
{
	log_world_stop(&self->w);
}

/*
 * The denial line is one sample for everyone, ten in five seconds, and the
 * tests before may have used up the current interval: make the denial
 * with @fn in @a again, every 100 ms for at most six seconds, until a line
 * with @what follows @marker.  Each try must be refused with EPERM; the
 * log since @marker is left in w->log.
 */
static int deny_until_logged(struct log_world *w, struct agent *a,
			     int (*fn)(const struct agent_cmd *),
			     const char *marker, const char *what)
{
	const char *log;
	int i, err;

	for (i = 0; i < 60; i++) {
		err = agent_do(a, OP_CALL, 0, (long)fn, NULL);
		if (err != EPERM)
			return err ? err : -1;
		log = log_since(marker, w->log, sizeof(w->log));
		if (log_count(log, what))
			return 0;
		usleep(100 * 1000);
	}
	return ETIMEDOUT;
}

/*
 * A name with a newline cannot forge a line of the log, nor one with a
 * backslash an escape: both are escaped.
 */
static int renamed_lo_mtu(const struct agent_cmd *c)
{
	if (prctl(PR_SET_NAME, "x\\y\nforged", 0, 0, 0))
		return errno;
	return net_lo_mtu();
}

TEST_F(denial_log, name_escaped)
{
	static const char marker[] = "nscaps: denial_log.name_escaped";
	const char *log;

	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	ASSERT_EQ(0, log_mark(marker));
	EXPECT_EQ(0, deny_until_logged(&self->w, &self->w.d, renamed_lo_mtu,
				       marker, " comm x\\\\y\\nforged\n"));
	log = log_since(marker, self->w.log, sizeof(self->w.log));
	EXPECT_EQ(0, log_count(log, "\nforged")) {
		TH_LOG("%s", log);
	}
}

/*
 * PTRACE_TRACEME asks whether the parent, root of C, holds CAP_SYS_PTRACE
 * in C: the parent's credentials, checked by its child, uid 5 of C.  The
 * line must not pin the parent's euid on the child.
 *
 *   C:  parent  uid 0 (kuid 200000), dropped CAP_SETUID from its sets
 *       +-- child  uid 5 (kuid 200005), kept its permitted set
 */
static int traceme_by_child(const struct agent_cmd *c)
{
	int go[2], status, err;
	char x = 0;
	pid_t pid;

	if (pipe(go))
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid) {
		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
		    setresuid(5, 5, 5) || read(go[0], &x, 1) != 1)
			_exit(255);
		_exit(ptrace(PTRACE_TRACEME, 0, 0, 0) ? errno : 0);
	}
	/* Now the child's permitted set is not a subset of ours. */
	err = -set_caps("all=ep cap_setuid-ep");
	if (write(go[1], &x, 1) != 1 && !err)
		err = errno;
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return err ? err : WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

TEST_F(denial_log, names_whose_credentials)
{
	static const char marker[] =
		"nscaps: denial_log.names_whose_credentials";
	const char *log;
	char what[128];

	ASSERT_EQ(0, set_mask(ALL_CAPS & ~(1LL << CAP_SYS_PTRACE)));
	ASSERT_EQ(0, log_mark(marker));
	snprintf(what, sizeof(what), "capability %d denied in user namespace "
		 "%lu by kernel.userns_cap_mask: credentials of euid 200000, "
		 "checked by pid ", CAP_SYS_PTRACE,
		 (unsigned long)ns_ino(self->w.c.pid, "user"));
	EXPECT_EQ(0, deny_until_logged(&self->w, &self->w.c, traceme_by_child,
				       marker, what));
	log = log_since(marker, self->w.log, sizeof(self->w.log));
	EXPECT_EQ(0, log_count(log, " euid 200000 comm ")) {
		TH_LOG("%s", log);
	}
}

/*
 * The log of denials is a sample, 10 lines in 5 seconds however many
 * users make them, so that no loop of denials fills it: neither one user
 * nor many uids at once, each with a limit of its own, can get more.
 * Whether a line makes the sample is not the point, so the count is an
 * upper bound: denial_log shows that lines are written at all.
 *
 *   flooder                                           denials  logged
 *   root of C (alice's)                               300      the sample
 *   R1 (alice's, newuidmap's way: uid N is kuid 300000 + N)
 *   +-- uid 0 .. 9 of R1, each with all of R1's caps  30 each  the sample
 */
FIXTURE(denial_flood) {
	struct log_world w;
};

FIXTURE_VARIANT(denial_flood) {
	bool many_uids;
};

FIXTURE_VARIANT_ADD(denial_flood, one_user) {};
FIXTURE_VARIANT_ADD(denial_flood, ten_uids) {
	.many_uids = true,
};

FIXTURE_SETUP(denial_flood)
{
	ASSERT_EQ(0, log_world_start(&self->w));
}

FIXTURE_TEARDOWN(denial_flood)
{
	log_world_stop(&self->w);
}

#define FLOOD		300
#define FLOOD_UIDS	10

static int lo_mtu_denials(int n)
{
	int i, err = 0;

	for (i = 0; i < n && !err; i++)
		err = net_lo_mtu() == EPERM ? 0 : EINVAL;
	return err;
}

static int lo_mtu_flood(const struct agent_cmd *c)
{
	return lo_mtu_denials(FLOOD);
}

/* Each uid of R1 in turn, keeping R1's capabilities, makes its share. */
static int lo_mtu_flood_by_uids(const struct agent_cmd *c)
{
	int uid, status, err = 0;
	pid_t pid;

	for (uid = 0; uid < FLOOD_UIDS && !err; uid++) {
		pid = fork();
		if (pid < 0)
			return errno;
		if (!pid) {
			if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
			    setresuid(uid, uid, uid) || set_caps("all=ep"))
				_exit(ECHILD);
			_exit(lo_mtu_denials(FLOOD / FLOOD_UIDS));
		}
		if (waitpid(pid, &status, 0) != pid)
			return errno;
		err = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	}
	return err;
}

/* Seconds from @t0 to now. */
static double since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return t1.tv_sec - t0->tv_sec + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

TEST_F(denial_flood, sampled)
{
	static const char marker[] = "nscaps: denial_flood";
	struct agent *flooder = variant->many_uids ? &self->w.r1 : &self->w.c;
	struct timespec t0;
	const char *log;
	char what[96];
	double secs;
	int lines;

	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	ASSERT_EQ(0, log_mark(marker));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, agent_do(flooder, OP_CALL, 0,
			      variant->many_uids ? (long)lo_mtu_flood_by_uids :
						   (long)lo_mtu_flood, NULL));
	secs = since(&t0);
	log = log_since(marker, self->w.log, sizeof(self->w.log));

	snprintf(what, sizeof(what), "in user namespace %lu by "
		 "kernel.userns_cap_mask",
		 (unsigned long)ns_ino(flooder->pid, "user"));
	lines = log_count(log, what);
	/*
	 * Ten for each interval the flood reached, the one it began in
	 * included (an earlier test may have used some of it): so at most
	 * twenty within 5 seconds, where a limit for each uid would have
	 * let each uid have ten.
	 */
	EXPECT_GE(10 * ((int)secs / 5 + 2), lines) {
		TH_LOG("%.2f s, %d lines of the flood; %s", secs, lines, log);
	}
}

/*
 * Bad writes to the sysctl are refused and change nothing.
 */
FIXTURE(bad_mask) {
	long long saved;
};

FIXTURE_VARIANT(bad_mask) {
	const char *text;
};

FIXTURE_VARIANT_ADD(bad_mask, not_hex) { .text = "xyz\n" };
FIXTURE_VARIANT_ADD(bad_mask, empty) { .text = "\n" };
FIXTURE_VARIANT_ADD(bad_mask, prefix_only) { .text = "0x\n" };
FIXTURE_VARIANT_ADD(bad_mask, two_numbers) { .text = "ff ff\n" };
FIXTURE_VARIANT_ADD(bad_mask, negative) { .text = "-1\n" };
FIXTURE_VARIANT_ADD(bad_mask, beyond_last_cap) {
	.text = "ffffffffffffffff\n"
};
FIXTURE_VARIANT_ADD(bad_mask, too_long) {
	.text = "00000000000000000000000000000001ff\n"
};

FIXTURE_SETUP(bad_mask)
{
	self->saved = get_mask();
	ASSERT_EQ(0, set_mask(0x1ff));
}

FIXTURE_TEARDOWN(bad_mask)
{
	set_mask(self->saved);
}

TEST_F(bad_mask, rejected)
{
	EXPECT_EQ(-EINVAL, write_file(MASK_PATH, variant->text));
	EXPECT_EQ(0x1ff, get_mask());
}

TEST(mask_syntax_and_permission)
{
	long long saved = get_mask();
	pid_t child;
	int status;

	ASSERT_EQ(0, write_file(MASK_PATH, "0x3ff"));
	EXPECT_EQ(0x3ff, get_mask());
	ASSERT_EQ(0, write_file(MASK_PATH, "1ff\n"));
	EXPECT_EQ(0x1ff, get_mask());

	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		/* Root without CAP_SYS_ADMIN: the handler's own check. */
		ASSERT_EQ(0, set_caps("all=ep cap_sys_admin-ep"));
		EXPECT_EQ(-EPERM, write_file(MASK_PATH, "0"));
		/* An unprivileged user: the file mode already refuses. */
		ASSERT_EQ(0, become(ALICE, false));
		EXPECT_EQ(-EACCES, write_file(MASK_PATH, "0"));
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0x1ff, get_mask());
	ASSERT_EQ(0, set_mask(saved));
}

/*
 * prctl(PR_CAP_USERNS): nothing raises, bad input is EINVAL and changes
 * nothing.
 */
FIXTURE(prctl) {};

FIXTURE_VARIANT(prctl) {
	unsigned long op, cap, arg4;
	int ret;	/* return value, or -errno */
};

FIXTURE_VARIANT_ADD(prctl, is_set_kept) {
	.op = PR_CAP_USERNS_IS_SET, .cap = CAP_SYS_ADMIN, .ret = 1,
};
FIXTURE_VARIANT_ADD(prctl, is_set_dropped) {
	.op = PR_CAP_USERNS_IS_SET, .cap = CAP_NET_ADMIN, .ret = 0,
};
/* No raise: 2, the ambient set's, is no operation of this set. */
FIXTURE_VARIANT_ADD(prctl, raise_dropped) {
	.op = 2, .cap = CAP_NET_ADMIN, .ret = -EINVAL,
};
FIXTURE_VARIANT_ADD(prctl, raise_kept) {
	.op = 2, .cap = CAP_SYS_ADMIN, .ret = -EINVAL,
};
FIXTURE_VARIANT_ADD(prctl, cap_too_big) {
	.op = PR_CAP_USERNS_LOWER, .cap = CAP_LAST_CAP + 1, .ret = -EINVAL,
};
FIXTURE_VARIANT_ADD(prctl, cap_negative) {
	.op = PR_CAP_USERNS_LOWER, .cap = -1UL, .ret = -EINVAL,
};
FIXTURE_VARIANT_ADD(prctl, unknown_op) {
	.op = 99, .cap = CAP_SYS_ADMIN, .ret = -EINVAL,
};
FIXTURE_VARIANT_ADD(prctl, unused_arg_set) {
	.op = PR_CAP_USERNS_LOWER, .cap = CAP_SYS_ADMIN, .arg4 = 1,
	.ret = -EINVAL,
};
FIXTURE_VARIANT_ADD(prctl, clear_all_with_cap) {
	.op = PR_CAP_USERNS_CLEAR_ALL, .cap = CAP_SYS_ADMIN, .ret = -EINVAL,
};

FIXTURE_SETUP(prctl)
{
	/* An unprivileged user that dropped CAP_NET_ADMIN. */
	ASSERT_EQ(0, become(ALICE, false));
	ASSERT_EQ(0, userns_lower_nnp(NET));
}

FIXTURE_TEARDOWN(prctl) {}

TEST_F(prctl, op)
{
	long long before = task_caps(0, "CapUns:");
	int ret = prctl(PR_CAP_USERNS, variant->op, variant->cap,
			variant->arg4, 0);

	EXPECT_EQ(variant->ret, ret < 0 ? -errno : ret);
	EXPECT_EQ(ALL_CAPS & ~NET, before);
	EXPECT_EQ(before, task_caps(0, "CapUns:"));
}

TEST(prctl_lower_and_clear_all)
{
	ASSERT_EQ(0, become(ALICE, false));
	ASSERT_EQ(0, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	EXPECT_EQ(ALL_CAPS, task_caps(0, "CapUns:"));
	ASSERT_EQ(0, prctl(PR_CAP_USERNS, PR_CAP_USERNS_LOWER, CAP_SYS_ADMIN,
			   0, 0));
	EXPECT_EQ(ALL_CAPS & ~(1LL << CAP_SYS_ADMIN),
		  task_caps(0, "CapUns:"));
	ASSERT_EQ(0, prctl(PR_CAP_USERNS, PR_CAP_USERNS_CLEAR_ALL, 0, 0, 0));
	EXPECT_EQ(0, task_caps(0, "CapUns:"));
	/*
	 * A namespace made now is bare: a zero ceiling, every capability of
	 * its sets clamped, and so not even CAP_SYS_ADMIN to write its own
	 * id maps.
	 */
	ASSERT_EQ(0, unshare(CLONE_NEWUSER));
	EXPECT_EQ(ALL_CAPS, task_caps(0, "CapEff:"));
	EXPECT_EQ(ALL_CAPS, task_caps(0, "CapClamped:"));
	EXPECT_EQ(0, ns_ceiling(getpid()));
	EXPECT_EQ(-EPERM, proc_write(getpid(), "uid_map", "0 1000 1"));
}

/*
 * Who may lower the set: a task under no_new_privs, or one with
 * CAP_SETPCAP in its own user namespace, as for seccomp filters and the
 * bounding set; and only a process that is the sole user of its memory,
 * as for unshare(CLONE_NEWUSER).  Anyone else gets EPERM (EINVAL) and
 * keeps its set.
 *
 *   init
 *   |  alice                       no caps                 EPERM
 *   |  alice, no_new_privs                                 allowed
 *   |  alice, no_new_privs, with a second thread           EINVAL
 *   |  alice, no_new_privs, her memory shared (CLONE_VM)   EINVAL
 *   |  alice, no_new_privs, her file table shared          EINVAL
 *   |  alice, no_new_privs, her root and cwd shared        EINVAL
 *   |  alice, no_new_privs, after io_uring_setup()         EINVAL
 *   |  alice, no_new_privs, holding a ring set up by       EINVAL
 *   |    another task (the state exec leaves)
 *   |  alice, no_new_privs, mapping a ring she holds no    EINVAL
 *   |    descriptor of (the state fork leaves)
 *   |  alice, no_new_privs, tracing a child                EINVAL
 *   |  real root                   CAP_SETPCAP             allowed
 *   |  real root                   all but CAP_SETPCAP     EPERM
 *   +-- U  alice's
 *         root of U                CAP_SETPCAP in U        allowed
 *         root of U                no caps left            EPERM
 */
FIXTURE(lower_rule) {
	pthread_t thread;
	pid_t vm_sharer;	/* shares our memory, files or fs; or our tracee */
	int hold[2];
};

enum lowerer { ALICE_PLAIN, ALICE_NNP, REAL_ROOT, ROOT_NO_SETPCAP, U_ROOT,
	       U_ROOT_NO_CAPS };
enum sharing { ALONE, THREAD, IO_URING, RING_FD, RING_MAPPED, TRACEE,
	       SHARED_VM, SHARED_FILES, SHARED_FS };

FIXTURE_VARIANT(lower_rule) {
	enum lowerer who;
	enum sharing sharing;
	unsigned long op;
	int expected;
};

#define LOWER_RULE(name, lowerer, o, err)				\
	FIXTURE_VARIANT_ADD(lower_rule, name) {				\
		.who = lowerer, .op = o, .expected = err,		\
	}
LOWER_RULE(alice_lower, ALICE_PLAIN, PR_CAP_USERNS_LOWER, EPERM);
LOWER_RULE(alice_clear_all, ALICE_PLAIN, PR_CAP_USERNS_CLEAR_ALL, EPERM);
LOWER_RULE(alice_nnp_lower, ALICE_NNP, PR_CAP_USERNS_LOWER, 0);
LOWER_RULE(alice_nnp_clear_all, ALICE_NNP, PR_CAP_USERNS_CLEAR_ALL, 0);
LOWER_RULE(root_lower, REAL_ROOT, PR_CAP_USERNS_LOWER, 0);
LOWER_RULE(root_no_setpcap_lower, ROOT_NO_SETPCAP, PR_CAP_USERNS_LOWER, EPERM);
LOWER_RULE(ns_root_lower, U_ROOT, PR_CAP_USERNS_LOWER, 0);
LOWER_RULE(ns_root_no_caps_lower, U_ROOT_NO_CAPS, PR_CAP_USERNS_LOWER, EPERM);
/* Alice under no_new_privs, refused for what she shares or holds. */
#define SHARING_RULE(name, what)					\
	FIXTURE_VARIANT_ADD(lower_rule, name) {				\
		.who = ALICE_NNP, .sharing = what,			\
		.op = PR_CAP_USERNS_LOWER, .expected = EINVAL,		\
	}
SHARING_RULE(alice_nnp_second_thread, THREAD);
SHARING_RULE(alice_nnp_shared_memory, SHARED_VM);
SHARING_RULE(alice_nnp_io_uring, IO_URING);
SHARING_RULE(alice_nnp_ring_fd, RING_FD);
SHARING_RULE(alice_nnp_ring_mapped, RING_MAPPED);
SHARING_RULE(alice_nnp_tracee, TRACEE);
SHARING_RULE(alice_nnp_shared_files, SHARED_FILES);
SHARING_RULE(alice_nnp_shared_fs, SHARED_FS);

/*
 * A thread, or a process sharing our memory, files or fs, that waits to
 * be released; @pipe is a pipe's two ends.  A process with a copy of the
 * file table of its own closes the end it would otherwise hold open.
 */
static int hold_on_copy(void *pipe)
{
	char c;

	close(((int *)pipe)[1]);
	return read(((int *)pipe)[0], &c, 1) < 0;
}

static int hold_on_shared(void *pipe)
{
	char c;

	return read(((int *)pipe)[0], &c, 1) < 0;
}

/* Set up a ring in the file table we share, and leave. */
static int set_up_ring(void *unused)
{
	struct io_uring_params params = {};

	return syscall(SYS_io_uring_setup, 4, &params) < 0;
}

/* The descriptor of the ring set_up_ring() left in our table, or -1. */
static int ring_in_table(void)
{
	char path[64], link[64];
	int fd;

	for (fd = 3; fd < 64; fd++) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strstr(link, "anon_inode:[io_uring]"))
			return fd;
	}
	return -1;
}

static void *hold_on_thread(void *pipe)
{
	return hold_on_shared(pipe) ? pipe : NULL;
}

FIXTURE_SETUP(lower_rule)
{
	static char stack[1 << 16];

	ASSERT_EQ(0, pipe(self->hold));
	switch (variant->who) {
	case ALICE_PLAIN:
		ASSERT_EQ(0, become(ALICE, false));
		break;
	case ALICE_NNP:
		ASSERT_EQ(0, become(ALICE, false));
		ASSERT_EQ(0, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
		break;
	case REAL_ROOT:
		break;
	case ROOT_NO_SETPCAP:
		ASSERT_EQ(0, set_caps("all=ep cap_setpcap-ep"));
		break;
	case U_ROOT:
	case U_ROOT_NO_CAPS:
		ASSERT_EQ(0, become(ALICE, false));
		ASSERT_EQ(0, unshare(CLONE_NEWUSER));
		if (variant->who == U_ROOT_NO_CAPS)
			ASSERT_EQ(0, set_caps("all-epi"));
		break;
	}
	if (variant->sharing == THREAD)
		ASSERT_EQ(0, pthread_create(&self->thread, NULL,
					    hold_on_thread, self->hold));
	if (variant->sharing == IO_URING) {
		/* A ring made before the lowering keeps the creds of then. */
		struct io_uring_params params = {};

		ASSERT_LE(0, syscall(SYS_io_uring_setup, 4, &params));
	}
	if (variant->sharing == RING_FD || variant->sharing == RING_MAPPED) {
		/*
		 * A ring in our file table, without an io_uring context of
		 * our own: what exec leaves of a ring whose descriptor is not
		 * close-on-exec (seventh review), or a ring received.  Its
		 * personalities act with the credentials of before.
		 */
		int status;
		pid_t child = clone(set_up_ring, stack + sizeof(stack),
				    CLONE_FILES | SIGCHLD, NULL);

		ASSERT_LT(0, child);
		ASSERT_EQ(child, waitpid(child, &status, 0));
		ASSERT_EQ(0, status);
		if (variant->sharing == RING_MAPPED) {
			/*
			 * Only its submission ring mapped: what a child
			 * forked from the ring's owner inherits, and enough
			 * to feed an SQPOLL thread without a system call
			 * (eighth review).
			 */
			int ring = ring_in_table();

			ASSERT_LE(0, ring);
			ASSERT_NE(MAP_FAILED, mmap(NULL, 4096, PROT_READ |
						   PROT_WRITE, MAP_SHARED,
						   ring, IORING_OFF_SQ_RING));
			ASSERT_EQ(0, close(ring));
		}
	}
	if (variant->sharing == TRACEE) {
		/* A child traced from before the lowering, stopped. */
		int status;

		self->vm_sharer = fork();
		ASSERT_LE(0, self->vm_sharer);
		if (!self->vm_sharer) {
			ptrace(PTRACE_TRACEME, 0, NULL, NULL);
			raise(SIGSTOP);
			_exit(0);
		}
		ASSERT_EQ(self->vm_sharer, waitpid(self->vm_sharer, &status,
						   WUNTRACED));
		ASSERT_TRUE(WIFSTOPPED(status));
	}
	if (variant->sharing >= SHARED_VM) {
		static const int flags[] = {
			[SHARED_VM] = CLONE_VM, [SHARED_FILES] = CLONE_FILES,
			[SHARED_FS] = CLONE_FS,
		};

		self->vm_sharer = clone(variant->sharing == SHARED_FILES ?
					hold_on_shared : hold_on_copy,
					stack + sizeof(stack),
					flags[variant->sharing] | SIGCHLD,
					self->hold);
		ASSERT_LT(0, self->vm_sharer);
	}
	ASSERT_EQ(ALL_CAPS, task_caps(0, "CapUns:"));
}

FIXTURE_TEARDOWN(lower_rule)
{
	close(self->hold[1]);
	if (variant->sharing == THREAD)
		pthread_join(self->thread, NULL);
	if (variant->sharing == TRACEE) {
		kill(self->vm_sharer, SIGKILL);
		waitpid(self->vm_sharer, NULL, 0);
	}
	if (variant->sharing >= SHARED_VM)
		waitpid(self->vm_sharer, NULL, 0);
}

TEST_F(lower_rule, lower)
{
	int ret = prctl(PR_CAP_USERNS, variant->op,
			variant->op == PR_CAP_USERNS_LOWER ? CAP_NET_ADMIN : 0,
			0, 0);

	EXPECT_EQ(variant->expected, ret ? errno : 0);
	EXPECT_EQ(variant->expected ? ALL_CAPS :
		  variant->op == PR_CAP_USERNS_LOWER ? ALL_CAPS & ~NET : 0,
		  task_caps(0, "CapUns:"));
	/* Asking needs nothing. */
	EXPECT_EQ(variant->expected || variant->op == PR_CAP_USERNS_LOWER,
		  prctl(PR_CAP_USERNS, PR_CAP_USERNS_IS_SET, CAP_SYS_ADMIN, 0,
			0));
}

/*
 * Exec keeps the set, whatever the program gains, as it keeps the bounding
 * set, and the set holds the program in the namespace it runs in, below
 * the initial one.  The helper (this program run with --report) exits
 * with bit 0 set if CAP_NET_ADMIN is in its user namespace set, bit 1 if
 * it can set lo's MTU in a user and network namespace it creates, bit 2 if
 * it can in a network namespace it creates in its own user namespace.
 *
 *   caller                            helper                        sees
 *   alice, full set                   set-user-ID root copy         7
 *   alice, set -NET (lowered by       plain copy                    0
 *     real root before it became      set-user-ID root copy         4: real
 *     alice, with CAP_SETPCAP)                                      root in
 *                                                                   init
 *                                     set-group-ID copy of a group  0
 *                                     she is in
 *                                     file caps cap_net_admin+ep    0
 *   alice, set -NET, no_new_privs     set-user-ID root copy         0
 *   uid 5 of D (alice's, -NET),       set-user-ID root-of-D copy    1: D's
 *     its own set full                                              ceiling
 *                                                                   cuts
 *   uid 5 of R (real root's, full     set-user-ID root-of-R copy    0: its
 *     ceiling), set -NET lowered by                                 set
 *     the runtime (real root in R)                                  holds R
 *   alice, full set, mask -NET        set-user-ID root copy         7: real
 *                                                                   root in
 *                                                                   init
 *                                                                   makes
 *                                                                   its own
 *                                                                   unmasked
 */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(fn());
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ?
	       WEXITSTATUS(status) : -1;
}

static int new_userns_lo_mtu(void)
{
	return unshare(CLONE_NEWUSER | CLONE_NEWNET) ? errno : net_lo_mtu();
}

static int own_userns_lo_mtu(void)
{
	return unshare(CLONE_NEWNET) ? errno : net_lo_mtu();
}

static int report(void)
{
	int status = 0;

	if (HAS(task_caps(0, "CapUns:"), CAP_NET_ADMIN))
		status |= 1;
	if (!in_child(new_userns_lo_mtu))
		status |= 2;
	if (!in_child(own_userns_lo_mtu))
		status |= 4;
	return status;
}

#define USERS_GID	100	/* a group alice is in */

enum helper_kind { PLAIN, SETUID_ROOT, SETGID_USERS, FILE_CAPS };
enum caller_ns { INIT, IN_D, IN_R };

FIXTURE(exec) {
	struct agent ns, caller;
	long long saved_mask;
};

FIXTURE_VARIANT(exec) {
	enum helper_kind helper;
	unsigned long long drop;
	enum caller_ns in;	/* uid 5 of D or of R, or alice */
	bool no_new_privs;
	bool masked;
	int expected;
};

FIXTURE_VARIANT_ADD(exec, full_set_setuid_root) {
	.helper = SETUID_ROOT, .expected = 7,
};
FIXTURE_VARIANT_ADD(exec, plain) {
	.helper = PLAIN, .drop = NET, .expected = 0,
};
FIXTURE_VARIANT_ADD(exec, setuid_root) {
	.helper = SETUID_ROOT, .drop = NET, .expected = 4,
};
FIXTURE_VARIANT_ADD(exec, setgid_own_group) {
	.helper = SETGID_USERS, .drop = NET, .expected = 0,
};
FIXTURE_VARIANT_ADD(exec, file_caps) {
	.helper = FILE_CAPS, .drop = NET, .expected = 0,
};
FIXTURE_VARIANT_ADD(exec, setuid_no_new_privs) {
	.helper = SETUID_ROOT, .drop = NET, .no_new_privs = true,
	.expected = 0,
};
FIXTURE_VARIANT_ADD(exec, setuid_inside_clamped_ns) {
	.helper = SETUID_ROOT, .in = IN_D, .expected = 1,
};
FIXTURE_VARIANT_ADD(exec, setuid_in_root_container_lowered) {
	.helper = SETUID_ROOT, .in = IN_R, .drop = NET, .expected = 0,
};
FIXTURE_VARIANT_ADD(exec, setuid_under_lowered_mask) {
	.helper = SETUID_ROOT, .masked = true, .expected = 7,
};

FIXTURE_SETUP(exec)
{
	struct agent_spec d = { .creator = ALICE, .drop = NET, .uid = 0,
				.unshare = CLONE_NEWUSER, .uid_map = U_MAP };
	struct agent_spec r = { .creator = KEEP, .uid = 0,
				.unshare = CLONE_NEWUSER,
				.uid_map = "0 300000 1000" };
	struct agent_spec caller = { .creator = ALICE, .drop = variant->drop,
				     .group = USERS_GID, .uid = KEEP };
	/* Owned by real root, or by root of D or of R. */
	static const uid_t owners[] = {
		[INIT] = 0, [IN_D] = 200000, [IN_R] = 300000,
	};
	static const mode_t modes[] = {
		[PLAIN] = 0755, [SETUID_ROOT] = 04755,
		[SETGID_USERS] = 02755, [FILE_CAPS] = 0755,
	};
	uid_t owner = owners[variant->in];

	ASSERT_EQ(0, copy_self_as("/tmp/helper", owner,
				  variant->helper == SETGID_USERS ?
				  USERS_GID : owner, modes[variant->helper]));
	if (variant->helper == FILE_CAPS) {
		cap_t caps = cap_from_text("cap_net_admin+ep");

		ASSERT_NE(NULL, caps);
		ASSERT_EQ(0, cap_set_file("/tmp/helper", caps));
		cap_free(caps);
	}
	if (variant->in != INIT) {
		ASSERT_EQ(0, agent_start(&self->ns,
					 variant->in == IN_D ? &d : &r));
		/* Joined as real root, which lowers the set, then uid 5. */
		caller.join = self->ns.pid;
		caller.creator = 5;
		caller.group = 0;
	}
	ASSERT_EQ(0, agent_start(&self->caller, &caller));
	if (variant->no_new_privs)
		ASSERT_EQ(0, agent_do(&self->caller, OP_NO_NEW_PRIVS, 0, 0,
				      NULL));
	self->saved_mask = get_mask();
	if (variant->masked)
		ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
}

FIXTURE_TEARDOWN(exec)
{
	set_mask(self->saved_mask);
	agent_stop(&self->caller);
	agent_stop(&self->ns);
	unlink("/tmp/helper");
}

TEST_F(exec, helper_set)
{
	EXPECT_EQ(!variant->drop, HAS(task_caps(self->caller.pid, "CapUns:"),
				      CAP_NET_ADMIN));
	EXPECT_EQ(variant->expected,
		  agent_do(&self->caller, OP_EXEC, 0, 0, "/tmp/helper"));
	/* The caller's own set is as it was. */
	EXPECT_EQ(!variant->drop, HAS(task_caps(self->caller.pid, "CapUns:"),
				      CAP_NET_ADMIN));
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--report"))
		return report();
	return test_harness_run(argc, argv);
}
