/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel against the reference model of the nscaps tool, one operation
 * at a time.  The model reads the live namespaces, sets and mask the way
 * the tool does (tool/nsinfo.c) and predicts; the agent then tries:
 *
 *   AG_SIGNAL     kill(target, 0): a uid match (kill_ok_by_cred()), or
 *                 CAP_KILL in the target's user namespace
 *   AG_ATTACH     PTRACE_ATTACH, as __ptrace_may_access() and
 *                 cap_ptrace_access_check() combine a uid match, a
 *                 permitted-set subset in one namespace and CAP_SYS_PTRACE,
 *                 and then, in any mode, the tracer's user namespace set
 *                 must hold the tracee's
 *   AG_SETNS      setns() into the target's user namespace: CAP_SYS_ADMIN
 *                 there, after opening its nsfs file, a ptrace read check
 *   AG_HOSTNAME   sethostname() in its own uts namespace (target ignored)
 *   AG_LO_MTU     lo's MTU in its own network namespace (target ignored)
 */

#ifndef NSCAPS_AGREE_H
#define NSCAPS_AGREE_H

#include "nscaps_test.h"
#include "model.h"
#include "nsinfo.h"

enum agree_op { AG_SIGNAL, AG_ATTACH, AG_SETNS, AG_HOSTNAME, AG_LO_MTU,
		NR_AG_OPS };

static const char *const agree_op_names[NR_AG_OPS] = {
	"signal", "ptrace attach", "setns", "sethostname", "lo mtu",
};

/* Real, effective and saved uid or gid, from "Uid:" or "Gid:". */
static inline void read_ids(pid_t pid, const char *field, long ids[3])
{
	char path[64], line[256], fmt[32];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	snprintf(fmt, sizeof(fmt), "%s %%ld %%ld %%ld", field);
	f = fopen(path, "r");
	ids[0] = ids[1] = ids[2] = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &ids[0], &ids[1], &ids[2]) == 3)
			break;
	fclose(f);
}

/* __ptrace_may_access(), REALCREDS: the caller's uid and gid are all of
 * the target's. */
static inline bool ptrace_ids_match(pid_t caller, pid_t target)
{
	long cu[3], tu[3], cg[3], tg[3];

	read_ids(caller, "Uid:", cu);
	read_ids(target, "Uid:", tu);
	read_ids(caller, "Gid:", cg);
	read_ids(target, "Gid:", tg);
	return cu[0] == tu[0] && cu[0] == tu[1] && cu[0] == tu[2] &&
	       cg[0] == tg[0] && cg[0] == tg[1] && cg[0] == tg[2];
}

/* kill_ok_by_cred(): sender's euid or uid is the target's uid or suid. */
static inline bool uid_match(pid_t sender, pid_t target)
{
	long s[3], t[3];

	read_ids(sender, "Uid:", s);
	read_ids(target, "Uid:", t);
	return s[1] == t[2] || s[1] == t[0] || s[0] == t[2] || s[0] == t[0];
}

/* The model's answer: @actor, @cap, in the owner of @target's @type ns. */
static inline bool predict_ns(struct ns_table *t, pid_t actor, pid_t target,
		       const char *type, int cap)
{
	const struct model_ns *ns;
	struct task_info ti;
	char what[128], path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", target, type);
	if (nsinfo_task(t, actor, &ti))
		return false;
	fd = nsinfo_open_target(path, what, sizeof(what));
	if (fd < 0)
		return false;
	ns = nsinfo_user_ns(t, fd);
	close(fd);
	return ns && model_capable(&(struct model_cred){ ti.ns, ti.euid,
							 ti.effective,
							 ti.userns_set,
							 ti.unmasked },
				   ns, cap, t->mask, NULL);
}

static inline bool predict(struct ns_table *t, pid_t actor, pid_t target, int cap)
{
	return predict_ns(t, actor, target, "user", cap);
}

/*
 * Any ptrace access, PTRACE_ATTACH or opening an nsfs link: uids,
 * capabilities, permitted sets, and then the caller's user namespace set
 * must hold the target's, whatever the uids and capabilities.
 */
static inline bool predict_ptrace(struct ns_table *t, pid_t caller,
				  pid_t target)
{
	bool cap = predict(t, caller, target, CAP_SYS_PTRACE);
	bool subset = ns_ino(caller, "user") == ns_ino(target, "user") &&
		      !(task_caps(target, "CapPrm:") &
			~task_caps(caller, "CapPrm:"));

	return (ptrace_ids_match(caller, target) || cap) && (subset || cap) &&
	       !(task_caps(target, "CapUns:") & ~task_caps(caller, "CapUns:"));
}

/*
 * Carry out @op of @actor on @target (a pid); the model's answer in *want.
 * Returns the kernel's: 0 or an errno (-ECHILD if the agent is gone).
 */
static inline int agree_one(struct ns_table *t, struct agent *actor,
			    pid_t target, enum agree_op op, bool *want)
{
	pid_t a = actor->pid;

	switch (op) {
	case AG_SIGNAL:
		*want = uid_match(a, target) ||
			predict(t, a, target, CAP_KILL);
		return agent_do(actor, OP_KILL, target, 0, NULL);
	case AG_ATTACH:
		*want = predict_ptrace(t, a, target);
		return agent_do(actor, OP_ATTACH, target, 0, NULL);
	case AG_SETNS:
		*want = predict_ptrace(t, a, target) &&
			predict(t, a, target, CAP_SYS_ADMIN);
		return agent_do(actor, OP_TRY_SETNS, target, 0, NULL);
	case AG_HOSTNAME:
		*want = predict_ns(t, a, a, "uts", CAP_SYS_ADMIN);
		return agent_do(actor, OP_SETHOSTNAME, 0, 0, "x");
	case AG_LO_MTU:
	default:
		*want = predict_ns(t, a, a, "net", CAP_NET_ADMIN);
		return agent_do(actor, OP_LO_MTU, 0, 0, NULL);
	}
}

#endif /* NSCAPS_AGREE_H */
