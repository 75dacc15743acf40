// SPDX-License-Identifier: GPL-2.0
/*
 * Seed patch 5, "allow ptrace from non-init user namespaces": a tracer with
 * CAP_SYS_PTRACE in the tracee's user namespace may trace it; capabilities
 * held in a child namespace never reach the parent's tasks.
 *
 * PTRACE_ATTACH over the hierarchy of nscaps_tree.h:
 *
 *   init --+-- U --- U2
 *          +-- S
 */

#include "kselftest_harness.h"
#include "nscaps_tree.h"

FIXTURE(attach) {
	struct agent agents[NR_ROLES];
};

FIXTURE_VARIANT(attach) {
	enum role tracer;
	enum role tracee;
	int expected;
};

FIXTURE_VARIANT_ADD(attach, u_root_to_same_ns_other_uid) {
	.tracer = U_ROOT, .tracee = U_USER5, .expected = 0,
};
FIXTURE_VARIANT_ADD(attach, u_root_to_child_ns) {
	.tracer = U_ROOT, .tracee = U2_ROOT, .expected = 0,
};
FIXTURE_VARIANT_ADD(attach, u_root_to_parent_ns) {
	.tracer = U_ROOT, .tracee = HOST_BOB, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(attach, u2_root_to_parent_ns) {
	.tracer = U2_ROOT, .tracee = U_USER5, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(attach, u_root_to_sibling_ns) {
	.tracer = U_ROOT, .tracee = S_ROOT, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(attach, no_caps_other_uid_same_ns) {
	.tracer = U_USER5, .tracee = U_ROOT, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(attach, same_uid_same_ns) {
	.tracer = U_USER5, .tracee = U_USER5B, .expected = 0,
};
/* CAP_SYS_PTRACE in the tracee's namespace, held from the initial one. */
FIXTURE_VARIANT_ADD(attach, host_cap_sys_ptrace_to_child_ns) {
	.tracer = HOST_BOB_CAPS, .tracee = U_ROOT, .expected = 0,
};
FIXTURE_VARIANT_ADD(attach, host_no_caps_to_child_ns) {
	.tracer = HOST_BOB, .tracee = U_ROOT, .expected = EPERM,
};

FIXTURE_SETUP(attach)
{
	ASSERT_TREE_STARTED(self->agents);
}

FIXTURE_TEARDOWN(attach)
{
	tree_stop(self->agents);
}

TEST_F(attach, ptrace_attach)
{
	int err = agent_do(&self->agents[variant->tracer], OP_ATTACH,
			   self->agents[variant->tracee].pid, 0, NULL);

	EXPECT_EQ(variant->expected, err) {
		TH_LOG("%s -> %s: expected %s, got %s",
		       tree_nodes[variant->tracer].name,
		       tree_nodes[variant->tracee].name,
		       errname(variant->expected), errname(err));
	}
}

/*
 * PTRACE_TRACEME: the tracee asks its parent to trace it.  The parent is
 * alice's task; where it and the child sit is set by the order of fork()
 * and unshare():
 *
 *   parent                         child                  TRACEME
 *   root of U, forks after        in U                   allowed
 *   unshare
 *   alice in init, owner of U     unshares U after fork  allowed (owner)
 *   root of U, unshares after     stays in init          EPERM
 *   fork
 */
FIXTURE(traceme) {};

FIXTURE_VARIANT(traceme) {
	bool parent_unshares_before_fork;
	bool parent_unshares_after_fork;
	bool child_unshares;
	int expected;
};

FIXTURE_VARIANT_ADD(traceme, same_namespace) {
	.parent_unshares_before_fork = true, .expected = 0,
};
FIXTURE_VARIANT_ADD(traceme, parent_owns_child_namespace) {
	.child_unshares = true, .expected = 0,
};
FIXTURE_VARIANT_ADD(traceme, parent_in_child_namespace) {
	.parent_unshares_after_fork = true, .expected = EPERM,
};

FIXTURE_SETUP(traceme) {}
FIXTURE_TEARDOWN(traceme) {}

static int unshare_self_mapped(uid_t uid)
{
	char map[32];

	if (unshare(CLONE_NEWUSER))
		return -errno;
	snprintf(map, sizeof(map), "0 %u 1", uid);
	if (proc_write(getpid(), "setgroups", "deny") ||
	    proc_write(getpid(), "uid_map", map) ||
	    proc_write(getpid(), "gid_map", map))
		return -EPERM;
	return 0;
}

TEST_F(traceme, traceme)
{
	int go[2], done[2], status, err;
	pid_t parent, child;
	char c = 0;

	parent = fork();
	ASSERT_LE(0, parent);
	if (parent) {
		ASSERT_EQ(parent, waitpid(parent, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		return;
	}

	ASSERT_EQ(0, become(ALICE, false));
	if (variant->parent_unshares_before_fork)
		ASSERT_EQ(0, unshare_self_mapped(ALICE));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		ASSERT_EQ(1, read(go[0], &c, 1));
		if (variant->child_unshares)
			ASSERT_EQ(0, unshare_self_mapped(ALICE));
		err = ptrace(PTRACE_TRACEME, 0, 0, 0) ? errno : 0;
		ASSERT_EQ((ssize_t)sizeof(err), write(done[1], &err, sizeof(err)));
		_exit(0);
	}
	if (variant->parent_unshares_after_fork)
		ASSERT_EQ(0, unshare_self_mapped(ALICE));
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ((ssize_t)sizeof(err), read(done[0], &err, sizeof(err)));
	EXPECT_EQ(variant->expected, err) {
		TH_LOG("expected %s, got %s", errname(variant->expected),
		       errname(err));
	}
	ASSERT_EQ(child, waitpid(child, &status, __WALL));
	_exit(0);
}

TEST_HARNESS_MAIN
