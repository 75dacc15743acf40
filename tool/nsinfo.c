// SPDX-License-Identifier: GPL-2.0
/* Reading tasks and user namespaces from /proc and nsfs; see nsinfo.h. */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/nsfs.h>
#include <linux/types.h>
#include <sched.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "nsinfo.h"

void nsinfo_init(struct ns_table *t)
{
	char text[64];
	FILE *f;

	memset(t, 0, sizeof(*t));
	t->all = (1ULL << (cap_max_bits())) - 1;
	t->mask = ~0ULL;
	f = fopen(MASK_SYSCTL, "r");
	if (f) {
		if (fgets(text, sizeof(text), f)) {
			t->mask = strtoull(text, NULL, 16);
			t->has_mask = true;
		}
		fclose(f);
	}
	t->unpriv_clone = -1;
	f = fopen(CLONE_SYSCTL, "r");
	if (f) {
		if (fgets(text, sizeof(text), f))
			t->unpriv_clone = atoi(text) != 0;
		fclose(f);
	}
	t->ceilings = true;	/* until the kernel says otherwise */
}

static struct model_ns *lookup(struct ns_table *t, unsigned long ino)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->ns[i].ino == ino)
			return &t->ns[i];
	return NULL;
}

/* Fill a new entry for @fd, whose parent entry is @parent. */
static struct model_ns *add(struct ns_table *t, int fd, struct stat *st,
			    struct model_ns *parent)
{
	struct model_ns *ns;
	__u64 ceiling, unmasked;
	uid_t owner;

	if (t->n == NSINFO_MAX_NS) {
		errno = ENOSPC;
		return NULL;
	}
	ns = &t->ns[t->n++];
	ns->ino = st->st_ino;
	ns->parent = parent;
	ns->level = parent ? parent->level + 1 : 0;
	ns->initial = st->st_ino == INIT_USER_NS_INO;
	ns->owner = ioctl(fd, NS_GET_OWNER_UID, &owner) ? -1 : (long)owner;
	/* A kernel without the answer holds every namespace to the mask. */
	if (ns->initial || ioctl(fd, NS_GET_USERNS_CAP_UNMASKED, &unmasked))
		unmasked = 0;
	ns->unmasked = unmasked;
	if (t->ceilings && !ioctl(fd, NS_GET_USERNS_CAP_CEILING, &ceiling))
		ns->ceiling = ceiling;
	else {
		t->ceilings = false;
		ns->ceiling = ~0ULL;
	}
	return ns;
}

const struct model_ns *nsinfo_user_ns(struct ns_table *t, int fd)
{
	int chain[64], depth = 0, i, parent;
	struct model_ns *ns = NULL, *found;
	struct stat st;

	/* Climb while the kernel lets us, or until a known namespace. */
	chain[depth++] = dup(fd);
	while (depth < 64) {
		if (fstat(chain[depth - 1], &st))
			goto fail;
		if (lookup(t, st.st_ino))
			break;
		parent = ioctl(chain[depth - 1], NS_GET_PARENT);
		if (parent < 0)
			break;
		chain[depth++] = parent;
	}
	/* Then enter them from the top down. */
	for (i = depth - 1; i >= 0; i--) {
		if (fstat(chain[i], &st))
			goto fail;
		found = lookup(t, st.st_ino);
		ns = found ? found : add(t, chain[i], &st, ns);
		if (!ns)
			goto fail;
	}
	for (i = 0; i < depth; i++)
		close(chain[i]);
	return ns;
fail:
	for (i = 0; i < depth; i++)
		close(chain[i]);
	return NULL;
}

int nsinfo_open_target(const char *spec, char *what, size_t len)
{
	char path[64];
	const char *p = spec;
	int fd, type, owner;

	while (isdigit((unsigned char)*p))
		p++;
	if (*spec && !*p) {
		snprintf(path, sizeof(path), "/proc/%s/ns/user", spec);
		snprintf(what, len, "the user namespace of task %s", spec);
		spec = path;
	} else {
		snprintf(what, len, "%s", spec);
	}
	fd = open(spec, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type < 0) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (type == CLONE_NEWUSER)
		return fd;
	owner = ioctl(fd, NS_GET_USERNS);
	close(fd);
	if (owner >= 0 && strlen(what) + 40 < len)
		strcat(what, ", owned by its user namespace");
	return owner;
}

int nsinfo_task(struct ns_table *t, pid_t pid, struct task_info *ti)
{
	char path[64], line[256];
	unsigned long long caps, clamped = 0, left;
	long uid[4];
	FILE *f;
	int fd;

	memset(ti, 0, sizeof(*ti));
	ti->pid = pid;
	ti->userns_set = ~0ULL;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Name: %63s", ti->comm) == 1)
			continue;
		if (sscanf(line, "Uid: %ld %ld %ld %ld", &uid[0], &uid[1],
			   &uid[2], &uid[3]) == 4) {
			ti->uid = uid[0];
			ti->euid = uid[1];
		} else if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			ti->effective = caps;
		} else if (sscanf(line, "CapUns: %llx", &caps) == 1) {
			ti->userns_set = caps;
			ti->has_set = true;
		} else if (sscanf(line, "CapClamped: %llx", &caps) == 1) {
			clamped = caps;
		}
	}
	fclose(f);

	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ti->ns = nsinfo_user_ns(t, fd);
	close(fd);
	if (!ti->ns)
		return -1;
	/* What the mask would cut, but for what real root left the ns. */
	left = ti->effective & ti->userns_set & ti->ns->ceiling &
	       ti->ns->unmasked & ~t->mask;
	ti->unmasked = left && !(clamped & left);
	return 0;
}

int nsinfo_owned(struct ns_table *t, const struct model_ns *parent,
		 long owner, const struct model_ns **out, int max)
{
	const struct model_ns *ns;
	struct dirent *d;
	char path[300];
	struct stat st;
	int n = 0, i, fd, p;
	DIR *proc = opendir("/proc");

	if (!proc)
		return 0;
	while ((d = readdir(proc)) && n < max) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/user", d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		p = ioctl(fd, NS_GET_PARENT);
		if (p >= 0 && !fstat(p, &st) && st.st_ino == parent->ino) {
			ns = nsinfo_user_ns(t, fd);
			for (i = 0; ns && i < n; i++)
				if (out[i] == ns)
					ns = NULL;
			if (ns && ns->owner == owner)
				out[n++] = ns;
		}
		if (p >= 0)
			close(p);
		close(fd);
	}
	closedir(proc);
	return n;
}
