// SPDX-License-Identifier: GPL-2.0
/*
 * The seed's "proc mounts" goal, as mainline reached it: proc may be mounted
 * by a task with CAP_SYS_ADMIN in the user namespace that owns both the pid
 * namespace proc will show and the mount namespace it goes into.
 *
 *   alice creates               then mounts proc    result
 *   user + pid + mount ns       in her mount ns     allowed, shows her pids
 *   user + mount ns             in her mount ns     EPERM, pid ns is init's
 *   user + pid ns               in the host's       EPERM, mount ns is init's
 */

#include <sys/mount.h>

#include "kselftest_harness.h"
#include "nscaps_test.h"

FIXTURE(procmount) {};

FIXTURE_VARIANT(procmount) {
	int flags;
	int expected;
};

FIXTURE_VARIANT_ADD(procmount, own_pid_and_mount_ns) {
	.flags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS, .expected = 0,
};
FIXTURE_VARIANT_ADD(procmount, host_pid_ns) {
	.flags = CLONE_NEWUSER | CLONE_NEWNS, .expected = EPERM,
};
FIXTURE_VARIANT_ADD(procmount, host_mount_ns) {
	.flags = CLONE_NEWUSER | CLONE_NEWPID, .expected = EPERM,
};

FIXTURE_SETUP(procmount) {}
FIXTURE_TEARDOWN(procmount) {}

TEST_F(procmount, mount_proc)
{
	char map[32], link[64];
	pid_t child;
	int status, err;
	ssize_t len;

	ASSERT_EQ(0, become(ALICE, false));
	ASSERT_EQ(0, unshare(variant->flags));
	snprintf(map, sizeof(map), "0 %d 1", ALICE);
	ASSERT_EQ(0, proc_write(getpid(), "setgroups", "deny"));
	ASSERT_EQ(0, proc_write(getpid(), "uid_map", map));
	ASSERT_EQ(0, proc_write(getpid(), "gid_map", map));
	if (variant->flags & CLONE_NEWNS)
		ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE,
				   NULL));
	if (mkdir("/tmp/procmount", 0755))
		ASSERT_EQ(EEXIST, errno);

	/* The first child is pid 1 of a new pid namespace. */
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		err = mount("proc", "/tmp/procmount", "proc", 0, NULL) ?
		      errno : 0;
		ASSERT_EQ(variant->expected, err);
		if (err)
			_exit(0);
		len = readlink("/tmp/procmount/self", link, sizeof(link) - 1);
		ASSERT_LT(0, len);
		link[len] = '\0';
		EXPECT_STREQ("1", link);
		/* Only our own namespace's tasks: no host init to show. */
		EXPECT_EQ(0, access("/tmp/procmount/1/status", F_OK));
		EXPECT_EQ(-1, access("/tmp/procmount/2/status", F_OK));
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
}

TEST_HARNESS_MAIN
