// SPDX-License-Identifier: GPL-2.0
/*
 * Seed patch 4, "allow killing tasks in your own or child userns":
 * check_kill_permission() lets a sender with CAP_KILL in the target's user
 * namespace signal it; with no uid match, the sender's capabilities act in
 * its own user namespace and below, never in a parent or a sibling.
 *
 * The hierarchy is the one drawn in nscaps_tree.h:
 *
 *   init --+-- U --- U2
 *          +-- S
 */

#include "kselftest_harness.h"
#include "nscaps_tree.h"

FIXTURE(kill) {
	struct agent agents[NR_ROLES];
};

FIXTURE_VARIANT(kill) {
	enum role sender;
	enum role target;
	int expected;
};

/* Root of U, with CAP_KILL in U: its own namespace and below. */
FIXTURE_VARIANT_ADD(kill, u_root_to_same_ns_other_uid) {
	.sender = U_ROOT, .target = U_USER5, .expected = 0,
};
FIXTURE_VARIANT_ADD(kill, u_root_to_child_ns) {
	.sender = U_ROOT, .target = U2_ROOT, .expected = 0,
};
FIXTURE_VARIANT_ADD(kill, u_root_to_parent_ns) {
	.sender = U_ROOT, .target = HOST_BOB, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(kill, u_root_to_sibling_ns) {
	.sender = U_ROOT, .target = S_ROOT, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(kill, u2_root_to_parent_ns) {
	.sender = U2_ROOT, .target = U_USER5, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(kill, s_root_to_sibling_ns) {
	.sender = S_ROOT, .target = U_USER5, .expected = EPERM,
};

/* The usual uid rules inside one namespace, no capability. */
FIXTURE_VARIANT_ADD(kill, same_uid_same_ns) {
	.sender = U_USER5, .target = U_USER5B, .expected = 0,
};
FIXTURE_VARIANT_ADD(kill, other_uid_same_ns_no_caps) {
	.sender = U_USER5, .target = U_ROOT, .expected = EPERM,
};

/* Capabilities held in the initial namespace act on every child. */
FIXTURE_VARIANT_ADD(kill, host_cap_kill_to_child_ns) {
	.sender = HOST_BOB_CAPS, .target = U_USER5, .expected = 0,
};
FIXTURE_VARIANT_ADD(kill, host_cap_kill_to_grandchild_ns) {
	.sender = HOST_BOB_CAPS, .target = U2_ROOT, .expected = 0,
};
FIXTURE_VARIANT_ADD(kill, host_no_caps_to_child_ns) {
	.sender = HOST_BOB, .target = U_USER5, .expected = EPERM,
};

FIXTURE_SETUP(kill)
{
	ASSERT_TREE_STARTED(self->agents);
}

FIXTURE_TEARDOWN(kill)
{
	tree_stop(self->agents);
}

TEST_F(kill, signal)
{
	struct agent *sender = &self->agents[variant->sender];
	pid_t target = self->agents[variant->target].pid;
	int err;

	/* No uid match can explain the outcome across namespaces. */
	if (tree_nodes[variant->sender].spec.unshare ||
	    tree_nodes[variant->target].spec.unshare)
		ASSERT_NE(task_kuid(sender->pid), task_kuid(target));

	err = agent_do(sender, OP_KILL, target, 0, NULL);
	EXPECT_EQ(variant->expected, err) {
		TH_LOG("%s -> %s: expected %s, got %s",
		       tree_nodes[variant->sender].name,
		       tree_nodes[variant->target].name,
		       errname(variant->expected), errname(err));
	}
	/* A signal that is really sent obeys the same rule. */
	EXPECT_EQ(variant->expected, agent_do(sender, OP_SIGNAL, target, 0,
					      NULL));
}

TEST_HARNESS_MAIN
