// SPDX-License-Identifier: GPL-2.0
/*
 * The system mask from the kernel command line, as any sysctl is set
 * there.  make check boots the guest a second time to run this suite
 * alone, with
 *
 *   sysctl.kernel.userns_cap_mask=1ffffffefff
 *   sysctl.kernel.userns_cap_mask=zz
 *
 * every capability but CAP_NET_ADMIN, then a value the sysctl must refuse
 * and the kernel report.  guest/init reads the mask before it does anything else and
 * passes it on as NSCAPS_MASK_AT_INIT.  Without the parameter every test
 * is skipped.
 *
 *   init (PID 1: reads the mask first)
 *   +-- alice
 *       +-- N  her first namespace, with a network namespace: the mask
 *              holds, though her set and N's ceiling are full
 */

#include "kselftest_harness.h"
#include "nscaps_test.h"

#define NET		(1LL << CAP_NET_ADMIN)
#define PARAM		"sysctl.kernel.userns_cap_mask="
#define REFUSED		"Failed to set sysctl parameter 'kernel.userns_cap_mask=zz': invalid value"

/*
 * The mask the command line asks for: its first PARAM that is
 * a valid mask; -1 if there is none.  Whether a refused value follows is
 * told in @refused.
 */
static long long cmdline_mask(bool *refused)
{
	char line[4096], *arg, *end;
	long long mask = -1, v;
	ssize_t n;
	int fd;

	*refused = false;
	fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	line[n > 0 ? n : 0] = '\0';
	for (arg = strtok(line, " \n"); arg; arg = strtok(NULL, " \n")) {
		if (strncmp(arg, PARAM, strlen(PARAM)))
			continue;
		errno = 0;
		v = strtoll(arg + strlen(PARAM), &end, 16);
		if (errno || *end || (v & ~ALL_CAPS))
			*refused = true;
		else if (mask < 0)
			mask = v;
	}
	return mask;
}

FIXTURE(boot) {
	long long mask;
	bool refused;
	struct agent alice;
	char log[1 << 18];
};

FIXTURE_SETUP(boot)
{
	self->mask = cmdline_mask(&self->refused);
	if (self->mask < 0)
		SKIP(return, "no " PARAM " on the kernel command line");
}

FIXTURE_TEARDOWN(boot)
{
	agent_stop(&self->alice);
}

/* In force when the first process of user space started. */
TEST_F(boot, in_force_at_init)
{
	const char *at_init = getenv("NSCAPS_MASK_AT_INIT");

	ASSERT_NE(NULL, at_init);
	EXPECT_EQ(self->mask, strtoll(at_init, NULL, 16));
	EXPECT_EQ(ALL_CAPS & ~NET, self->mask);
}

/* The sysctl reads what the command line set; the refused value left it. */
TEST_F(boot, read_back)
{
	EXPECT_EQ(self->mask, get_mask());
}

TEST_F(boot, refused_value_reported)
{
	if (!self->refused)
		SKIP(return, "no refused value on the command line");
	EXPECT_EQ(1, log_count(log_since("Linux version", self->log,
					 sizeof(self->log)), REFUSED));
}

/*
 * alice's first namespace: she holds CAP_NET_ADMIN in N's sets and N's
 * ceiling has it, but the mask from boot does not.
 */
TEST_F(boot, first_namespace_clamped)
{
	struct agent_spec n = { .creator = ALICE, .uid = 0,
				.unshare = CLONE_NEWUSER | CLONE_NEWNET };

	ASSERT_EQ(0, agent_start(&self->alice, &n));
	EXPECT_TRUE(HAS(task_caps(self->alice.pid, "CapEff:"),
			CAP_NET_ADMIN));
	EXPECT_EQ(EPERM, agent_do(&self->alice, OP_LO_MTU, 0, 0, NULL));
}

/* Real root may still raise it: the command line sets where it starts. */
TEST_F(boot, sysctl_still_writes)
{
	struct agent_spec n = { .creator = ALICE, .uid = 0,
				.unshare = CLONE_NEWUSER | CLONE_NEWNET };

	ASSERT_EQ(0, set_mask(ALL_CAPS));
	ASSERT_EQ(0, agent_start(&self->alice, &n));
	EXPECT_EQ(0, agent_do(&self->alice, OP_LO_MTU, 0, 0, NULL));
	EXPECT_EQ(0, set_mask(self->mask));
	EXPECT_EQ(EPERM, agent_do(&self->alice, OP_LO_MTU, 0, 0, NULL));
}

TEST_HARNESS_MAIN
