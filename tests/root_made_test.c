// SPDX-License-Identifier: GPL-2.0
/*
 * The system mask holds the user namespaces any user makes; to the tasks
 * of one real root makes (a task of the initial namespace with euid 0 and
 * CAP_SYS_ADMIN, as a container manager run by root is) it leaves what
 * real root held.  That was decided when the namespace was made; a
 * namespace made inside a root-made one is held again.
 *
 * Each case makes a user namespace and a network namespace as its creator
 * says, under a mask without CAP_NET_ADMIN ("-NET"), then, as root of the
 * new namespace (the creator itself, which holds what it left), asks
 * NS_GET_USERNS_CAP_UNMASKED and tries what CAP_NET_ADMIN gates there:
 *
 *   init: mask -NET                               left       CAP_NET_ADMIN
 *   +-- R   real root's                           all        ok
 *   |   +-- R1  made by root of R                 none       EPERM
 *   +-- S   real root's, its set -NET             all        EPERM (ceiling)
 *   +-- N   real root without CAP_NET_ADMIN       all -NET   EPERM
 *   +-- E   euid 1000 with CAP_SYS_ADMIN          none       EPERM
 *   +-- D   euid 0 without CAP_SYS_ADMIN          none       EPERM
 *   +-- A   alice's                               none       EPERM
 */

#include "kselftest_harness.h"
#include "nscaps_test.h"

#define NET		(1LL << CAP_NET_ADMIN)

#ifndef NS_GET_USERNS_CAP_UNMASKED
#define NS_GET_USERNS_CAP_UNMASKED	_IOR(NSIO, 0x41, __u64)
#endif

enum creator {
	REAL_ROOT,		/* euid 0, every capability */
	REAL_ROOT_NESTED,	/* root of a namespace real root made */
	REAL_ROOT_SET_LOWERED,	/* euid 0, its user namespace set -NET */
	REAL_ROOT_NO_NET_ADMIN,	/* euid 0, every capability but -NET */
	EUID_ALICE_SYS_ADMIN,	/* euid 1000, CAP_SYS_ADMIN effective */
	ROOT_NO_SYS_ADMIN,	/* euid 0, every capability but CAP_SYS_ADMIN */
	ALICE_PLAIN,		/* alice, no capabilities */
};

/* What the child reports: the ioctl's answer and each operation's errno. */
struct outcome {
	int err;		/* setting up, or the ioctl: -errno */
	unsigned long long unmasked;	/* NS_GET_USERNS_CAP_UNMASKED */
	unsigned long long clamped;	/* CapClamped of root of the new ns */
	int lo_mtu, dummy, nft;
};

/* NS_GET_USERNS_CAP_UNMASKED of the namespace file @path: 0 or -errno. */
static int ns_unmasked(const char *path, unsigned long long *caps)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	__u64 val = 0;
	int ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, NS_GET_USERNS_CAP_UNMASKED, &val) ? -errno : 0;
	close(fd);
	*caps = val;
	return ret;
}

/* Take on @creator's identity, from real root. */
static int become_creator(enum creator creator)
{
	int err;

	switch (creator) {
	case REAL_ROOT:
		return 0;
	case REAL_ROOT_NESTED:
		/*
		 * Root of R: R is made here and maps its root to real root,
		 * as "unshare -r" would, so that a namespace can be made in
		 * it; the test's namespace goes below.
		 */
		if (unshare(CLONE_NEWUSER))
			return -errno;
		err = proc_write(getpid(), "setgroups", "deny");
		if (!err)
			err = proc_write(getpid(), "uid_map", "0 0 1");
		if (!err)
			err = proc_write(getpid(), "gid_map", "0 0 1");
		return err;
	case REAL_ROOT_SET_LOWERED:
		return userns_lower(NET);
	case REAL_ROOT_NO_NET_ADMIN:
		/* As a runtime's container with CAP_SYS_ADMIN added. */
		return set_caps("all+ep cap_net_admin-ep");
	case EUID_ALICE_SYS_ADMIN:
		/* As a service started with User= and an ambient capability. */
		err = become(ALICE, true);
		return err ? err : set_caps("cap_sys_admin+ep");
	case ROOT_NO_SYS_ADMIN:
		return set_caps("all+ep cap_sys_admin-ep");
	case ALICE_PLAIN:
		return become(ALICE, false);
	}
	return -EINVAL;
}

static void make_and_try(enum creator creator, int out)
{
	struct outcome o = { 0 };
	int err = become_creator(creator);

	if (!err && unshare(CLONE_NEWUSER | CLONE_NEWNET))
		err = -errno;
	if (!err)
		err = ns_unmasked("/proc/self/ns/user", &o.unmasked);
	o.err = err;
	if (err) {
		o.lo_mtu = o.dummy = o.nft = -err;
	} else {
		o.clamped = task_caps(getpid(), "CapClamped:");
		o.lo_mtu = net_lo_mtu();
		o.dummy = net_add_dummy("made0", 0);
		o.nft = net_add_nft_table("made");
	}
	_exit(write(out, &o, sizeof(o)) == sizeof(o) ? 0 : 1);
}

static int run_creator(enum creator creator, struct outcome *o)
{
	int pipefd[2], status;
	pid_t child;
	ssize_t n;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	child = fork();
	if (child < 0)
		return -errno;
	if (child == 0) {
		close(pipefd[0]);
		make_and_try(creator, pipefd[1]);
	}
	close(pipefd[1]);
	n = read(pipefd[0], o, sizeof(*o));
	close(pipefd[0]);
	if (waitpid(child, &status, 0) != child)
		return -errno;
	return n == sizeof(*o) && WIFEXITED(status) && !WEXITSTATUS(status) ?
	       0 : -ECHILD;
}

FIXTURE(root_made) {
	long long saved;
};

FIXTURE_VARIANT(root_made) {
	enum creator creator;
	long long unmasked;	/* what the ioctl answers in the new namespace */
	int expected;		/* for each CAP_NET_ADMIN operation */
};

FIXTURE_VARIANT_ADD(root_made, real_root) {
	.creator = REAL_ROOT, .unmasked = ALL_CAPS, .expected = 0,
};
FIXTURE_VARIANT_ADD(root_made, nested_in_root_made) {
	.creator = REAL_ROOT_NESTED, .unmasked = 0, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(root_made, real_root_set_lowered) {
	.creator = REAL_ROOT_SET_LOWERED, .unmasked = ALL_CAPS,
	.expected = EPERM,
};
FIXTURE_VARIANT_ADD(root_made, real_root_without_net_admin) {
	.creator = REAL_ROOT_NO_NET_ADMIN, .unmasked = ALL_CAPS & ~NET,
	.expected = EPERM,
};
FIXTURE_VARIANT_ADD(root_made, euid_alice_with_sys_admin) {
	.creator = EUID_ALICE_SYS_ADMIN, .unmasked = 0, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(root_made, root_without_sys_admin) {
	.creator = ROOT_NO_SYS_ADMIN, .unmasked = 0, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(root_made, alice) {
	.creator = ALICE_PLAIN, .unmasked = 0, .expected = EPERM,
};

FIXTURE_SETUP(root_made)
{
	self->saved = get_mask();
	ASSERT_EQ(ALL_CAPS, self->saved);
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
}

FIXTURE_TEARDOWN(root_made)
{
	set_mask(self->saved);
}

TEST_F(root_made, net_admin)
{
	struct outcome o;

	ASSERT_EQ(0, run_creator(variant->creator, &o));
	ASSERT_EQ(0, o.err);
	EXPECT_EQ(variant->unmasked, (long long)o.unmasked);
	EXPECT_EQ((long long)(variant->expected != 0),
		  (long long)HAS(o.clamped, CAP_NET_ADMIN));
	EXPECT_FALSE(HAS(o.clamped, CAP_SYS_ADMIN));
	EXPECT_EQ(variant->expected, o.lo_mtu);
	EXPECT_EQ(variant->expected, o.dummy);
	EXPECT_EQ(variant->expected, o.nft);
}

/*
 * The answer was given when the namespace was made, and the mask is read
 * at each check: a root-made namespace that already runs is not touched
 * by lowering the mask, and one alice made is released by raising it.
 *
 *   init: real root
 *   +-- R  real root's:  mask full, then -NET: nft ok both times
 *   +-- A  alice's:      mask -NET: EPERM; mask full again: ok
 */
/* The mask as each test below sets it, put back as it was. */
FIXTURE(live) {
	long long saved;
};

FIXTURE_SETUP(live)
{
	self->saved = get_mask();
	ASSERT_EQ(ALL_CAPS, self->saved);
}

FIXTURE_TEARDOWN(live)
{
	set_mask(self->saved);
}

TEST_F(live, decided_at_creation)
{
	struct agent r, a;
	struct agent_spec rspec = { .creator = KEEP, .uid = 0,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET,
				    .uid_map = U_MAP };
	struct agent_spec aspec = { .creator = ALICE, .uid = 0,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	unsigned long long left;
	char path[64];

	ASSERT_EQ(0, set_mask(ALL_CAPS));
	ASSERT_EQ(0, agent_start(&r, &rspec));
	ASSERT_EQ(0, agent_start(&a, &aspec));
	EXPECT_EQ(0, agent_do(&r, OP_NFT_TABLE, 0, 0, "before"));

	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	EXPECT_EQ(0, agent_do(&r, OP_NFT_TABLE, 0, 0, "after"));
	EXPECT_EQ(0, agent_do(&r, OP_LO_MTU, 0, 0, NULL));
	EXPECT_EQ(0, task_caps(r.pid, "CapClamped:"));
	EXPECT_EQ(EPERM, agent_do(&a, OP_NFT_TABLE, 0, 0, "t"));
	EXPECT_EQ(NET, task_caps(a.pid, "CapClamped:"));
	snprintf(path, sizeof(path), "/proc/%d/ns/user", r.pid);
	EXPECT_EQ(0, ns_unmasked(path, &left));
	EXPECT_EQ(ALL_CAPS, (long long)left);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", a.pid);
	EXPECT_EQ(0, ns_unmasked(path, &left));
	EXPECT_EQ(0, (long long)left);

	ASSERT_EQ(0, set_mask(ALL_CAPS));
	EXPECT_EQ(0, agent_do(&a, OP_NFT_TABLE, 0, 0, "t"));
	agent_stop(&a);
	agent_stop(&r);
}

/*
 * What real root left a namespace is for the tasks real root started
 * there.  While the mask takes some of it, the owner rule does not let
 * the namespace's owner, uid 0, in from outside; a root daemon that holds
 * CAP_SYS_ADMIN but not all it was left joins, and is held to the mask
 * inside; real root joins and holds it:
 *
 *   init: mask -NET -KILL; real root; uid 0 without capabilities (R's
 *   |     owner, as every root-made namespace's)
 *   +-- R  real root's (left all), with a network namespace
 *
 *   uid 0 without caps: CAP_KILL over root of R        EPERM
 *                       open /proc/PID/ns/user of R    EACCES
 *                       setns() into R, by an fd real
 *                       root opened (a pinned one)     EPERM
 *   uid 0 with all but CAP_NET_ADMIN: setns() into R
 *     and its net, then a link there                   joins; the link EPERM
 *   real root, the same                                joins; the link ok
 *   mask full again: uid 0 without caps, setns() by fd joins (stock)
 */
static int join_and_add_link(const struct agent_cmd *c)
{
	int err = join_ns(c->pid, CLONE_NEWUSER | CLONE_NEWNET);

	return err ? -err : net_add_dummy(c->str, 0);
}

static int join_only(const struct agent_cmd *c)
{
	return -join_ns(c->pid, CLONE_NEWUSER);
}

TEST_F(live, only_for_its_tasks)
{
	struct agent_spec rspec = { .creator = KEEP, .uid = 0,
				    .uid_map = "0 300000 1000",
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	struct agent_spec capless = { .creator = KEEP, .uid = KEEP,
				      .caps = "all-ep" };
	struct agent_spec no_net = { .creator = KEEP, .uid = KEEP,
				     .caps = "all+ep cap_net_admin-ep" };
	struct agent_spec full = { .creator = KEEP, .uid = KEEP };
	struct agent r, bare, bare2, partial, root;
	char path[64];
	int pinned;

	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET & ~(1LL << CAP_KILL)));
	ASSERT_EQ(0, agent_start(&r, &rspec));
	/* Opened by real root and inherited by the agents below. */
	snprintf(path, sizeof(path), "/proc/%d/ns/user", r.pid);
	pinned = open(path, O_RDONLY);
	ASSERT_LE(0, pinned);
	ASSERT_EQ(0, agent_start(&bare, &capless));
	ASSERT_EQ(0, agent_start(&bare2, &capless));
	ASSERT_EQ(0, agent_start(&partial, &no_net));
	ASSERT_EQ(0, agent_start(&root, &full));
	EXPECT_EQ(0, task_caps(bare.pid, "CapEff:"));

	EXPECT_EQ(EPERM, agent_do(&bare, OP_KILL, r.pid, 0, NULL));
	EXPECT_EQ(0, kill(r.pid, 0));
	EXPECT_EQ(EACCES, agent_do(&bare, OP_CALL, r.pid, (long)join_only,
				   NULL));
	EXPECT_EQ(EPERM, agent_do(&bare, OP_SETNS_FD, 0, pinned, NULL));
	EXPECT_NE(ns_ino(r.pid, "user"), ns_ino(bare.pid, "user"));

	EXPECT_EQ(EPERM, agent_do(&partial, OP_CALL, r.pid,
				  (long)join_and_add_link, "partial0"));
	EXPECT_EQ(ns_ino(r.pid, "user"), ns_ino(partial.pid, "user"));
	EXPECT_TRUE(HAS(task_caps(partial.pid, "CapClamped:"),
			CAP_NET_ADMIN));
	EXPECT_EQ(0, agent_do(&root, OP_CALL, r.pid, (long)join_and_add_link,
			      "root0"));
	EXPECT_EQ(0, task_caps(root.pid, "CapClamped:"));

	/* With the mask full, the owner rule is the stock one. */
	ASSERT_EQ(0, set_mask(ALL_CAPS));
	EXPECT_EQ(0, agent_do(&bare2, OP_SETNS_FD, 0, pinned, NULL));
	EXPECT_EQ(ns_ino(r.pid, "user"), ns_ino(bare2.pid, "user"));
	close(pinned);

	agent_stop(&root);
	agent_stop(&partial);
	agent_stop(&bare2);
	agent_stop(&bare);
	agent_stop(&r);
}

/*
 * The answer for the initial namespace, which the mask does not hold, and
 * for other namespace types.
 */
TEST(unmasked_ioctl_answers)
{
	unsigned long long left = 0;

	EXPECT_EQ(0, ns_unmasked("/proc/self/ns/user", &left));
	EXPECT_EQ(ALL_CAPS, (long long)left);
	EXPECT_EQ(-EINVAL, ns_unmasked("/proc/self/ns/net", &left));
	EXPECT_EQ(-EINVAL, ns_unmasked("/proc/self/ns/uts", &left));
}

TEST_HARNESS_MAIN
