// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, the EROFS part: a verified image mounted in the kernel by
 * root of a user namespace, against the same files through FUSE, mounted
 * in the same kind of namespace, in one guest run.
 *
 *   init: real root trusts bench.img's digest; fs.erofs.userns_mount = 1
 *   +-- C  alice's user and mount namespace (real root wrote its maps);
 *          its root mounts /disk/bench/bench.img (EROFS, uncompressed)
 *          on /tmp/k, and /disk/bench/bench.sqfs (squashfs, uncompressed)
 *          with squashfuse_ll, Debian's low-level FUSE squashfs, on /tmp/f
 *
 *   measure     what                                         caches
 *   walk        every directory read, every entry stat()ed    dropped first
 *   walk_warm   the same again                               warm
 *   read        the 64 MiB file read in 1 MiB pieces         dropped first
 *
 * "Dropped first" drops the kernel's caches and, for FUSE, restarts
 * squashfuse_ll, whose own caches would survive.
 *   mount       mount and umount, by root of C (digest        warm
 *               looked up) and, for the same image, by real
 *               root in the initial namespace (no check)
 *
 * walk, walk_warm and read also run, as real root, over a copy of the
 * image without fs-verity mounted in the initial namespace ("plain"):
 * what EROFS costs without the verification of every page read.
 *
 * Each figure is the median of ROUNDS runs, in seconds.  Output:
 *
 *   erofsbench,MEASURE,WHO,SECONDS
 *
 * with WHO one of kernel (EROFS in C), fuse (squashfuse_ll in C), plain
 * (EROFS without fs-verity, real root's) and, for mount, userns and root.
 * Run as real root in the guest.
 */

#include <ftw.h>
#include <linux/fsverity.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>

#include "nscaps_test.h"

#define BENCH		"/disk/bench"
#define IMAGE		BENCH "/bench.img"
#define SQFS		BENCH "/bench.sqfs"
#define PLAIN		BENCH "/plain.img"
#define BIG		"big"
#define ROUNDS		5
#define MOUNTS		40

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static long keyctl_read_ring(void)
{
	char line[512];
	long ring = -1;
	FILE *f = fopen("/proc/keys", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " .erofs_trusted:"))
			ring = strtol(line, NULL, 16);
	if (f)
		fclose(f);
	return ring;
}

/*
 * Real root: fs-verity on the image, its digest trusted, mounts on, and
 * /dev/fuse open to every user, as Debian's udev rules leave it (devtmpfs
 * makes it 0600).
 */
static int trust_image(void)
{
	struct fsverity_enable_arg arg = {
		.version = 1, .hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
		.block_size = 4096,
	};
	struct {
		struct fsverity_digest d;
		unsigned char buf[64];
	} m = { .d.digest_size = 64 };
	char desc[160];
	int fd = open(IMAGE, O_RDONLY | O_CLOEXEC), n, i;

	if (fd < 0 || (ioctl(fd, FS_IOC_ENABLE_VERITY, &arg) &&
		       errno != EEXIST) ||
	    ioctl(fd, FS_IOC_MEASURE_VERITY, &m))
		return errno;
	close(fd);
	n = snprintf(desc, sizeof(desc), "sha256:");
	for (i = 0; i < m.d.digest_size; i++)
		n += snprintf(desc + n, sizeof(desc) - n, "%02x",
			      m.d.digest[i]);
	if (syscall(SYS_add_key, "erofs_digest", desc, NULL, 0,
		    keyctl_read_ring()) < 0)
		return errno;
	if (chmod("/dev/fuse", 0666))
		return errno;
	return -write_file("/proc/sys/fs/erofs/userns_mount", "1");
}

static int drop_caches(void)
{
	sync();
	return -write_file("/proc/sys/vm/drop_caches", "3");
}

/* ---- run by root of C ---- */

static int squashfuse = -1;

/* Wait for @dir to become the root of a mount other than its parent's. */
static int mounted(const char *dir)
{
	char parent[64];
	struct stat a, b;

	snprintf(parent, sizeof(parent), "%s/..", dir);
	for (int i = 0; i < 2000; i++) {
		if (!stat(dir, &a) && !stat(parent, &b) && a.st_dev != b.st_dev)
			return 0;
		usleep(5000);
	}
	return ETIMEDOUT;
}

/* squashfuse_ll on /tmp/f, as root of C. */
static int op_mount_fuse(const struct agent_cmd *c)
{
	mkdir("/tmp/f", 0755);
	squashfuse = fork();
	if (squashfuse < 0)
		return errno;
	if (!squashfuse) {
		execl("/usr/bin/squashfuse_ll", "squashfuse_ll", "-f", SQFS,
		      "/tmp/f", NULL);
		_exit(127);
	}
	return mounted("/tmp/f");
}

static int op_umount_fuse(const struct agent_cmd *c)
{
	int err = umount2("/tmp/f", 0) ? errno : 0;

	if (squashfuse > 0)
		waitpid(squashfuse, NULL, 0);
	squashfuse = -1;
	return err;
}

/*
 * A fresh squashfuse_ll: dropping the kernel's caches leaves the daemon's
 * own, so a cold FUSE round needs a new daemon.
 */
static int op_remount_fuse(const struct agent_cmd *c)
{
	return op_umount_fuse(c) ?: op_mount_fuse(c);
}

static int op_mount_both(const struct agent_cmd *c)
{
	mkdir("/tmp/k", 0755);
	if (mount(IMAGE, "/tmp/k", "erofs", MS_RDONLY, NULL))
		return errno;
	return op_mount_fuse(c);
}

static int op_umount_both(const struct agent_cmd *c)
{
	int err = umount2("/tmp/k", 0) ? errno : 0;

	return op_umount_fuse(c) ?: err;
}

static long entries;

static int stat_one(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	entries++;
	return 0;
}

/* c->str: the mount point.  Returns microseconds. */
static int op_walk(const struct agent_cmd *c)
{
	double t0 = now();

	entries = 0;
	if (nftw(c->str, stat_one, 64, FTW_PHYS))
		return -errno;
	return (now() - t0) * 1e6;
}

static int op_read(const struct agent_cmd *c)
{
	static char buf[1 << 20];
	char path[sizeof(c->str) + sizeof("/" BIG)];
	double t0 = now();
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/" BIG, c->str);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0 ? -errno : (now() - t0) * 1e6;
}

static double mount_cycles(const char *where)
{
	double t0 = now();

	mkdir(where, 0755);
	for (int i = 0; i < MOUNTS; i++)
		if (mount(IMAGE, where, "erofs", MS_RDONLY, NULL) ||
		    umount2(where, 0))
			return -1;
	return (now() - t0) / MOUNTS;
}

static int op_mount_cycles(const struct agent_cmd *c)
{
	double t = mount_cycles("/tmp/m");

	return t < 0 ? -errno : t * 1e6;
}

/* ---- real root's side ---- */

static void report(const char *measure, const char *who, double *runs)
{
	qsort(runs, ROUNDS, sizeof(*runs), cmp_double);
	printf("erofsbench,%s,%s,%.6f\n", measure, who, runs[ROUNDS / 2]);
	fflush(stdout);
}

/* Time @fn in C over @where, caches dropped first unless @warm. */
static int timed(struct agent *c, agent_fn fn, const char *where, bool warm,
		 double *runs)
{
	for (int i = 0; i < ROUNDS; i++) {
		int us;

		if (!warm && !strcmp(where, "/tmp/f") &&
		    agent_do(c, OP_CALL, 0, (long)op_remount_fuse, NULL))
			return EIO;
		if (!warm && drop_caches())
			return EIO;
		us = agent_do(c, OP_CALL, 0, (long)fn, where);
		if (us < 0)
			return -us;
		runs[i] = us / 1e6;
	}
	return 0;
}

/* Time @fn over @where in this process, caches dropped first unless @warm. */
static int timed_here(agent_fn fn, const char *where, bool warm, double *runs)
{
	struct agent_cmd cmd = { .op = OP_CALL };

	snprintf(cmd.str, sizeof(cmd.str), "%s", where);
	for (int i = 0; i < ROUNDS; i++) {
		int us;

		if (!warm && drop_caches())
			return EIO;
		us = fn(&cmd);
		if (us < 0)
			return -us;
		runs[i] = us / 1e6;
	}
	return 0;
}

/* The same measures over an unverified copy, mounted by real root. */
static int plain_runs(void)
{
	double runs[ROUNDS];
	int err;

	mkdir("/tmp/p", 0755);
	err = copy_file(IMAGE, PLAIN);
	if (!err && mount(PLAIN, "/tmp/p", "erofs", MS_RDONLY, NULL))
		err = errno;
	if (!err)
		err = timed_here(op_walk, "/tmp/p", false, runs);
	if (!err) {
		report("walk", "plain", runs);
		err = timed_here(op_walk, "/tmp/p", true, runs);
	}
	if (!err) {
		report("walk_warm", "plain", runs);
		err = timed_here(op_read, "/tmp/p", false, runs);
	}
	if (!err)
		report("read", "plain", runs);
	umount2("/tmp/p", 0);
	unlink(PLAIN);
	if (err)
		fprintf(stderr, "erofs_bench: plain: %s\n", strerror(err));
	return err;
}

int main(void)
{
	struct agent_spec spec = { .creator = ALICE, .uid = 0,
				   .uid_map = U_MAP,
				   .unshare = CLONE_NEWUSER | CLONE_NEWNS };
	static const char *const fs[] = { "kernel", "fuse" };
	static const char *const mp[] = { "/tmp/k", "/tmp/f" };
	double runs[ROUNDS];
	struct agent c;
	int err, i;

	err = trust_image();
	if (!err)
		err = -agent_start(&c, &spec);
	if (!err)
		err = agent_do(&c, OP_CALL, 0, (long)op_mount_both, NULL);
	if (err) {
		fprintf(stderr, "erofs_bench: setup: %s\n", strerror(err));
		return 1;
	}
	for (i = 0; i < 2; i++) {
		if (timed(&c, op_walk, mp[i], false, runs))
			return 1;
		report("walk", fs[i], runs);
		if (timed(&c, op_walk, mp[i], true, runs))
			return 1;
		report("walk_warm", fs[i], runs);
		if (timed(&c, op_read, mp[i], false, runs))
			return 1;
		report("read", fs[i], runs);
	}
	if (agent_do(&c, OP_CALL, 0, (long)op_umount_both, NULL))
		return 1;
	for (i = 0; i < ROUNDS; i++) {
		int us = agent_do(&c, OP_CALL, 0, (long)op_mount_cycles, NULL);

		if (us < 0)
			return 1;
		runs[i] = us / 1e6;
	}
	report("mount", "userns", runs);
	for (i = 0; i < ROUNDS; i++) {
		runs[i] = mount_cycles("/tmp/root-m");
		if (runs[i] < 0)
			return 1;
	}
	report("mount", "root", runs);
	agent_stop(&c);
	return plain_runs() ? 1 : 0;
}
