/* SPDX-License-Identifier: GPL-2.0 */
/*
 * keyctl(2) as the kernel takes it, for the suites that drive keyrings
 * and for request_key_probe: glibc has no wrapper, and libkeyutils would
 * hide the raw operations (KEYCTL_RESTRICT_KEYRING, KEYCTL_SETPERM) the
 * tests are about.  Returns the syscall's result; errno on failure.
 */

#ifndef NSCAPS_KEYS_H
#define NSCAPS_KEYS_H

#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline long keyctl(int op, long a, long b, long c)
{
	return syscall(SYS_keyctl, op, a, b, c, 0);
}

#endif /* NSCAPS_KEYS_H */
