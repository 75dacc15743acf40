// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF LSM version of the clamps (alt/userns_mask.bpf.c, driven by
 * /tests/userns-mask) on a kernel without the series, where it is the
 * alternative: attach it, clamp a container that already runs, release
 * it, detach.  Skipped where the kernel has the series or no BPF LSM.
 *
 *   init: real root (runs userns-mask), alice
 *   +-- C  alice's container: her user and network namespace, ids mapped
 *          by real root (root of C is kuid 200000, not alice)
 *
 *   mask -NET      root of C: lo's MTU              EPERM
 *                  root of C: lo up                 allowed (the loopback
 *                                                   set-up, read from the
 *                                                   request)
 *                  root of C: its hostname          allowed
 *                  real root in C's net namespace   allowed
 *   mask -KILL     alice -> root of C (owner rule)  EPERM
 *   set -NET       (lowered by real root for alice's shell, inherited by
 *                  what she starts) her new namespace: lo's MTU EPERM, and
 *                  its recorded ceiling lacks CAP_NET_ADMIN, and goes
 *                  when the namespace goes
 *   alice          lowers her own set under no_new_privs (prctl() says
 *                  EALREADY for done); not without it
 *   budget 2       alice, lowered, makes three nested namespaces: the third
 *                  ENOSPC; carol, not lowered, is not counted; two of
 *                  real root's containers, each with its own budget
 *   detached       root of C: lo's MTU              allowed
 *   alice          attach, mask, lower               refused
 *   alice          makes the pin directory first     root's attach refused
 */

#include "kselftest_harness.h"
#include "nscaps_test.h"

#define LOADER		"/tests/userns-mask"
#define PIN_DIR		"/sys/fs/bpf/userns_mask"
#define NET		(1LL << CAP_NET_ADMIN)
#define KILL		(1LL << CAP_KILL)
#define CAROL		1002	/* a user who lowers nothing */

/* Run the loader with @args as @uid (0: as real root); its exit status. */
static int loader(uid_t uid, const char *args)
{
	char cmd[256];
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (uid && become(uid, false))
			_exit(125);
		snprintf(cmd, sizeof(cmd), LOADER " %s", args);
		execl("/bin/sh", "sh", "-c", cmd, NULL);
		_exit(126);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int loader_mask(unsigned long long mask)
{
	char args[64];

	snprintf(args, sizeof(args), "mask %llx", mask);
	return loader(0, args);
}

/* The ceiling userns-mask recorded for @pid's user namespace, or -1. */
static long long bpf_ceiling(pid_t pid)
{
	char cmd[64], line[64];
	unsigned long long c;
	long long found = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), LOADER " show %d", pid);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ceiling %llx", &c) == 1)
			found = c;
	pclose(f);
	return found;
}

/* In a child: a user and network namespace of its own, then lo's MTU. */
static int own_ns_lo_mtu(const struct agent_cmd *c)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (!pid)
		_exit(unshare(CLONE_NEWUSER | CLONE_NEWNET) ? errno :
		      net_lo_mtu());
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Real root, in a child, joins @pid's network namespace: lo's MTU there. */
static int root_in_net_ns(pid_t pid)
{
	int status;
	pid_t child = fork();

	if (child < 0)
		return errno;
	if (!child)
		_exit(join_ns(pid, CLONE_NEWNET) ? EIO : net_lo_mtu());
	if (waitpid(child, &status, 0) != child)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

FIXTURE(bpf) {
	struct agent c;
};

FIXTURE_SETUP(bpf)
{
	struct agent_spec c = { .creator = ALICE, .uid = 0,
				.unshare = CLONE_NEWUSER | CLONE_NEWNET,
				.uid_map = U_MAP };

	if (has_series())
		SKIP(return, "this kernel has the series: the BPF mask is for stock kernels");
	if (access(LOADER, X_OK))
		SKIP(return, "no %s in this guest", LOADER);
	ASSERT_EQ(0, agent_start(&self->c, &c));
	/* The container runs before the BPF program is there. */
	ASSERT_EQ(0, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	/* What an earlier test left attached, had it stopped half-way. */
	loader(0, "detach");
	ASSERT_EQ(0, loader(0, "attach"));
}

FIXTURE_TEARDOWN(bpf)
{
	loader(0, "detach");
	agent_stop(&self->c);
}

TEST_F(bpf, clamps_running_container)
{
	ASSERT_EQ(0, loader_mask(ALL_CAPS & ~NET));
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	/* The loopback set-up, told apart by its request. */
	EXPECT_EQ(0, agent_do(&self->c, OP_LO_UP, 0, 0, NULL));
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	EXPECT_EQ(0, agent_do(&self->c, OP_UNSHARE, 0, CLONE_NEWUTS, NULL));
	EXPECT_EQ(0, agent_do(&self->c, OP_SETHOSTNAME, 0, 0, "c"));
	/* Real root still manages the container. */
	EXPECT_EQ(0, root_in_net_ns(self->c.pid));
	/* Nothing shows it where users look. */
	EXPECT_EQ(ALL_CAPS, task_caps(self->c.pid, "CapEff:"));
	EXPECT_EQ(-1, task_caps(self->c.pid, "CapClamped:"));

	ASSERT_EQ(0, loader_mask(ALL_CAPS));
	EXPECT_EQ(0, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
}

TEST_F(bpf, owner_rule_clamped)
{
	struct agent alice;
	struct agent_spec a = { .creator = ALICE, .uid = KEEP };

	ASSERT_EQ(0, agent_start(&alice, &a));
	EXPECT_EQ(0, agent_do(&alice, OP_KILL, self->c.pid, 0, NULL));
	ASSERT_EQ(0, loader_mask(ALL_CAPS & ~KILL));
	EXPECT_EQ(EPERM, agent_do(&alice, OP_KILL, self->c.pid, 0, NULL));
	agent_stop(&alice);
}

TEST_F(bpf, set_lowered_by_root_and_ceiling)
{
	struct agent alice;
	struct agent_spec a = { .creator = ALICE, .uid = KEEP };
	char args[64];

	ASSERT_EQ(0, agent_start(&alice, &a));
	snprintf(args, sizeof(args), "lower %d net_admin", alice.pid);
	ASSERT_EQ(0, loader(0, args));
	EXPECT_EQ(EPERM, agent_do(&alice, OP_CALL, 0, (long)own_ns_lo_mtu,
				  NULL));
	/* A namespace she makes now has it out of its recorded ceiling. */
	ASSERT_EQ(0, agent_do(&alice, OP_UNSHARE, 0, CLONE_NEWUSER, NULL));
	EXPECT_EQ(ALL_CAPS & ~NET, bpf_ceiling(alice.pid) & ALL_CAPS);
	/* A namespace made before keeps a full one. */
	EXPECT_EQ(-1LL, bpf_ceiling(self->c.pid));
	agent_stop(&alice);
}

/* "ceilings N" of the loader's show: how many it holds, or -1. */
static long bpf_ceilings(void)
{
	char line[64];
	long n, found = -1;
	FILE *f = popen(LOADER " show", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ceilings %ld", &n) == 1)
			found = n;
	pclose(f);
	return found;
}

/* In a child of alice's agent: a user namespace, left at once. */
static int userns_and_leave(const struct agent_cmd *c)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (!pid)
		_exit(unshare(CLONE_NEWUSER) ? errno : 0);
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* A recorded ceiling goes with its namespace: the map cannot fill up. */
TEST_F(bpf, ceiling_goes_with_namespace)
{
	struct agent alice;
	struct agent_spec a = { .creator = ALICE, .uid = KEEP };
	long before = bpf_ceilings();
	char args[64];
	int i;

	ASSERT_LE(0, before);
	ASSERT_EQ(0, agent_start(&alice, &a));
	snprintf(args, sizeof(args), "lower %d net_admin", alice.pid);
	ASSERT_EQ(0, loader(0, args));
	for (i = 0; i < 20; i++)
		ASSERT_EQ(0, agent_do(&alice, OP_CALL, 0,
				      (long)userns_and_leave, NULL));
	/* free_user_ns() runs from a workqueue: wait for it, 5 s at most. */
	for (i = 0; i < 50 && bpf_ceilings() != before; i++)
		usleep(100 * 1000);
	EXPECT_EQ(before, bpf_ceilings());
	/* One that lives is counted. */
	ASSERT_EQ(0, agent_do(&alice, OP_UNSHARE, 0, CLONE_NEWUSER, NULL));
	EXPECT_EQ(before + 1, bpf_ceilings());
	agent_stop(&alice);
}

/*
 * In a child: no_new_privs if @c->pid, then PR_CAP_USERNS lowers
 * CAP_NET_ADMIN; then a user and network namespace, and lo's MTU there.
 */
static int self_lower_then_lo_mtu(const struct agent_cmd *c)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (!pid) {
		if (c->pid && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(EIO);
		/* Done is EALREADY: a BPF LSM program cannot return 0. */
		if (prctl(PR_CAP_USERNS, PR_CAP_USERNS_LOWER, CAP_NET_ADMIN,
			  0, 0) != -1 || errno != EALREADY)
			_exit(errno == EPERM ? 100 : errno ? errno : 101);
		_exit(unshare(CLONE_NEWUSER | CLONE_NEWNET) ? errno :
		      net_lo_mtu());
	}
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

TEST_F(bpf, alice_lowers_her_own_set)
{
	struct agent alice;
	struct agent_spec a = { .creator = ALICE, .uid = KEEP };

	ASSERT_EQ(0, agent_start(&alice, &a));
	/* Without no_new_privs: refused (100), and her namespace is whole. */
	EXPECT_EQ(100, agent_do(&alice, OP_CALL, 0,
				(long)self_lower_then_lo_mtu, NULL));
	EXPECT_EQ(0, agent_do(&alice, OP_CALL, 0, (long)own_ns_lo_mtu, NULL));
	/* Under it: lowered, and her namespace's root lacks it. */
	EXPECT_EQ(EPERM, agent_do(&alice, OP_CALL, 1,
				  (long)self_lower_then_lo_mtu, NULL));
	agent_stop(&alice);
}

/* In a child: user namespaces nested @c->pid deep; how many were made. */
static int nest_userns(const struct agent_cmd *c)
{
	int status, i;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (!pid) {
		char uid_map[32], gid_map[32];

		for (i = 0; i < c->pid; i++) {
			/* Mapped into each, so that it may make the next. */
			snprintf(uid_map, sizeof(uid_map), "0 %d 1",
				 (int)getuid());
			snprintf(gid_map, sizeof(gid_map), "0 %d 1",
				 (int)getgid());
			if (unshare(CLONE_NEWUSER))
				_exit(errno == ENOSPC ? i : 200);
			if (proc_write(getpid(), "uid_map", uid_map) ||
			    proc_write(getpid(), "setgroups", "deny") ||
			    proc_write(getpid(), "gid_map", gid_map))
				_exit(201);
		}
		_exit(i);
	}
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * Each owner has a budget of recorded ceilings: past it, a lowered
 * creator's namespace fails with ENOSPC.  A creator that needs no
 * ceiling recorded is never counted.
 */
TEST_F(bpf, ceiling_budget_per_owner)
{
	struct agent alice, carol;
	struct agent_spec a = { .creator = ALICE, .uid = KEEP };
	struct agent_spec b = { .creator = CAROL, .uid = KEEP };
	char args[64];

	ASSERT_EQ(0, loader(0, "detach"));
	ASSERT_EQ(0, loader(0, "attach 1ffffffffff 2"));
	/* Past the program's room, the loader refuses the budget. */
	EXPECT_EQ(2, loader(0, "attach 1ffffffffff 1025"));
	ASSERT_EQ(0, agent_start(&alice, &a));
	ASSERT_EQ(0, agent_start(&carol, &b));
	snprintf(args, sizeof(args), "lower %d net_admin", alice.pid);
	ASSERT_EQ(0, loader(0, args));
	EXPECT_EQ(2, agent_do(&alice, OP_CALL, 3, (long)nest_userns, NULL));
	EXPECT_EQ(5, agent_do(&carol, OP_CALL, 5, (long)nest_userns, NULL));
	agent_stop(&carol);
	agent_stop(&alice);
}

/*
 * Root's containers are all owned by uid 0; each has a budget of its
 * own, so that a payload that fills one's leaves the other's alone.
 *
 *   init: real root
 *   +-- R1  real root's container, its payload lowered: 2 of 3 nested
 *   +-- R2  another, its payload lowered too:          2 of 3 nested
 */
TEST_F(bpf, ceiling_budget_per_root_container)
{
	struct agent_spec r = { .creator = KEEP, .uid = 0,
				.unshare = CLONE_NEWUSER, .uid_map = U_MAP };
	struct agent r1, r2;
	char args[64];

	ASSERT_EQ(0, loader(0, "detach"));
	ASSERT_EQ(0, loader(0, "attach 1ffffffffff 2"));
	ASSERT_EQ(0, agent_start(&r1, &r));
	ASSERT_EQ(0, agent_start(&r2, &r));
	snprintf(args, sizeof(args), "lower %d net_admin", r1.pid);
	ASSERT_EQ(0, loader(0, args));
	snprintf(args, sizeof(args), "lower %d net_admin", r2.pid);
	ASSERT_EQ(0, loader(0, args));
	EXPECT_EQ(2, agent_do(&r1, OP_CALL, 3, (long)nest_userns, NULL));
	EXPECT_EQ(2, agent_do(&r2, OP_CALL, 3, (long)nest_userns, NULL));
	agent_stop(&r2);
	agent_stop(&r1);
}

TEST_F(bpf, detach_releases)
{
	ASSERT_EQ(0, loader_mask(ALL_CAPS & ~NET));
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	ASSERT_EQ(0, loader(0, "detach"));
	EXPECT_EQ(0, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
}

/*
 * bpffs's root is writable by everyone: alice may make the loader's pin
 * directory before root attaches.  Pinned there, the programs would be
 * hers to unpin, which detaches them, and the maps hers to swap.  The
 * loader refuses a directory that is not root's alone, and pins nothing.
 */
static int alice_mkdir(const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (!pid)
		_exit(become(ALICE, false) ? 125 : mkdir(path, 0777) ? errno : 0);
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

TEST_F(bpf, pin_directory_root_s_alone)
{
	ASSERT_EQ(0, loader(0, "detach"));
	ASSERT_EQ(0, alice_mkdir(PIN_DIR));
	EXPECT_NE(0, loader(0, "attach"));
	EXPECT_NE(0, access(PIN_DIR "/userns_mask_capable", F_OK));
	ASSERT_EQ(0, rmdir(PIN_DIR));
	EXPECT_EQ(0, loader(0, "attach"));
}

/* No unprivileged user may load the program or change its maps. */
TEST_F(bpf, alice_cannot_drive_it)
{
	char args[64];

	ASSERT_EQ(0, loader_mask(ALL_CAPS & ~NET));
	EXPECT_NE(0, loader(ALICE, "mask 1ffffffffff"));
	EXPECT_NE(0, loader(ALICE, "detach"));
	snprintf(args, sizeof(args), "lower %d net_admin", getpid());
	EXPECT_NE(0, loader(ALICE, args));
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
}

TEST_HARNESS_MAIN
