/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel says about tasks and user namespaces, through
 * /proc and the nsfs ioctls, turned into the reference model's terms.
 */

#ifndef NSCAPS_NSINFO_H
#define NSCAPS_NSINFO_H

#include <stdbool.h>
#include <sys/types.h>

#include "model.h"

/* From the uapi of a kernel with our series, for older headers. */
#ifndef NS_GET_USERNS_CAP_CEILING
#define NS_GET_USERNS_CAP_CEILING	_IOR(0xb7, 0x40, __u64)
#endif
#ifndef NS_GET_USERNS_CAP_UNMASKED
#define NS_GET_USERNS_CAP_UNMASKED	_IOR(0xb7, 0x41, __u64)
#endif
#ifndef PR_CAP_USERNS
#define PR_CAP_USERNS			0x55534e53
#define PR_CAP_USERNS_IS_SET		1
#define PR_CAP_USERNS_LOWER		3
#define PR_CAP_USERNS_CLEAR_ALL		4
#endif

#define INIT_USER_NS_INO	0xEFFFFFFDUL
#define MASK_SYSCTL		"/proc/sys/kernel/userns_cap_mask"
/* Debian's switch for unprivileged user namespaces (not in mainline). */
#define CLONE_SYSCTL		"/proc/sys/kernel/unprivileged_userns_clone"
#define NSINFO_MAX_NS		256

struct ns_table {
	int n;
	bool ceilings;		/* the kernel answers the ceiling ioctl */
	bool has_mask;		/* the kernel has kernel.userns_cap_mask */
	uint64_t mask;		/* all ones where it has none */
	int unpriv_clone;	/* CLONE_SYSCTL: 0, 1, or -1 if absent */
	uint64_t all;		/* every valid capability */
	struct model_ns ns[NSINFO_MAX_NS];
};

struct task_info {
	pid_t pid;
	char comm[64];
	long uid, euid;
	uint64_t effective;
	uint64_t userns_set;
	bool has_set;
	/*
	 * It holds what real root left its namespace: read from CapClamped
	 * where the mask would cut some of it, false where that changes
	 * nothing.
	 */
	bool unmasked;
	const struct model_ns *ns;
};

/* Start an empty table: read the mask, learn the capability count. */
void nsinfo_init(struct ns_table *t);

/*
 * The namespace of @fd, a user namespace file, with every parent the
 * caller may see; NULL with errno set on failure.
 */
const struct model_ns *nsinfo_user_ns(struct ns_table *t, int fd);

/* Open the user namespace of @spec: a PID, or a path to any ns file. */
int nsinfo_open_target(const char *spec, char *what, size_t len);

/* Read a task; 0, or -1 with errno set. */
int nsinfo_task(struct ns_table *t, pid_t pid, struct task_info *ti);

/*
 * The user namespaces whose parent is @parent and whose owner is @owner,
 * found among the namespaces of running tasks; returns how many.
 */
int nsinfo_owned(struct ns_table *t, const struct model_ns *parent,
		 long owner, const struct model_ns **out, int max);

#endif /* NSCAPS_NSINFO_H */
