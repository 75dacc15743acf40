// SPDX-License-Identifier: GPL-2.0
/*
 * Seed patch 3, "allow sethostname in a container": sethostname() and
 * setdomainname() need CAP_SYS_ADMIN in the user namespace that owns the
 * caller's uts namespace, so root of a user namespace may rename the uts
 * namespace it owns and no other.
 *
 *   init user ns, host uts ("nscaps-host")
 *   |  alice                       host uts        EPERM
 *   +-- U (alice's)
 *       |  root of U               new uts, U's    allowed
 *       |  root of U               host uts        EPERM
 *       +-- U2 (root of U's)
 *             root of U2           U's uts         EPERM
 *             root of U2           new uts, U2's   allowed
 *
 * The host's names are the same afterwards in every case.
 */

#include <sys/utsname.h>

#include "kselftest_harness.h"
#include "nscaps_test.h"

FIXTURE(hostname) {
	struct agent u, u2;
	struct utsname before;
};

FIXTURE_VARIANT(hostname) {
	int u_unshare;		/* namespaces alice creates: U, maybe a uts */
	bool nested;		/* act from U2, created inside U */
	int u2_unshare;
	int expected;
};

FIXTURE_VARIANT_ADD(hostname, alice_host_uts) {
	.u_unshare = 0, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(hostname, u_root_own_uts) {
	.u_unshare = CLONE_NEWUSER | CLONE_NEWUTS, .expected = 0,
};
FIXTURE_VARIANT_ADD(hostname, u_root_host_uts) {
	.u_unshare = CLONE_NEWUSER, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(hostname, u2_root_parent_uts) {
	.u_unshare = CLONE_NEWUSER | CLONE_NEWUTS, .nested = true,
	.u2_unshare = CLONE_NEWUSER, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(hostname, u2_root_own_uts) {
	.u_unshare = CLONE_NEWUSER | CLONE_NEWUTS, .nested = true,
	.u2_unshare = CLONE_NEWUSER | CLONE_NEWUTS, .expected = 0,
};

FIXTURE_SETUP(hostname)
{
	struct agent_spec u = {
		.creator = ALICE, .unshare = variant->u_unshare,
		.uid = variant->u_unshare ? 0 : KEEP,
	};

	ASSERT_EQ(0, uname(&self->before));
	ASSERT_EQ(0, agent_start(&self->u, &u));
	if (variant->nested) {
		/* Root of U creates U2, mapping itself, as a user would. */
		struct agent_spec u2 = {
			.join = self->u.pid, .join_ns = CLONE_NEWUTS,
			.creator = 0, .unshare = variant->u2_unshare,
			.uid = 0,
		};

		ASSERT_EQ(0, agent_start(&self->u2, &u2));
	}
}

FIXTURE_TEARDOWN(hostname)
{
	agent_stop(&self->u2);
	agent_stop(&self->u);
}

static void expect_host_unchanged(struct __test_metadata *_metadata,
				  const struct utsname *before)
{
	struct utsname now;

	ASSERT_EQ(0, uname(&now));
	EXPECT_STREQ(before->nodename, now.nodename);
	EXPECT_STREQ(before->domainname, now.domainname);
}

TEST_F(hostname, sethostname)
{
	struct agent *actor = variant->nested ? &self->u2 : &self->u;
	int err = agent_do(actor, OP_SETHOSTNAME, 0, 0, "renamed");

	EXPECT_EQ(variant->expected, err) {
		TH_LOG("expected %s, got %s", errname(variant->expected),
		       errname(err));
	}
	expect_host_unchanged(_metadata, &self->before);
}

TEST_F(hostname, setdomainname)
{
	struct agent *actor = variant->nested ? &self->u2 : &self->u;

	EXPECT_EQ(variant->expected,
		  agent_do(actor, OP_SETDOMAINNAME, 0, 0, "renamed.domain"));
	expect_host_unchanged(_metadata, &self->before);
}

/* The new name is seen inside, by the namespace's own tasks. */
TEST(new_name_is_visible_inside)
{
	struct utsname before, inside;
	pid_t child;
	int status;

	ASSERT_EQ(0, uname(&before));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		ASSERT_EQ(0, become(ALICE, false));
		ASSERT_EQ(0, unshare(CLONE_NEWUSER | CLONE_NEWUTS));
		ASSERT_EQ(0, sethostname("inside", 6));
		ASSERT_EQ(0, setdomainname("inside.domain", 13));
		ASSERT_EQ(0, uname(&inside));
		EXPECT_STREQ("inside", inside.nodename);
		EXPECT_STREQ("inside.domain", inside.domainname);
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	expect_host_unchanged(_metadata, &before);
}

TEST_HARNESS_MAIN
