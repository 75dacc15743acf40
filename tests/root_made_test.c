// SPDX-License-Identifier: GPL-2.0
/*
 * The system mask holds the user namespaces any user makes, not those real
 * root makes: a task of the initial namespace with euid 0 and
 * CAP_SYS_ADMIN, as a container manager run by root is.  Which it is was
 * decided when the namespace was made; a namespace made inside a root-made
 * one is held again.
 *
 * Each case makes a user namespace and a network namespace as its creator
 * says, under a mask without CAP_NET_ADMIN ("-NET"), then, as root of the
 * new namespace, asks NS_GET_USERNS_CAP_MASKED and tries what
 * CAP_NET_ADMIN gates there:
 *
 *   init: mask -NET
 *   +-- R     real root's                      not held: lo MTU, link, nft ok
 *   |   +-- R1  made by root of R              held: EPERM
 *   +-- S     real root's, its set -NET        not held, but its ceiling: EPERM
 *   +-- E     euid 1000 with CAP_SYS_ADMIN     held: EPERM
 *   +-- D     euid 0 without CAP_SYS_ADMIN     held: EPERM
 *   +-- A     alice's                          held: EPERM
 */

#include "kselftest_harness.h"
#include "nscaps_test.h"

#define NET		(1LL << CAP_NET_ADMIN)

#ifndef NS_GET_USERNS_CAP_MASKED
#define NS_GET_USERNS_CAP_MASKED	_IO(NSIO, 0x41)
#endif

enum creator {
	REAL_ROOT,		/* euid 0, every capability */
	REAL_ROOT_NESTED,	/* root of a namespace real root made */
	REAL_ROOT_SET_LOWERED,	/* euid 0, its user namespace set -NET */
	EUID_ALICE_SYS_ADMIN,	/* euid 1000, CAP_SYS_ADMIN effective */
	ROOT_NO_SYS_ADMIN,	/* euid 0, every capability but CAP_SYS_ADMIN */
	ALICE_PLAIN,		/* alice, no capabilities */
};

/* What the child reports: the ioctl's answer and each operation's errno. */
struct outcome {
	int masked;		/* NS_GET_USERNS_CAP_MASKED, or -errno */
	unsigned long long clamped;	/* CapClamped of root of the new ns */
	int lo_mtu, dummy, nft;
};

static int ns_masked(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, NS_GET_USERNS_CAP_MASKED);
	if (ret < 0)
		ret = -errno;
	close(fd);
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
	if (err) {
		o.masked = err;
		o.lo_mtu = o.dummy = o.nft = -err;
	} else {
		o.masked = ns_masked("/proc/self/ns/user");
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
	int masked;		/* what the ioctl answers in the new namespace */
	int expected;		/* for each CAP_NET_ADMIN operation */
};

FIXTURE_VARIANT_ADD(root_made, real_root) {
	.creator = REAL_ROOT, .masked = 0, .expected = 0,
};
FIXTURE_VARIANT_ADD(root_made, nested_in_root_made) {
	.creator = REAL_ROOT_NESTED, .masked = 1, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(root_made, real_root_set_lowered) {
	.creator = REAL_ROOT_SET_LOWERED, .masked = 0, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(root_made, euid_alice_with_sys_admin) {
	.creator = EUID_ALICE_SYS_ADMIN, .masked = 1, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(root_made, root_without_sys_admin) {
	.creator = ROOT_NO_SYS_ADMIN, .masked = 1, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(root_made, alice) {
	.creator = ALICE_PLAIN, .masked = 1, .expected = EPERM,
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
	EXPECT_EQ(variant->masked, o.masked);
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
TEST_F(root_made, decided_at_creation)
{
	struct agent r, a;
	struct agent_spec rspec = { .creator = KEEP, .uid = 0,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET,
				    .uid_map = U_MAP };
	struct agent_spec aspec = { .creator = ALICE, .uid = 0,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET };
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
	EXPECT_EQ(0, ns_masked(path));
	snprintf(path, sizeof(path), "/proc/%d/ns/user", a.pid);
	EXPECT_EQ(1, ns_masked(path));

	ASSERT_EQ(0, set_mask(ALL_CAPS));
	EXPECT_EQ(0, agent_do(&a, OP_NFT_TABLE, 0, 0, "t"));
	agent_stop(&a);
	agent_stop(&r);
}

/* The answer for the initial namespace, and for other namespace types. */
TEST(masked_ioctl_answers)
{
	EXPECT_EQ(0, ns_masked("/proc/self/ns/user"));
	EXPECT_EQ(-EINVAL, ns_masked("/proc/self/ns/net"));
	EXPECT_EQ(-EINVAL, ns_masked("/proc/self/ns/uts"));
}

TEST_HARNESS_MAIN
