/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One user namespace hierarchy, set up by real root the way a container
 * manager would (multi-line id maps, written as newuidmap would, so that
 * tasks in different namespaces never share a kuid and every decision below
 * rests on capabilities, not on a uid match), with one agent per role.  In U,
 * alice keeps her own uid 1000, as with newuidmap, but root of U is not her.
 *
 *   init user namespace
 *   |  HOST_ALICE     uid 1000, no caps        owner of U
 *   |  HOST_BOB       uid 1001, no caps        owner of S
 *   |  HOST_BOB_CAPS  uid 1001, CAP_KILL and CAP_SYS_PTRACE only
 *   |
 *   +-- U (created by alice; uid map 0 200000 1000, 1000 1000 1)
 *   |   |  U_ROOT     uid 0 (kuid 200000), all caps in U
 *   |   |  U_USER5    uid 5 (kuid 200005), no caps
 *   |   |  U_USER5B   uid 5 (kuid 200005), no caps
 *   |   |
 *   |   +-- U2 (created by root of U; uid map 0 100 10 of U)
 *   |          U2_ROOT  uid 0 (kuid 200100), all caps in U2
 *   |
 *   +-- S (created by bob; uid map 0 300000 1000), sibling of U
 *          S_ROOT     uid 0 (kuid 300000), all caps in S
 */

#ifndef NSCAPS_TREE_H
#define NSCAPS_TREE_H

#include "nscaps_test.h"

enum role {
	HOST_ALICE,
	HOST_BOB,
	HOST_BOB_CAPS,
	U_ROOT,
	U_USER5,
	U_USER5B,
	U2_ROOT,
	S_ROOT,
	NR_ROLES,
	NONE = -1,
};

static const struct tree_node {
	const char *name;
	enum role join;
	struct agent_spec spec;
} tree_nodes[NR_ROLES] = {
	[HOST_ALICE] = { "alice", NONE,
		{ .creator = ALICE, .uid = KEEP } },
	[HOST_BOB] = { "bob", NONE,
		{ .creator = BOB, .uid = KEEP } },
	[HOST_BOB_CAPS] = { "bob with CAP_KILL,CAP_SYS_PTRACE", NONE,
		{ .creator = BOB, .uid = KEEP,
		  .caps = "cap_kill,cap_sys_ptrace=ep" } },
	[U_ROOT] = { "root of U", NONE,
		{ .creator = ALICE, .unshare = CLONE_NEWUSER,
		  .uid_map = U_MAP, .uid = 0 } },
	[U_USER5] = { "uid 5 of U", U_ROOT,
		{ .creator = 5, .uid = KEEP } },
	[U_USER5B] = { "another uid 5 of U", U_ROOT,
		{ .creator = 5, .uid = KEEP } },
	[U2_ROOT] = { "root of U2", U_ROOT,
		{ .creator = 0, .unshare = CLONE_NEWUSER,
		  .uid_map = "0 100 10", .uid = 0 } },
	[S_ROOT] = { "root of S", NONE,
		{ .creator = BOB, .unshare = CLONE_NEWUSER,
		  .uid_map = "0 300000 1000", .uid = 0 } },
};

/* Start every agent of the tree; returns the role that failed, or NONE. */
static inline enum role tree_start(struct agent *agents, int *err)
{
	struct agent_spec spec;
	int r;

	for (r = 0; r < NR_ROLES; r++) {
		spec = tree_nodes[r].spec;
		if (tree_nodes[r].join != NONE)
			spec.join = agents[tree_nodes[r].join].pid;
		*err = agent_start(&agents[r], &spec);
		if (*err)
			return r;
	}
	return NONE;
}

/* In a FIXTURE_SETUP: start the tree or fail, naming the role. */
#define ASSERT_TREE_STARTED(agents) do {				\
	int __err;							\
	enum role __failed = tree_start(agents, &__err);		\
									\
	ASSERT_EQ(NONE, __failed) {					\
		TH_LOG("starting %s: %s", tree_nodes[__failed].name,	\
		       strerror(-__err));				\
	}								\
} while (0)

static inline void tree_stop(struct agent *agents)
{
	int r;

	for (r = NR_ROLES - 1; r >= 0; r--)
		agent_stop(&agents[r]);
}


#endif /* NSCAPS_TREE_H */
