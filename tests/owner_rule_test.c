// SPDX-License-Identifier: GPL-2.0
/*
 * Seed patch 2 and its three rules, through real operations: a signal and a
 * ptrace attach toward tasks of a child user namespace.
 *
 *   init user namespace
 *   |  alice  uid 1000, no caps     owner of U (she created it)
 *   |  bob    uid 1001, no caps
 *   +-- U     uid map "0 200000 1000" and "1000 1000 1", written by
 *         real root; root of U runs as kuid 200000: no uid matches
 *         alice or bob
 *
 * Rule 3: alice, the owner, holds every capability in U from outside, so she
 * may signal and trace root of U.  Bob, another user of the same parent
 * namespace, holds none there.  Rule 1: a task of the initial namespace
 * with the capability acts on U whoever owns it.
 */

#include "kselftest_harness.h"
#include "nscaps_tree.h"

FIXTURE(owner) {
	struct agent agents[NR_ROLES];
};

FIXTURE_VARIANT(owner) {
	enum role actor;
	int expected;
};

FIXTURE_VARIANT_ADD(owner, owner_alice) {
	.actor = HOST_ALICE, .expected = 0,
};
FIXTURE_VARIANT_ADD(owner, other_user_bob) {
	.actor = HOST_BOB, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(owner, bob_with_caps_in_init) {
	.actor = HOST_BOB_CAPS, .expected = 0,
};

FIXTURE_SETUP(owner)
{
	ASSERT_TREE_STARTED(self->agents);
	/* The target is not alice on the host. */
	ASSERT_EQ(200000, task_kuid(self->agents[U_ROOT].pid));
}

FIXTURE_TEARDOWN(owner)
{
	tree_stop(self->agents);
}

TEST_F(owner, signal)
{
	EXPECT_EQ(variant->expected,
		  agent_do(&self->agents[variant->actor], OP_SIGNAL,
			   self->agents[U_ROOT].pid, 0, NULL));
}

TEST_F(owner, ptrace_attach)
{
	EXPECT_EQ(variant->expected,
		  agent_do(&self->agents[variant->actor], OP_ATTACH,
			   self->agents[U_ROOT].pid, 0, NULL));
}

/* The owner rule reaches below U too: U2 was created inside U. */
TEST_F(owner, signal_grandchild)
{
	EXPECT_EQ(variant->expected,
		  agent_do(&self->agents[variant->actor], OP_SIGNAL,
			   self->agents[U2_ROOT].pid, 0, NULL));
}

/* Bob owns S, its sibling: ownership is per namespace. */
TEST_F(owner, signal_sibling_owned_by_bob)
{
	int expected = variant->actor == HOST_ALICE ? EPERM : 0;

	EXPECT_EQ(expected, agent_do(&self->agents[variant->actor], OP_SIGNAL,
				     self->agents[S_ROOT].pid, 0, NULL));
}

/* The rule goes by euid: real uid alice, effective uid bob owns S only. */
TEST(owner_is_judged_by_euid)
{
	struct agent u = {}, s = {};
	struct agent_spec uspec = { .creator = ALICE, .unshare = CLONE_NEWUSER,
				    .uid_map = U_MAP, .uid = 0 };
	struct agent_spec sspec = { .creator = BOB, .unshare = CLONE_NEWUSER,
				    .uid_map = "0 300000 1000", .uid = 0 };
	pid_t child;
	int status;

	ASSERT_EQ(0, agent_start(&u, &uspec));
	ASSERT_EQ(0, agent_start(&s, &sspec));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		ASSERT_EQ(0, setgroups(0, NULL));
		ASSERT_EQ(0, setresgid(ALICE, BOB, ALICE));
		ASSERT_EQ(0, setresuid(ALICE, BOB, ALICE));
		EXPECT_EQ(-1, kill(u.pid, SIGUSR1));
		EXPECT_EQ(EPERM, errno);
		EXPECT_EQ(0, kill(s.pid, SIGUSR1));
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	agent_stop(&u);
	agent_stop(&s);
}

TEST_HARNESS_MAIN
