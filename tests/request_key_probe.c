// SPDX-License-Identifier: GPL-2.0
/*
 * A request-key helper for keys_test.  keys_test installs
 * /sbin/request-key as a script that runs
 *
 *   request_key_probe OUT create KEY UID GID THREAD PROCESS SESSION
 *
 * which is how the kernel starts the helper for a key request_key(2) is
 * building, with OUT put in front.  The probe takes the request's
 * authority, looks up the requestor's destination keyring
 * (KEY_SPEC_REQUESTOR_KEYRING), writes the errno of that lookup to OUT
 * (0: found; 1000 + errno: no authority), and leaves the key negative.
 * A request whose default destination was left out, restricted, has no
 * destination keyring: the lookup must say ENOKEY, not dereference it.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nscaps_keys.h"

int main(int argc, char **argv)
{
	char desc[256];
	long key;
	int err = 0;
	FILE *out;

	if (argc < 4) {
		fprintf(stderr, "usage: %s OUT create KEY ...\n", argv[0]);
		return 2;
	}
	key = strtol(argv[3], NULL, 10);
	if (keyctl(KEYCTL_ASSUME_AUTHORITY, key, 0, 0) < 0)
		err = 1000 + errno;
	else if (keyctl(KEYCTL_DESCRIBE, KEY_SPEC_REQUESTOR_KEYRING,
			(long)desc, sizeof(desc)) < 0)
		err = errno;
	out = fopen(argv[1], "w");
	if (!out)
		return 1;
	fprintf(out, "%d\n", err);
	fclose(out);
	keyctl(KEYCTL_NEGATE, key, 1, 0);
	return 0;
}
