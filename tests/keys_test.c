// SPDX-License-Identifier: GPL-2.0
/*
 * request_key(2) and restricted keyrings (posting 5): a key that
 * request_key() builds is linked into its destination keyring before it
 * has a payload, and that link did not ask the keyring's restriction, so
 * any user could put a key into a keyring restricted to refuse it.  A
 * restricted keyring now refuses the link, as it refuses a negative key
 * from key_reject_and_link(); an unrestricted one takes it as before; and a
 * restricted keyring that is only the default destination is left out,
 * the key built unlinked, so that requests that name no destination (all
 * the kernel's own) do not fail for it.
 *
 *   alice (uid 1000)                                             helper's
 *                                                                requestor
 *     keyring named, restricted (reject all)  request_key(dest)  EPERM, empty
 *                                                                (not run)
 *     keyring named, not restricted           request_key(dest)  linked
 *                                                                found
 *     process keyring restricted, no dest     request_key(0)     not linked
 *                                                                ENOKEY
 *
 * The request-key helper (request_key_probe) leaves the key negative, and
 * says what its lookup of the requestor's keyring found: a request whose
 * default destination was left out hands it none, which it must be told,
 * not have dereferenced (an outside review).  What counts is whether the
 * keyring holds the key afterwards.
 */

#include <libgen.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "nscaps_keys.h"
#include "nscaps_test.h"

#define REQUEST_KEY	"/sbin/request-key"
#define SAVED		"/sbin/request-key.keys_test"
#define PROBE_OUT	"/tmp/request-key-probe"

FIXTURE(keys) {
	struct agent alice;
};

enum dest { NAMED, NAMED_RESTRICTED, DEFAULT_RESTRICTED };

FIXTURE_VARIANT(keys) {
	enum dest dest;
	int err;	/* request_key()'s errno; 0: any but EPERM */
	int links;	/* what the keyring holds afterwards */
	int requestor;	/* the helper's lookup's errno; -1: not run */
};

FIXTURE_VARIANT_ADD(keys, named_restricted) {
	.dest = NAMED_RESTRICTED, .err = EPERM, .links = 0, .requestor = -1,
};

FIXTURE_VARIANT_ADD(keys, named) {
	.dest = NAMED, .err = 0, .links = 1, .requestor = 0,
};

FIXTURE_VARIANT_ADD(keys, default_restricted) {
	.dest = DEFAULT_RESTRICTED, .err = 0, .links = 0, .requestor = ENOKEY,
};

/* What the helper wrote, or -1 if it did not run. */
static int probe_result(void)
{
	FILE *f = fopen(PROBE_OUT, "r");
	int err = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &err) != 1)
		err = -2;
	fclose(f);
	return err;
}

FIXTURE_SETUP(keys)
{
	struct agent_spec alice = { .creator = ALICE, .uid = KEEP };
	char exe[256] = "", script[512];
	ssize_t n;
	int fd;

	/* The probe lies beside this program. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, n);
	exe[n] = '\0';
	snprintf(script, sizeof(script),
		 "#!/bin/sh\nexec %s/request_key_probe %s \"$@\"\n",
		 dirname(exe), PROBE_OUT);
	mkdir("/sbin", 0755);
	unlink(PROBE_OUT);
	/* A guest with keyutils has a helper of its own: keep it aside. */
	ASSERT_TRUE(!rename(REQUEST_KEY, SAVED) || errno == ENOENT);
	fd = open(REQUEST_KEY, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(script), write(fd, script, strlen(script)));
	close(fd);
	ASSERT_EQ(0, agent_start(&self->alice, &alice));
}

FIXTURE_TEARDOWN(keys)
{
	agent_stop(&self->alice);
	unlink(REQUEST_KEY);
	rename(SAVED, REQUEST_KEY);
	unlink(PROBE_OUT);
}

/*
 * As alice: the keyring of the variant @c->pid (a keyring of hers, or her
 * process keyring, restricted to refuse every link or not), then a request
 * for a key to be built, into it or into the default destination.
 * Returns request_key()'s errno (ENOKEY when the helper leaves the key
 * negative) plus 1000 times the links the keyring holds afterwards, or
 * 90000 + errno for a failed step.
 */
static int request_into(const struct agent_cmd *c)
{
	int32_t links[8];
	long ring, dest, n;
	int err = 0;

	if (c->pid == DEFAULT_RESTRICTED)
		ring = keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING,
			      1, 0);
	else
		ring = syscall(SYS_add_key, "keyring", "nscaps-dest", NULL, 0,
			       KEY_SPEC_PROCESS_KEYRING);
	if (ring < 0)
		return 90000 + errno;
	if (c->pid != NAMED && keyctl(KEYCTL_RESTRICT_KEYRING, ring, 0, 0))
		return 90000 + errno;
	dest = c->pid == DEFAULT_RESTRICTED ? 0 : ring;
	if (syscall(SYS_request_key, "user", "nscaps:probe", "callout",
		    dest) < 0)
		err = errno;
	n = keyctl(KEYCTL_READ, ring, (long)links, sizeof(links));
	if (n < 0)
		return 90000 + errno;
	return err + 1000 * (int)(n / sizeof(links[0]));
}

TEST_F(keys, request_key_link)
{
	/* OP_CALL's pid field carries the variant's destination. */
	int ret = agent_do(&self->alice, OP_CALL, variant->dest,
			   (long)request_into, NULL);

	ASSERT_GT(90000, ret);
	EXPECT_EQ(variant->links, ret / 1000) {
		TH_LOG("request_key() left %d links (errno %d)", ret / 1000,
		       ret % 1000);
	}
	if (variant->err) {
		EXPECT_EQ(variant->err, ret % 1000);
	} else {
		/* Left negative by the helper; but not refused. */
		EXPECT_EQ(ENOKEY, ret % 1000);
	}
	EXPECT_EQ(variant->requestor, probe_result());
}

TEST_HARNESS_MAIN
