// SPDX-License-Identifier: GPL-2.0
/*
 * The user namespace clamps beside the security modules users run:
 * Landlock's scoping (the sandbox of the threat model: it lowers its set
 * and restricts itself with Landlock), AppArmor (Debian's default LSM),
 * and Debian's kernel.unprivileged_userns_clone switch.  A test whose
 * module or switch the kernel lacks is skipped, and says so.
 */

#include <linux/landlock.h>
#include <sys/mount.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "nscaps_test.h"

#define NET		(1LL << CAP_NET_ADMIN)
#define CLONE_SYSCTL	"/proc/sys/kernel/unprivileged_userns_clone"

/* The Landlock ABI of the running kernel; 0 if it has none. */
static int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : abi;
}

/*
 * Enter a Landlock domain scoped for signals and abstract unix sockets:
 * its tasks may signal, or connect to abstract sockets of, only tasks in
 * the domain.  Needs no_new_privs.
 */
static int landlock_scope(void)
{
	struct landlock_ruleset_attr attr = {
		.scoped = LANDLOCK_SCOPE_SIGNAL |
			  LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET,
	};
	int fd, err = 0;

	fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return errno;
	if (syscall(SYS_landlock_restrict_self, fd, 0))
		err = errno;
	close(fd);
	return err;
}

/* The sandbox: no_new_privs, then both steps in the order of c->str. */
static int sandbox(const struct agent_cmd *c)
{
	bool set_first = !strcmp(c->str, "set");
	int err;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return errno;
	if (set_first && prctl(PR_CAP_USERNS, PR_CAP_USERNS_LOWER,
			       CAP_NET_ADMIN, 0, 0))
		return errno;
	err = landlock_scope();
	if (err || set_first)
		return err;
	return prctl(PR_CAP_USERNS, PR_CAP_USERNS_LOWER, CAP_NET_ADMIN, 0,
		     0) ? errno : 0;
}

/* A user and a network namespace of one's own, then lo's MTU in it. */
static int own_ns_lo_mtu(const struct agent_cmd *c)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
		return errno;
	return net_lo_mtu();
}

/*
 *   alice: outside    a victim: SIGUSR1 blocked, in no Landlock domain,
 *                     full set
 *   alice: sandbox    no_new_privs; set less CAP_NET_ADMIN; a Landlock
 *                     domain scoped for signals and abstract sockets
 *       +-- N         made inside, with a network namespace
 *
 *   sandbox -> outside: SIGUSR1          EPERM (Landlock: out of scope)
 *   sandbox -> outside: PTRACE_ATTACH    EPERM (Landlock and the set)
 *   sandbox in N: lo's MTU               EPERM (the set)
 *   outside -> sandbox: PTRACE_ATTACH    allowed (a fuller set, no domain)
 *   outside in its own N: lo's MTU       allowed
 *
 * Either order of the two steps gives the same.
 */
FIXTURE(landlock) {
	struct agent outside, box;
};

FIXTURE_VARIANT(landlock) {
	const char *first;
};

FIXTURE_VARIANT_ADD(landlock, set_then_landlock) { .first = "set" };
FIXTURE_VARIANT_ADD(landlock, landlock_then_set) { .first = "landlock" };

FIXTURE_SETUP(landlock)
{
	struct agent_spec outside = { .creator = ALICE, .uid = KEEP,
				      .victim = true };
	struct agent_spec box = { .creator = ALICE, .uid = KEEP };

	if (landlock_abi() < 6)
		SKIP(return, "no Landlock with scoping (ABI 6) in this kernel");
	ASSERT_EQ(0, agent_start(&self->outside, &outside));
	ASSERT_EQ(0, agent_start(&self->box, &box));
	ASSERT_EQ(0, agent_do(&self->box, OP_CALL, 0, (long)sandbox,
			      variant->first));
}

FIXTURE_TEARDOWN(landlock)
{
	agent_stop(&self->box);
	agent_stop(&self->outside);
}

TEST_F(landlock, signal_out_of_scope)
{
	EXPECT_EQ(EPERM, agent_do(&self->box, OP_SIGNAL, self->outside.pid, 0,
				  NULL));
	EXPECT_FALSE(HAS(task_pending(self->outside.pid), SIGUSR1 - 1));
}

TEST_F(landlock, attach_out)
{
	EXPECT_EQ(EPERM, agent_do(&self->box, OP_ATTACH, self->outside.pid, 0,
				  NULL));
}

TEST_F(landlock, own_namespace_clamped)
{
	EXPECT_EQ(EPERM, agent_do(&self->box, OP_CALL, 0, (long)own_ns_lo_mtu,
				  NULL));
	EXPECT_EQ(0, agent_do(&self->outside, OP_CALL, 0, (long)own_ns_lo_mtu,
			      NULL));
}

TEST_F(landlock, attach_in_from_outside)
{
	EXPECT_EQ(0, agent_do(&self->outside, OP_ATTACH, self->box.pid, 0,
			      NULL));
}

/* The LSMs of the running kernel, in their order; "" if unknown. */
static const char *lsm_list(void)
{
	static char list[256];
	ssize_t n;
	int fd;

	mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
	fd = open("/sys/kernel/security/lsm", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "";
	n = read(fd, list, sizeof(list) - 1);
	close(fd);
	list[n > 0 ? n : 0] = '\0';
	return list;
}

/*
 * AppArmor, Debian's default, with no profile loaded: every task is
 * unconfined, and the clamps decide alone.  The mask still takes
 * CAP_NET_ADMIN from alice's container C; with the mask full, it is back.
 */
TEST(apparmor_unconfined)
{
	struct agent_spec spec = { .creator = ALICE, .uid = 0,
				   .uid_map = U_MAP,
				   .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	long long saved = get_mask();
	char label[64] = "";
	struct agent c;
	int fd;

	if (!strstr(lsm_list(), "apparmor"))
		SKIP(return, "AppArmor is not in this kernel's LSM stack (%s)",
		     lsm_list());
	TH_LOG("LSMs: %s", lsm_list());
	fd = open("/proc/self/attr/apparmor/current", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_LT(0, read(fd, label, sizeof(label) - 1));
	close(fd);
	EXPECT_EQ(0, strncmp(label, "unconfined", 10));

	ASSERT_EQ(0, agent_start(&c, &spec));
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	EXPECT_EQ(EPERM, agent_do(&c, OP_LO_MTU, 0, 0, NULL));
	ASSERT_EQ(0, set_mask(ALL_CAPS));
	EXPECT_EQ(0, agent_do(&c, OP_LO_MTU, 0, 0, NULL));
	agent_stop(&c);
	set_mask(saved);
}

/*
 * Debian's kernel.unprivileged_userns_clone=0: creating a user namespace
 * then needs CAP_SYS_ADMIN in the initial namespace, at any depth.  The
 * clamps are unchanged for the namespaces that privilege creates.
 *
 *   init
 *   +-- C   alice's, made before the switch went to 0
 *   +-- R   real root's, made after, its set less CAP_NET_ADMIN
 */
FIXTURE(no_unprivileged_userns) {
	char saved[16];
	struct agent alice, c;
};

FIXTURE_SETUP(no_unprivileged_userns)
{
	struct agent_spec alice = { .creator = ALICE, .uid = KEEP };
	struct agent_spec c = { .creator = ALICE, .uid = 0, .uid_map = U_MAP,
				.unshare = CLONE_NEWUSER };
	ssize_t n;
	int fd;

	fd = open(CLONE_SYSCTL, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		SKIP(return, "no kernel.unprivileged_userns_clone (not Debian's tree)");
	n = read(fd, self->saved, sizeof(self->saved) - 1);
	close(fd);
	ASSERT_LT(0, n);
	self->saved[n] = '\0';
	ASSERT_EQ(0, agent_start(&self->alice, &alice));
	ASSERT_EQ(0, agent_start(&self->c, &c));
	ASSERT_EQ(0, write_file(CLONE_SYSCTL, "0"));
}

FIXTURE_TEARDOWN(no_unprivileged_userns)
{
	agent_stop(&self->c);
	agent_stop(&self->alice);
	if (self->saved[0])
		write_file(CLONE_SYSCTL, self->saved);
}

TEST_F(no_unprivileged_userns, alice_cannot_create)
{
	EXPECT_EQ(EPERM, agent_do(&self->alice, OP_UNSHARE, 0, CLONE_NEWUSER,
				  NULL));
}

TEST_F(no_unprivileged_userns, root_of_c_cannot_nest)
{
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_UNSHARE, 0, CLONE_NEWUSER,
				  NULL));
}

TEST_F(no_unprivileged_userns, set_still_lowers)
{
	EXPECT_EQ(0, agent_do(&self->alice, OP_USERNS_LOWER, 0, CAP_NET_ADMIN,
			      NULL));
	EXPECT_FALSE(HAS(task_caps(self->alice.pid, "CapUns:"),
			 CAP_NET_ADMIN));
}

TEST_F(no_unprivileged_userns, root_made_namespace_clamped)
{
	struct agent_spec spec = { .creator = KEEP, .drop = NET, .uid = 0,
				   .uid_map = "0 300000 1000",
				   .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	struct agent r;

	ASSERT_EQ(0, agent_start(&r, &spec));
	EXPECT_FALSE(HAS(ns_ceiling(r.pid), CAP_NET_ADMIN));
	EXPECT_TRUE(HAS(ns_ceiling(r.pid), CAP_SYS_ADMIN));
	EXPECT_EQ(EPERM, agent_do(&r, OP_LO_MTU, 0, 0, NULL));
	agent_stop(&r);
}

TEST_F(no_unprivileged_userns, tool_says_so)
{
	char out[4096] = "";
	size_t n;
	FILE *p;

	p = popen("/tests/nscaps show 1", "r");
	ASSERT_NE(NULL, p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	EXPECT_EQ(0, pclose(p));
	EXPECT_NE(NULL, strstr(out, "unprivileged user namespaces: off")) {
		TH_LOG("%s", out);
	}
}

TEST_HARNESS_MAIN
