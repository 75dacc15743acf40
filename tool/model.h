/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference model of cap_capable(): does a task hold a capability in a
 * user namespace?  Written from the rules, not from the kernel's code, so
 * that the two can be checked against each other:
 *
 *  - walking from the target namespace towards the initial one, the task's
 *    own namespace is where its effective set decides, within, below the
 *    initial namespace, the namespace's ceiling, the system mask (with
 *    what real root held, if it made the namespace and the task holds
 *    that: real root's tasks there) and the task's own user namespace
 *    set;
 *  - a namespace at or above the task's level that is not its own ends the
 *    walk: capabilities never act upwards or sideways;
 *  - a namespace whose parent is the task's and whose owner is the task's
 *    euid grants what its ceiling, the task's user namespace set and the
 *    mask allow (never what real root left to the namespace's tasks);
 *    past that the walk goes on.
 */

#ifndef NSCAPS_MODEL_H
#define NSCAPS_MODEL_H

#include <stdbool.h>
#include <stdint.h>

struct model_ns {
	unsigned long ino;		/* inode of the nsfs file */
	int level;			/* 0 for the top of what is known */
	long owner;			/* owner uid as the observer sees it */
	uint64_t ceiling;		/* all ones where the kernel has none */
	bool initial;			/* the initial user namespace */
	uint64_t unmasked;		/* what real root left its tasks */
	const struct model_ns *parent;	/* NULL at the top */
};

struct model_cred {
	const struct model_ns *ns;
	long euid;
	uint64_t effective;
	uint64_t userns_set;		/* all ones where the kernel has none */
	bool unmasked;			/* holds what real root left its ns */
};

enum model_rule {
	M_OWN,		/* the task's namespace: effective set, allowed */
	M_OWN_CUT,	/* the task's namespace: effective set, but clamped */
	M_OWN_LACKS,	/* the task's namespace: not in the effective set */
	M_NOT_BELOW,	/* at or above the task's level: the walk ends */
	M_OWNER,	/* owner rule grants */
	M_OWNER_CUT,	/* owner rule matched, but clamped: go on */
	M_UP,		/* below the task's namespace: go to the parent */
};

struct model_step {
	enum model_rule rule;
	const struct model_ns *ns;
	uint64_t allowed;	/* what ceiling, set and mask allow there */
	const char *cut_by;	/* for *_CUT: "ceiling", "mask" or "set" */
};

#define MODEL_MAX_STEPS 80

struct model_trace {
	int n;
	struct model_step step[MODEL_MAX_STEPS];
};

/*
 * The capabilities tasks may use in @ns: its ceiling and, below the
 * initial namespace, the mask; what the owner rule may give there.
 */
uint64_t model_allowed(const struct model_ns *ns, uint64_t mask);

/*
 * What a task whose user namespace set is @set may use of its effective
 * set in its own namespace @ns (@unmasked: it holds what real root left
 * @ns): model_allowed() with that and, below the initial
 * namespace, @set.
 */
uint64_t model_own_allowed(const struct model_ns *ns, uint64_t mask,
			   uint64_t set, bool unmasked);

/* True if @cred holds @cap in @target; each step goes into @trace. */
bool model_capable(const struct model_cred *cred,
		   const struct model_ns *target, int cap, uint64_t mask,
		   struct model_trace *trace);

#endif /* NSCAPS_MODEL_H */
