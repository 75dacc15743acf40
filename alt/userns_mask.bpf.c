// SPDX-License-Identifier: GPL-2.0
/*
 * The series' clamps as far as a BPF LSM program on a stock kernel can
 * express them, for comparison (docs/alternatives.md, "Why not an LSM?"):
 *
 *   mask     a capability outside it is refused in every user namespace
 *            but the initial one, live: the loader rewrites the map
 *   set      a per-task set in task storage, inherited at fork; only the
 *            loader, which needs CAP_BPF and CAP_SYS_ADMIN, can lower it
 *   ceiling  recorded for each user namespace when it is made (fexit of
 *            create_user_ns()): the parent's ceiling and the creator's set
 *   ptrace   a task controls another only if its set holds all of the
 *            other's
 *
 * The capable hook runs after commoncap has granted; it then refuses what
 * the clamps cut.  A capability held in the initial namespace is never
 * touched, so real root keeps managing containers; everything else below
 * the initial namespace (the owner rule from the initial namespace too)
 * is held to mask & ceiling & set.
 *
 * Where it stops, each for a reason of the hook: the hook sees the
 * credentials and the target namespace, not which rule of the walk
 * granted, so the ceiling taken is that of the credentials' own
 * namespace; the set is the current task's, which are not always the
 * credentials checked (a file's opener, another task's); decisions that
 * read an effective set without calling capable() are not seen; nothing
 * of it shows in /proc/PID/status; and the request is unknown, so there is
 * no loopback set-up left to sandboxes.
 *
 * The kernel's types are declared here, the few fields used, with CO-RE
 * relocations: the object loads on any kernel with BTF.
 */

#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define EPERM		1
#define FULL		(~0ULL)
/* Deep enough for the kernel's limit of 32 nested user namespaces. */
#define MAX_DEPTH	33

typedef struct {
	__u64 val;
} __attribute__((preserve_access_index)) kernel_cap_t;

struct ns_common {
	unsigned int inum;
} __attribute__((preserve_access_index));

struct user_namespace {
	struct user_namespace *parent;
	int level;
	struct ns_common ns;
} __attribute__((preserve_access_index));

struct cred {
	struct user_namespace *user_ns;
	kernel_cap_t cap_effective;
} __attribute__((preserve_access_index));

struct task_struct;

/* The mask, key 0; the loader sets it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} mask SEC(".maps");

/* Each task's set, where one was lowered; absent is full. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} task_set SEC(".maps");

/* Each user namespace's ceiling, by inode number; absent is full. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} ceiling SEC(".maps");

static __u64 set_of(struct task_struct *task)
{
	__u64 *set = bpf_task_storage_get(&task_set, task, 0, 0);

	return set ? *set : FULL;
}

static __u64 ceiling_of(const struct user_namespace *ns)
{
	__u32 inum = BPF_CORE_READ(ns, ns.inum);
	__u64 *c = bpf_map_lookup_elem(&ceiling, &inum);

	return c ? *c : FULL;
}

static __u64 mask_now(void)
{
	__u32 key = 0;
	__u64 *m = bpf_map_lookup_elem(&mask, &key);

	return m ? *m : FULL;
}

/*
 * The namespace whose ceiling counts: the credentials' own, or, for
 * credentials of the initial namespace (the owner rule), the child of it
 * on the way up from @target.
 */
static const struct user_namespace *
holder_of(const struct cred *cred, const struct user_namespace *target)
{
	const struct user_namespace *ns = target;
	int i;

	if (BPF_CORE_READ(cred, user_ns, level) > 0)
		return BPF_CORE_READ(cred, user_ns);
	for (i = 0; i < MAX_DEPTH && BPF_CORE_READ(ns, level) > 1; i++)
		ns = BPF_CORE_READ(ns, parent);
	return ns;
}

SEC("lsm/capable")
int BPF_PROG(userns_mask_capable, const struct cred *cred,
	     struct user_namespace *ns, int cap, unsigned int opts, int ret)
{
	__u64 allowed, bit;

	if (ret || cap < 0 || cap > 63 || BPF_CORE_READ(ns, level) == 0)
		return ret;
	bit = 1ULL << cap;
	/* Held in the initial namespace: real root over its containers. */
	if (BPF_CORE_READ(cred, user_ns, level) == 0 &&
	    (BPF_CORE_READ(cred, cap_effective.val) & bit))
		return 0;
	allowed = mask_now() & ceiling_of(holder_of(cred, ns)) &
		  set_of(bpf_get_current_task_btf());
	return allowed & bit ? 0 : -EPERM;
}

/* A child starts with its parent's set. */
SEC("lsm/task_alloc")
int BPF_PROG(userns_mask_inherit, struct task_struct *task,
	     unsigned long clone_flags)
{
	__u64 set = set_of(bpf_get_current_task_btf()), *child;

	if (set == FULL)
		return 0;
	child = bpf_task_storage_get(&task_set, task, 0,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (child)
		*child = set;
	return 0;
}

/*
 * Control of another task needs a set that holds all of its, as the
 * series' ptrace rule: otherwise a lowered task could drive a fuller one
 * of the same user to make what it may not.
 */
SEC("lsm/ptrace_access_check")
int BPF_PROG(userns_mask_ptrace, struct task_struct *child, unsigned int mode,
	     int ret)
{
	if (ret)
		return ret;
	return set_of(child) & ~set_of(bpf_get_current_task_btf()) ? -EPERM : 0;
}

SEC("lsm/ptrace_traceme")
int BPF_PROG(userns_mask_traceme, struct task_struct *parent, int ret)
{
	if (ret)
		return ret;
	return set_of(bpf_get_current_task_btf()) & ~set_of(parent) ? -EPERM : 0;
}

/* A new user namespace: the parent's ceiling and the creator's set. */
SEC("fexit/create_user_ns")
int BPF_PROG(userns_mask_ceiling, struct cred *new, int ret)
{
	const struct user_namespace *ns;
	__u64 c;
	__u32 inum;

	if (ret)
		return 0;
	ns = BPF_CORE_READ(new, user_ns);
	c = ceiling_of(BPF_CORE_READ(ns, parent)) &
	    set_of(bpf_get_current_task_btf());
	inum = BPF_CORE_READ(ns, ns.inum);
	bpf_map_update_elem(&ceiling, &inum, &c, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
