// SPDX-License-Identifier: GPL-2.0
/*
 * The seed's first "next goal", as mainline reached it: setuid() and
 * setgid() work inside a user namespace, within the ids its maps hold,
 * with CAP_SETUID / CAP_SETGID in that namespace.
 *
 *   init user namespace
 *   +-- U, created by alice
 *         maps 0 200000 1000 and 1000 1000 1 (written by real root, as
 *                                            newuidmap would)
 *         or   0 1000 1      (alice's own: all an unprivileged user may)
 *
 *   maps            actor       call               result (host's view)
 *   root-written    root of U   setresuid(5)       allowed (kuid 200005)
 *   root-written    root of U   setresgid(5)       allowed (kgid 200005)
 *   root-written    root of U   setresuid(1000)    allowed (kuid 1000)
 *   root-written    root of U   setresuid(2000)    EINVAL, not mapped
 *   root-written    root of U   setgroups([5])     allowed
 *   root-written    uid 5 of U  setresuid(6)       EPERM, no CAP_SETUID
 *   alice's own     root of U   setresuid(0)       allowed (kuid 1000)
 *   alice's own     root of U   setresuid(1)       EINVAL, not mapped
 *   alice's own     root of U   setgroups([0])     EPERM, setgroups denied
 */

#include "kselftest_harness.h"
#include "nscaps_test.h"

FIXTURE(setid) {
	struct agent u, user5;
};

FIXTURE_VARIANT(setid) {
	const char *uid_map;	/* NULL: alice maps herself */
	bool as_user5;
	enum agent_op op;
	long arg;
	int expected;
	const char *field;	/* what the host then sees */
	long host_id;
};

FIXTURE_VARIANT_ADD(setid, setuid_mapped) {
	.uid_map = U_MAP, .op = OP_SETUID, .arg = 5,
	.field = "Uid:", .host_id = 200005,
};
FIXTURE_VARIANT_ADD(setid, setgid_mapped) {
	.uid_map = U_MAP, .op = OP_SETGID, .arg = 5,
	.field = "Gid:", .host_id = 200005,
};
FIXTURE_VARIANT_ADD(setid, setuid_second_map_line) {
	.uid_map = U_MAP, .op = OP_SETUID, .arg = 1000,
	.field = "Uid:", .host_id = ALICE,
};
FIXTURE_VARIANT_ADD(setid, setuid_unmapped) {
	.uid_map = U_MAP, .op = OP_SETUID, .arg = 2000,
	.expected = EINVAL, .field = "Uid:", .host_id = 200000,
};
FIXTURE_VARIANT_ADD(setid, setgroups_mapped) {
	.uid_map = U_MAP, .op = OP_SETGROUPS, .arg = 5,
};
FIXTURE_VARIANT_ADD(setid, setuid_without_cap) {
	.uid_map = U_MAP, .as_user5 = true, .op = OP_SETUID,
	.arg = 6, .expected = EPERM, .field = "Uid:", .host_id = 200005,
};
FIXTURE_VARIANT_ADD(setid, self_mapped_setuid_root) {
	.op = OP_SETUID, .arg = 0, .field = "Uid:", .host_id = ALICE,
};
FIXTURE_VARIANT_ADD(setid, self_mapped_setuid_unmapped) {
	.op = OP_SETUID, .arg = 1, .expected = EINVAL,
	.field = "Uid:", .host_id = ALICE,
};
FIXTURE_VARIANT_ADD(setid, self_mapped_setgroups) {
	.op = OP_SETGROUPS, .arg = 0, .expected = EPERM,
};

FIXTURE_SETUP(setid)
{
	struct agent_spec u = {
		.creator = ALICE, .unshare = CLONE_NEWUSER,
		.uid_map = variant->uid_map, .uid = 0,
	};
	struct agent_spec user5 = { .creator = 5, .uid = KEEP };

	ASSERT_EQ(0, agent_start(&self->u, &u));
	if (variant->as_user5) {
		user5.join = self->u.pid;
		ASSERT_EQ(0, agent_start(&self->user5, &user5));
	}
}

FIXTURE_TEARDOWN(setid)
{
	agent_stop(&self->user5);
	agent_stop(&self->u);
}

TEST_F(setid, call)
{
	struct agent *actor = variant->as_user5 ? &self->user5 : &self->u;
	int err = agent_do(actor, variant->op, 0, variant->arg, NULL);

	EXPECT_EQ(variant->expected, err) {
		TH_LOG("expected %s, got %s", errname(variant->expected),
		       errname(err));
	}
	if (variant->field)
		EXPECT_EQ(variant->host_id, task_id(actor->pid,
						    variant->field));
}

TEST_HARNESS_MAIN
