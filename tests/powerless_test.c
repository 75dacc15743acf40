// SPDX-License-Identifier: GPL-2.0
/*
 * The seed's cover letter: every capable() check is a check against the
 * initial user namespace, so root of a child user namespace, holding every
 * capability there, is powerless outside it.
 *
 *   init user namespace (host uts, host mounts, host clock, ...)
 *   +-- U   created by alice (uid 1000), who maps herself to root of U
 *           and gets a mount namespace of U's own:
 *           full effective set in U -> each operation on the host: denied
 *
 * Each variant names the operation, the capability it needs, and the error:
 * EPERM from a capability check, EACCES where the kernel checks a file mode
 * (a sysctl file belongs to real root, whom U does not map) or treats a
 * nice value that way.  The test first proves that root of U does hold the
 * capability in its effective set, so the refusal is the namespace's.
 */

#include <linux/reboot.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/utsname.h>
#include <time.h>

#include "kselftest_harness.h"
#include "nscaps_test.h"

static int op_settimeofday(void)
{
	struct timeval tv = { .tv_sec = 1000000000 };	/* 2001 */

	return settimeofday(&tv, NULL) ? errno : 0;
}

static int op_clock_settime(void)
{
	struct timespec ts = { .tv_sec = 1000000000 };

	return clock_settime(CLOCK_REALTIME, &ts) ? errno : 0;
}

static int op_adjtimex(void)
{
	struct timex tx = { .modes = ADJ_OFFSET, .offset = 1000 };

	return adjtimex(&tx) < 0 ? errno : 0;
}

static int op_init_module(void)
{
	static char image[64];

	return syscall(SYS_init_module, image, sizeof(image), "") ? errno : 0;
}

static int op_reboot(void)
{
	/* Harmless if it went through: turns Ctrl-Alt-Del off. */
	return syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2,
		       LINUX_REBOOT_CMD_CAD_OFF, NULL) ? errno : 0;
}

static int op_mount_ext2(void)
{
	if (mkdir("/tmp/powerless-mnt", 0755) && errno != EEXIST)
		return errno;
	/* The mount namespace is U's own: only the fs type is in the way. */
	return mount("/dev/nonexistent", "/tmp/powerless-mnt", "ext2", 0,
		     NULL) ? errno : 0;
}

static int op_sethostname(void)
{
	return sethostname("powerful", 8) ? errno : 0;
}

static int op_write_sysctl(void)
{
	return -write_file("/proc/sys/kernel/domainname", "powerful");
}

static int op_mknod(void)
{
	return mknod("/tmp/powerless-null", S_IFCHR | 0666, makedev(1, 3)) ?
	       errno : 0;
}

static int op_raise_hard_rlimit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return errno;
	rl.rlim_max += 1;
	return setrlimit(RLIMIT_NOFILE, &rl) ? errno : 0;
}

static int op_sched_fifo(void)
{
	struct sched_param sp = { .sched_priority = 1 };

	return sched_setscheduler(0, SCHED_FIFO, &sp) ? errno : 0;
}

static int op_nice_down(void)
{
	return setpriority(PRIO_PROCESS, 0, -10) ? errno : 0;
}

static int op_syslog_clear(void)
{
	return syscall(SYS_syslog, 5 /* SYSLOG_ACTION_CLEAR */, NULL, 0) ?
	       errno : 0;
}

static int op_vhangup(void)
{
	return vhangup() ? errno : 0;
}

static int op_kill_host_init(void)
{
	return kill(1, 0) ? errno : 0;
}

static int op_chown_host_file(void)
{
	return chown("/init", 0, 0) ? errno : 0;
}

FIXTURE(powerless) {};

FIXTURE_VARIANT(powerless) {
	int (*op)(void);
	int cap;
	int expected;
};

#define POWERLESS(name, capability, err)			\
	FIXTURE_VARIANT_ADD(powerless, name) {			\
		.op = op_##name, .cap = capability, .expected = err, \
	}

POWERLESS(settimeofday, CAP_SYS_TIME, EPERM);
POWERLESS(clock_settime, CAP_SYS_TIME, EPERM);
POWERLESS(adjtimex, CAP_SYS_TIME, EPERM);
POWERLESS(init_module, CAP_SYS_MODULE, EPERM);
POWERLESS(reboot, CAP_SYS_BOOT, EPERM);
POWERLESS(mount_ext2, CAP_SYS_ADMIN, EPERM);
POWERLESS(sethostname, CAP_SYS_ADMIN, EPERM);
POWERLESS(write_sysctl, CAP_SYS_ADMIN, EACCES);
POWERLESS(mknod, CAP_MKNOD, EPERM);
POWERLESS(raise_hard_rlimit, CAP_SYS_RESOURCE, EPERM);
POWERLESS(sched_fifo, CAP_SYS_NICE, EPERM);
POWERLESS(nice_down, CAP_SYS_NICE, EACCES);
POWERLESS(syslog_clear, CAP_SYSLOG, EPERM);
POWERLESS(vhangup, CAP_SYS_TTY_CONFIG, EPERM);
POWERLESS(kill_host_init, CAP_KILL, EPERM);
POWERLESS(chown_host_file, CAP_CHOWN, EPERM);

FIXTURE_SETUP(powerless) {}
FIXTURE_TEARDOWN(powerless) {}

TEST_F(powerless, from_child_userns_root)
{
	struct utsname host, now;
	cap_flag_value_t has;
	struct stat st;
	cap_t caps;
	char map[32];
	int err;

	ASSERT_EQ(0, uname(&host));
	ASSERT_EQ(0, become(ALICE, false));
	ASSERT_EQ(0, unshare(CLONE_NEWUSER | CLONE_NEWNS));
	snprintf(map, sizeof(map), "0 %d 1", ALICE);
	ASSERT_EQ(0, proc_write(getpid(), "setgroups", "deny"));
	ASSERT_EQ(0, proc_write(getpid(), "uid_map", map));
	ASSERT_EQ(0, proc_write(getpid(), "gid_map", map));

	caps = cap_get_proc();
	ASSERT_NE(NULL, caps);
	ASSERT_EQ(0, cap_get_flag(caps, variant->cap, CAP_EFFECTIVE, &has));
	ASSERT_EQ(CAP_SET, (int)has);
	cap_free(caps);

	err = variant->op();
	EXPECT_EQ(variant->expected, err) {
		TH_LOG("expected %s, got %s", errname(variant->expected),
		       errname(err));
	}

	/* Nothing on the host changed. */
	ASSERT_EQ(0, uname(&now));
	EXPECT_STREQ(host.nodename, now.nodename);
	EXPECT_STREQ(host.domainname, now.domainname);
	EXPECT_LT(1500000000, time(NULL));
	EXPECT_EQ(0, stat("/init", &st));
	/* Still real root's, whom U does not map: the overflow uid. */
	EXPECT_EQ(65534U, st.st_uid);
	EXPECT_EQ(-1, stat("/tmp/powerless-null", &st));
}

/* Real root is not powerless: the same mount gets past the capability. */
TEST(control_real_root_mount_ext2)
{
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	EXPECT_NE(EPERM, op_mount_ext2());
}

TEST_HARNESS_MAIN
