// SPDX-License-Identifier: GPL-2.0
/*
 * userns-mask: load, drive and unload the BPF LSM version of the clamps
 * (userns_mask.bpf.c) on a stock kernel with BTF and "bpf" in its LSMs.
 *
 *   userns-mask attach [MASK [BUDGET]]
 *                                   load and attach, the mask given or full,
 *                                   each owner's budget of recorded ceilings
 *                                   given (1 to 1024) or 1024; pinned under
 *                                   /sys/fs/bpf/userns_mask, so it stays
 *                                   after this program exits
 *   userns-mask mask MASK           set the mask, live
 *   userns-mask lower PID CAP,...   lower PID's set (and its future children's)
 *   userns-mask show [PID]          the mask and how many ceilings are
 *                                   recorded; PID's set and its namespace's
 *                                   recorded ceiling
 *   userns-mask detach              unpin: the programs go when unused
 *
 * MASK is hexadecimal, bit N capability N, as kernel.userns_cap_mask.  All
 * of it needs CAP_BPF and CAP_SYS_ADMIN: no unprivileged task can lower
 * its own set this way.  Errors name the problem and exit 2.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "userns_mask.skel.h"

#define PIN_DIR	"/sys/fs/bpf/userns_mask"
#define FULL	(~0ULL)
/* The program's room, 64 owners' budgets (CEILINGS_MAX / 64 there). */
#define BUDGET_MAX	1024

static int fail(const char *what, int err)
{
	fprintf(stderr, "userns-mask: %s: %s\n", what, strerror(err));
	return 2;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: userns-mask attach [MASK [BUDGET]] | mask MASK |\n"
		"       lower PID CAPS |\n"
		"       show [PID] | detach\n");
	return 2;
}

static int parse_mask(const char *text, __u64 *mask)
{
	char *end;

	errno = 0;
	*mask = strtoull(text, &end, 16);
	if (errno || end == text || *end) {
		fprintf(stderr, "userns-mask: '%s' is not a hexadecimal mask\n",
			text);
		return 2;
	}
	return 0;
}

/* A budget of ceilings for each owner: a decimal count, 1 or more. */
static int parse_budget(const char *text, __u64 *budget)
{
	char *end;

	errno = 0;
	*budget = strtoull(text, &end, 10);
	if (errno || end == text || *end || !*budget || *budget > BUDGET_MAX) {
		fprintf(stderr, "userns-mask: '%s' is not a budget from 1 to %d\n",
			text, BUDGET_MAX);
		return 2;
	}
	return 0;
}

/*
 * A comma-separated list of capability names, as capabilities(7) spells
 * them, with or without their "cap_" prefix, in any case.
 */
static int parse_caps(char *list, __u64 *caps)
{
	char *name, *save = NULL, full[64];
	cap_value_t cap;

	*caps = 0;
	for (name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		snprintf(full, sizeof(full), "%s%s",
			 strncasecmp(name, "cap_", 4) ? "cap_" : "", name);
		if (cap_from_name(full, &cap)) {
			fprintf(stderr, "userns-mask: unknown capability '%s'\n",
				name);
			return 2;
		}
		*caps |= 1ULL << cap;
	}
	return 0;
}

static int pinned(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", PIN_DIR, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		fprintf(stderr, "userns-mask: %s: %s%s\n", path, strerror(errno),
			errno == ENOENT ? " (not attached?)" : "");
	return fd;
}

static int set_mask(int map, __u64 mask)
{
	__u32 key = 0;

	return bpf_map_update_elem(map, &key, &mask, BPF_ANY) ?
	       fail("writing the mask", errno) : 0;
}

static int pin(struct bpf_link *link, struct bpf_map *map, const char *name)
{
	char path[128];
	int err;

	snprintf(path, sizeof(path), "%s/%s", PIN_DIR, name);
	err = link ? bpf_link__pin(link, path) : bpf_map__pin(map, path);
	return err ? fail(path, -err) : 0;
}

static int detach(void);

/* Drop the pin @name, and with our descriptor the last reference to it. */
static int unpin(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", PIN_DIR, name);
	fd = bpf_obj_get(path);
	if (unlink(path) && errno != ENOENT) {
		if (fd >= 0)
			close(fd);
		return fail(path, errno);
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

/*
 * The pins hold the programs attached and name the maps, so they go in a
 * directory only root may change.  bpffs's root is writable by everyone
 * (sticky, as /tmp): a user who made the directory first could unpin the
 * programs, which detaches them, or swap the maps under root's commands.
 */
static int pin_dir(void)
{
	struct stat st;

	if (mkdir(PIN_DIR, 0700) && errno != EEXIST)
		return fail(PIN_DIR, errno);
	if (lstat(PIN_DIR, &st))
		return fail(PIN_DIR, errno);
	if (!S_ISDIR(st.st_mode) || st.st_uid || (st.st_mode & 077)) {
		fprintf(stderr, "userns-mask: %s is not a directory that root alone may change; not pinning there\n",
			PIN_DIR);
		return 1;
	}
	return 0;
}

static int attach(__u64 mask, __u32 budget)
{
	const struct bpf_object_skeleton *s;
	struct userns_mask_bpf *skel;
	int err, i;

	err = pin_dir();
	if (err)
		return err;
	skel = userns_mask_bpf__open();
	if (!skel)
		return fail("opening the BPF programs", errno);
	skel->rodata->ceiling_budget = budget;
	err = userns_mask_bpf__load(skel);
	if (err) {
		userns_mask_bpf__destroy(skel);
		return fail("loading the BPF programs", -err);
	}
	err = userns_mask_bpf__attach(skel);
	if (err) {
		userns_mask_bpf__destroy(skel);
		return fail("attaching (is bpf in lsm=?)", -err);
	}
	/* Every program's link and every map, each pinned by its name. */
	s = skel->skeleton;
	err = set_mask(bpf_map__fd(skel->maps.mask), mask);
	for (i = 0; !err && i < s->map_cnt; i++)
		if (!strchr(s->maps[i].name, '.'))	/* not .rodata */
			err = pin(NULL, *s->maps[i].map, s->maps[i].name);
	for (i = 0; !err && i < s->prog_cnt; i++)
		err = pin(*s->progs[i].link, NULL, s->progs[i].name);
	userns_mask_bpf__destroy(skel);
	/* All or nothing: a half-pinned set of hooks is no mask. */
	if (err)
		detach();
	return err;
}

/*
 * Unpin everything.  A link dropped with its pin is released from a
 * workqueue, later; one whose last reference is our descriptor is
 * released as we close it, so that the programs are gone when we return.
 */
static int detach(void)
{
	struct userns_mask_bpf *skel = userns_mask_bpf__open();
	const struct bpf_object_skeleton *s;
	int i, err = 0;

	if (!skel)
		return fail("opening the BPF programs", errno);
	s = skel->skeleton;
	for (i = 0; !err && i < s->prog_cnt; i++)
		err = unpin(s->progs[i].name);
	for (i = 0; !err && i < s->map_cnt; i++)
		if (!strchr(s->maps[i].name, '.'))
			err = unpin(s->maps[i].name);
	userns_mask_bpf__destroy(skel);
	if (err)
		return err;
	return rmdir(PIN_DIR) && errno != ENOENT ? fail(PIN_DIR, errno) : 0;
}

static int lower(const char *pid_text, char *list)
{
	int map = pinned("task_set"), pidfd, err = 0;
	__u64 caps, set = FULL;
	char *end;
	long pid = strtol(pid_text, &end, 10);

	if (map < 0)
		return 2;
	if (*end || pid <= 0) {
		fprintf(stderr, "userns-mask: '%s' is not a pid\n", pid_text);
		return 2;
	}
	if (parse_caps(list, &caps))
		return 2;
	pidfd = syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (pidfd < 0)
		return fail(pid_text, errno);
	bpf_map_lookup_elem(map, &pidfd, &set);
	set &= ~caps;
	if (bpf_map_update_elem(map, &pidfd, &set, BPF_ANY))
		err = fail("lowering the set", errno);
	close(pidfd);
	return err;
}

/* A recorded ceiling, as alt/userns_mask.bpf.c keeps it. */
struct ceiling_entry {
	__u64 ceiling;
	__u64 owner;
};

static int show(const char *pid_text)
{
	int mask = pinned("mask"), sets = pinned("task_set");
	int ceilings = pinned("ceiling"), held = pinned("held"), pidfd;
	struct ceiling_entry c = { .ceiling = FULL };
	__u64 m = FULL, set = FULL;
	__u32 key = 0, inum, n = 0;
	char path[64];
	struct stat st;

	if (mask < 0 || sets < 0 || ceilings < 0 || held < 0)
		return 2;
	bpf_map_lookup_elem(mask, &key, &m);
	bpf_map_lookup_elem(held, &key, &n);
	printf("mask %016llx\nceilings %u\n", (unsigned long long)m, n);
	if (!pid_text)
		return 0;
	pidfd = syscall(SYS_pidfd_open, atoi(pid_text), 0);
	snprintf(path, sizeof(path), "/proc/%s/ns/user", pid_text);
	if (pidfd < 0 || stat(path, &st))
		return fail(pid_text, errno);
	bpf_map_lookup_elem(sets, &pidfd, &set);
	inum = st.st_ino;
	bpf_map_lookup_elem(ceilings, &inum, &c);
	printf("set %016llx\nceiling %016llx\n", (unsigned long long)set,
	       (unsigned long long)c.ceiling);
	close(pidfd);
	return 0;
}

int main(int argc, char **argv)
{
	__u64 mask = FULL, budget = BUDGET_MAX;
	int map;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "attach") && argc <= 4) {
		if ((argc >= 3 && parse_mask(argv[2], &mask)) ||
		    (argc == 4 && parse_budget(argv[3], &budget)))
			return 2;
		return attach(mask, budget);
	}
	if (!strcmp(argv[1], "mask") && argc == 3) {
		if (parse_mask(argv[2], &mask))
			return 2;
		map = pinned("mask");
		return map < 0 ? 2 : set_mask(map, mask);
	}
	if (!strcmp(argv[1], "lower") && argc == 4)
		return lower(argv[2], argv[3]);
	if (!strcmp(argv[1], "show") && argc <= 3)
		return show(argc == 3 ? argv[2] : NULL);
	if (!strcmp(argv[1], "detach") && argc == 2)
		return detach();
	return usage();
}
