// SPDX-License-Identifier: GPL-2.0
/*
 * Seed patch 1, "add a user namespace as creator/owner of uts namespace":
 * a uts namespace belongs to the user namespace of the task that creates
 * it, which with CLONE_NEWUSER | CLONE_NEWUTS is the new user namespace.
 * NS_GET_USERNS on the uts namespace file names the owner.
 *
 *   creator              unshare()                      uts owned by
 *   alice                NEWUSER | NEWUTS               the new user ns
 *   alice                NEWUSER, then NEWUTS           the new user ns
 *   root of init         NEWUTS                         init user ns
 *   alice                NEWUTS                         - (EPERM)
 */

#include "kselftest_harness.h"
#include "nscaps_test.h"

FIXTURE(uts_owner) {};

FIXTURE_VARIANT(uts_owner) {
	uid_t creator;
	int first;		/* the first unshare() */
	int second;		/* a later one, 0 for none */
	int expected;		/* errno of the unshare that makes the uts */
};

FIXTURE_VARIANT_ADD(uts_owner, with_new_userns) {
	.creator = ALICE, .first = CLONE_NEWUSER | CLONE_NEWUTS,
};
FIXTURE_VARIANT_ADD(uts_owner, after_new_userns) {
	.creator = ALICE, .first = CLONE_NEWUSER, .second = CLONE_NEWUTS,
};
FIXTURE_VARIANT_ADD(uts_owner, root_without_userns) {
	.creator = 0, .first = CLONE_NEWUTS,
};
FIXTURE_VARIANT_ADD(uts_owner, user_without_userns) {
	.creator = ALICE, .first = CLONE_NEWUTS, .expected = EPERM,
};

FIXTURE_SETUP(uts_owner) {}
FIXTURE_TEARDOWN(uts_owner) {}

TEST_F(uts_owner, ns_get_userns)
{
	ino_t host_uts = ns_ino(0, "uts");
	int uts, owner, err;

	ASSERT_EQ(0, become(variant->creator, false));
	err = unshare(variant->first) ? errno : 0;
	if (!err && variant->second)
		err = unshare(variant->second) ? errno : 0;
	ASSERT_EQ(variant->expected, err);
	if (err) {
		/* Nothing was created. */
		EXPECT_EQ(host_uts, ns_ino(0, "uts"));
		return;
	}

	EXPECT_NE(host_uts, ns_ino(0, "uts"));
	uts = open("/proc/self/ns/uts", O_RDONLY);
	ASSERT_LE(0, uts);
	owner = ioctl(uts, NS_GET_USERNS);
	ASSERT_LE(0, owner);
	/* The owner is the user namespace we are in now, new or not. */
	EXPECT_EQ(ns_ino(0, "user"), fd_ino(owner));
	close(owner);
	close(uts);
}

/* The host's uts namespace belongs to the initial user namespace. */
TEST(host_uts_owned_by_init_userns)
{
	int uts = open("/proc/1/ns/uts", O_RDONLY);
	int owner;

	ASSERT_LE(0, uts);
	owner = ioctl(uts, NS_GET_USERNS);
	ASSERT_LE(0, owner);
	EXPECT_EQ(ns_ino(1, "user"), fd_ino(owner));
	/* And the initial user namespace has no parent to show. */
	EXPECT_EQ(-1, ioctl(owner, NS_GET_PARENT));
	EXPECT_EQ(EPERM, errno);
}

TEST_HARNESS_MAIN
