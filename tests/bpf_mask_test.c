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
 *                  root of C: lo up                 EPERM (no loopback rule)
 *                  root of C: its hostname          allowed
 *                  real root in C's net namespace   allowed
 *   mask -KILL     alice -> root of C (owner rule)  EPERM
 *   set -NET       (lowered by real root for alice's shell, inherited by
 *                  what she starts) her new namespace: lo's MTU EPERM, and
 *                  its recorded ceiling lacks CAP_NET_ADMIN
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
	/* The capable hook cannot tell a sandbox's loopback set-up apart. */
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_LO_UP, 0, 0, NULL));
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
	EXPECT_NE(0, access(PIN_DIR "/capable", F_OK));
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
