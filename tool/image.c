// SPDX-License-Identifier: GPL-2.0
/*
 * nscaps image: would the kernel let root of a user namespace mount this
 * EROFS image, and if not, which of the five conditions fails?
 *
 *   1. fs.erofs.userns_mount is 1 (and the mounter holds CAP_SYS_ADMIN in
 *      its user namespace, which the tool cannot judge for a mount yet to
 *      be made);
 *   2. the source is a regular file;
 *   3. it has fs-verity, and its digest is in .erofs_trusted;
 *   4. nobody has it open for writing (the kernel says ETXTBSY; the tool
 *      cannot see other processes' open files);
 *   5. it keeps to the core format: no incompatible feature.
 *
 * Everything is read as the kernel would, from the file, its fs-verity
 * digest and the keyring; the kernel's own message (in the log of an
 * fsopen() context, or the kernel log) has the last word.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fsverity.h>
#include <linux/keyctl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "image.h"

#define SWITCH		"/proc/sys/fs/erofs/userns_mount"
#define EROFS_MAGIC	0xe0f5e1e2

/* The incompatible features of EROFS, by bit, as fs/erofs names them. */
static const char *const features[] = {
	"zero padding (compression)", "compression configurations",
	"big pclusters (compression)", "chunked files", "a device table",
	"ztailpacking (compression)", "fragments", "deduplication",
	"long xattr name prefixes",
};

struct verdict {
	int failed;		/* the first condition that fails, or 0 */
	char why[6][256];	/* why each one fails, or "" */
};

static void fail(struct verdict *v, int cond, const char *fmt, const char *a)
{
	if (!v->failed || cond < v->failed)
		v->failed = cond;
	if (!v->why[cond][0])
		snprintf(v->why[cond], sizeof(v->why[cond]), fmt, a);
}

static long keyctl(int op, long a, long b, long c)
{
	return syscall(SYS_keyctl, op, a, b, c, 0);
}

/* Condition 1: the switch. */
static const char *check_switch(struct verdict *v)
{
	char value[8] = "";
	int fd = open(SWITCH, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fail(v, 1, "%s", "this kernel cannot mount EROFS images from "
		     "user namespaces (no " SWITCH ")");
		return "absent";
	}
	if (read(fd, value, sizeof(value) - 1) < 0)
		value[0] = '?';
	close(fd);
	if (value[0] != '1')
		fail(v, 1, "%s", "real root has not switched mounts from user "
		     "namespaces on (fs.erofs.userns_mount is 0)");
	return value[0] == '1' ? "on" : "off";
}

/* The digest fs-verity computed for @fd, as "sha256:<hex>", or why not. */
static int measure(int fd, char *out, size_t size)
{
	struct {
		struct fsverity_digest d;
		unsigned char buf[64];
	} m = { .d.digest_size = 64 };
	size_t i, n;

	if (ioctl(fd, FS_IOC_MEASURE_VERITY, &m))
		return errno;
	n = snprintf(out, size, "%s:",
		     m.d.digest_algorithm == FS_VERITY_HASH_ALG_SHA512 ?
		     "sha512" : "sha256");
	for (i = 0; i < m.d.digest_size && n + 2 < size; i++)
		n += snprintf(out + n, size - n, "%02x", m.d.digest[i]);
	return 0;
}

/*
 * Is @digest a key of .erofs_trusted?  1 yes, 0 no, -1 if the keyring
 * cannot be seen: /proc/keys hides keys whose owner (real root) the
 * reader's user namespace does not map.
 */
static int trusted(const char *digest)
{
	char line[512], desc[256];
	int keys[256];
	long ring = -1, n, i;
	FILE *f = fopen("/proc/keys", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " keyring ") &&
		    strstr(line, " .erofs_trusted:"))
			ring = strtol(line, NULL, 16);
	if (f)
		fclose(f);
	if (ring < 0)
		return -1;
	n = keyctl(KEYCTL_READ, ring, (long)keys, sizeof(keys));
	for (i = 0; i < n / (long)sizeof(keys[0]); i++) {
		char *d;

		if (keyctl(KEYCTL_DESCRIBE, keys[i], (long)desc,
			   sizeof(desc)) < 0)
			continue;
		/* "type;uid;gid;perm;description" */
		d = strrchr(desc, ';');
		if (!strncmp(desc, "erofs_digest;", 13) && d &&
		    !strcmp(d + 1, digest))
			return 1;
	}
	return 0;
}

/* Conditions 2, 3 and 5, on the file itself. */
static void check_file(struct verdict *v, const char *path, char *digest,
		       size_t size, uint32_t *incompat)
{
	unsigned char sb[128];
	struct stat st;
	int fd, err, t;

	*incompat = 0;
	digest[0] = '\0';
	if (stat(path, &st)) {
		fail(v, 2, "cannot stat it: %s", strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		fail(v, 2, "%s", "not a regular file: devices and FIFOs are "
		     "never opened for a mount from a user namespace");
		snprintf(v->why[3], sizeof(v->why[3]), "not looked at");
		snprintf(v->why[5], sizeof(v->why[5]), "not looked at");
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fail(v, 2, "cannot open it: %s", strerror(errno));
		return;
	}
	err = measure(fd, digest, size);
	if (err == ENODATA)
		fail(v, 3, "%s", "fs-verity is not enabled on it (fsverity "
		     "enable)");
	else if (err)
		fail(v, 3, "its filesystem has no fs-verity (%s); copy it to "
		     "one that has, such as ext4 made with -O verity",
		     strerror(err));
	else if ((t = trusted(digest)) == 0)
		fail(v, 3, "its digest %s is not in .erofs_trusted: real root "
		     "has not trusted this image", digest);
	else if (t < 0)
		fail(v, 3, "%s", ".erofs_trusted cannot be seen from this user "
		     "namespace; run nscaps image where root is mapped");
	if (pread(fd, sb, sizeof(sb), 1024) != sizeof(sb) ||
	    (sb[0] | sb[1] << 8 | sb[2] << 16 | (uint32_t)sb[3] << 24) !=
	    EROFS_MAGIC)
		fail(v, 5, "%s", "not an EROFS image (no superblock magic)");
	else
		*incompat = sb[0x50] | sb[0x51] << 8 | sb[0x52] << 16 |
			    (uint32_t)sb[0x53] << 24;
	if (*incompat)
		fail(v, 5, "%s", "it uses features outside the core format");
	close(fd);
}

int image_report(const char *path, bool as_json)
{
	static const char *const names[] = {
		NULL, "mounts from user namespaces", "a regular file",
		"fs-verity, digest trusted", "not open for writing",
		"core format",
	};
	struct verdict v = { 0 };
	char digest[160];
	const char *sw = check_switch(&v);
	uint32_t incompat;
	unsigned int bit;
	int c;

	check_file(&v, path, digest, sizeof(digest), &incompat);
	if (as_json) {
		printf("{\"image\":\"%s\",\"switch\":\"%s\",\"digest\":\"%s\","
		       "\"incompat\":\"%08x\",\"mountable\":%s,"
		       "\"failed\":%d,\"why\":\"%s\"}\n", path, sw, digest,
		       incompat, v.failed ? "false" : "true", v.failed,
		       v.why[v.failed]);
		return v.failed ? 1 : 0;
	}
	printf("image %s\n", path);
	for (c = 1; c <= 5; c++) {
		const char *state = v.why[c][0] ? v.why[c] : "yes";

		if (c == 1 && !v.why[c][0])
			state = "on";
		if (c == 3 && !v.why[c][0])
			state = digest;
		if (c == 4)
			state = "checked by the kernel (ETXTBSY if a process "
				"has it open for writing)";
		printf("  %d. %s: %s\n", c, names[c], state);
	}
	for (bit = 0; bit < 32; bit++)
		if (incompat & (1u << bit))
			printf("       %s\n", bit < sizeof(features) /
			       sizeof(features[0]) ? features[bit] :
			       "an unknown feature");
	if (v.failed)
		printf("refused: condition %d: %s\n", v.failed,
		       v.why[v.failed]);
	else
		printf("mountable from a user namespace by its root\n");
	return v.failed ? 1 : 0;
}
