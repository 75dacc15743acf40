// SPDX-License-Identifier: GPL-2.0
/*
 * nscaps: show and explain a task's capabilities relative to each user
 * namespace, and run a command with a lowered user namespace set.
 *
 *   nscaps show [--json] [PID]
 *   nscaps explain [--json] PID CAP TARGET
 *   nscaps exec --drop CAPS | --keep CAPS -- COMMAND [ARGS]
 *   nscaps image [--json] IMAGE
 *
 * Exit status: show and exec 0; explain 0 if allowed, 1 if denied; image
 * 0 if mountable from a user namespace, 1 if not; any error 2.
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "image.h"
#include "nsinfo.h"
#include "wrap.h"

static bool json;

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("nscaps: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void usage(void)
{
	die("usage: nscaps show [--json] [PID]\n"
	    "       nscaps explain [--json] PID CAP TARGET\n"
	    "       nscaps exec --drop CAPS | --keep CAPS -- COMMAND [ARGS]\n"
	    "       nscaps image [--json] IMAGE");
}

/* Print a paragraph wrapped at 78 columns; see wrap(). */
static void __attribute__((format(printf, 3, 4)))
say(const char *first, int indent, const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	wrap(first, indent, 78, text);
}

/* A capability from "cap_net_admin", "CAP_NET_ADMIN" or "net_admin". */
static int parse_cap(const char *name)
{
	char buf[64];
	cap_value_t cap;
	size_t i;

	snprintf(buf, sizeof(buf), "%s%s",
		 strncasecmp(name, "cap_", 4) ? "cap_" : "", name);
	for (i = 0; buf[i]; i++)
		buf[i] = tolower((unsigned char)buf[i]);
	if (cap_from_name(buf, &cap) || cap < 0 || cap >= cap_max_bits())
		die("unknown capability: %s", name);
	return cap;
}

static uint64_t parse_caps(const char *list)
{
	char *copy = strdup(list), *tok, *save;
	uint64_t caps = 0;

	if (!copy)
		die("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		caps |= 1ULL << parse_cap(tok);
	free(copy);
	return caps;
}

static const char *cap_str(int cap)
{
	static char name[64];
	char *n = cap_to_name(cap);

	snprintf(name, sizeof(name), "%s", n ? n : "?");
	cap_free(n);
	return name;
}

/* "all", "none", "all but a, b" or "a, b, c", for 80 columns. */
static const char *caps_text(const struct ns_table *t, uint64_t caps)
{
	static char out[2][1024];
	static int which;
	uint64_t shown = caps & t->all, missing = t->all & ~caps;
	char *buf = out[which ^= 1];
	bool but = __builtin_popcountll(missing) <= __builtin_popcountll(shown);
	uint64_t list = but ? missing : shown;
	int cap;

	if (!missing)
		return "all";
	if (!shown)
		return "none";
	strcpy(buf, but ? "all but " : "");
	for (cap = 0; cap < 64; cap++) {
		if (!(list & (1ULL << cap)))
			continue;
		if (strlen(buf) + 40 > sizeof(out[0]))
			break;
		if (buf[0] && strcmp(buf, "all but "))
			strcat(buf, ", ");
		strcat(buf, cap_str(cap));
	}
	return buf;
}

static void load_task(struct ns_table *t, const char *spec,
		      struct task_info *ti)
{
	char *end;
	long pid = strtol(spec, &end, 10);

	if (!*spec || *end || pid <= 0)
		die("not a PID: %s", spec);
	if (nsinfo_task(t, pid, ti)) {
		if (errno == ENOENT || errno == ESRCH)
			die("no such process: %ld", pid);
		if (errno == EACCES || errno == EPERM)
			die("no permission to read the namespaces of process %ld",
			    pid);
		die("reading process %ld: %s", pid, strerror(errno));
	}
}

static void note_missing(const struct ns_table *t)
{
	if (json)
		return;
	if (!t->ceilings)
		printf("note: this kernel has no user namespace ceilings; "
		       "shown without them\n");
	if (!t->has_mask)
		printf("note: this kernel has no kernel.userns_cap_mask\n");
}

/* What the system mask leaves to the tasks of a namespace, for people. */
static const char *mask_text(const struct ns_table *t,
			     const struct model_ns *ns)
{
	static char text[1024];

	if (!ns->unmasked)
		return "mask: holds it";
	snprintf(text, sizeof(text), "mask: made by real root, which held "
		 "what the mask leaves the tasks it started there: %s",
		 caps_text(t, ns->unmasked));
	return text;
}

/* ---- show ---------------------------------------------------------- */

static void show(struct ns_table *t, const char *spec)
{
	const struct model_ns *chain[64], *owned[32];
	struct task_info ti;
	char self[16];
	int depth = 0, i, n;

	snprintf(self, sizeof(self), "%d", getpid());
	load_task(t, spec ? spec : self, &ti);
	for (const struct model_ns *ns = ti.ns; ns && depth < 64;
	     ns = ns->parent)
		chain[depth++] = ns;
	n = nsinfo_owned(t, ti.ns, ti.euid, owned, 32);

	if (json) {
		printf("{\"pid\":%d,\"comm\":\"%s\",\"uid\":%ld,\"euid\":%ld,"
		       "\"effective\":\"%016llx\",\"userns_set\":\"%016llx\","
		       "\"has_ceilings\":%s,\"mask\":\"%016llx\","
		       "\"unprivileged_userns_clone\":%s,"
		       "\"namespaces\":[",
		       ti.pid, ti.comm, ti.uid, ti.euid,
		       (unsigned long long)ti.effective,
		       (unsigned long long)ti.userns_set,
		       t->ceilings ? "true" : "false",
		       (unsigned long long)t->mask,
		       t->unpriv_clone < 0 ? "null" :
		       t->unpriv_clone ? "1" : "0");
		for (i = depth - 1; i >= 0; i--) {
			const struct model_ns *ns = chain[i];
			uint64_t can = ns == ti.ns ?
				ti.effective & model_own_allowed(ns, t->mask,
								 ti.userns_set,
								 ti.unmasked) :
				0;

			printf("%s{\"ino\":%lu,\"level\":%d,\"owner\":%ld,"
			       "\"ceiling\":\"%016llx\",\"unmasked\":\"%016llx\","
			       "\"relation\":\"%s\",\"can\":\"%016llx\"}",
			       i == depth - 1 ? "" : ",", ns->ino, ns->level,
			       ns->owner, (unsigned long long)ns->ceiling,
			       (unsigned long long)ns->unmasked,
			       ns == ti.ns ? "own" : "ancestor",
			       (unsigned long long)can);
		}
		for (i = 0; i < n; i++)
			printf(",{\"ino\":%lu,\"level\":%d,\"owner\":%ld,"
			       "\"ceiling\":\"%016llx\",\"unmasked\":\"%016llx\","
			       "\"relation\":\"owned\",\"can\":\"%016llx\"}",
			       owned[i]->ino, owned[i]->level, owned[i]->owner,
			       (unsigned long long)owned[i]->ceiling,
			       (unsigned long long)owned[i]->unmasked,
			       (unsigned long long)(model_allowed(owned[i],
									t->mask) &
						    ti.userns_set));
		printf("]}\n");
		return;
	}

	printf("task %d (%s), uid %ld, euid %ld\n", ti.pid, ti.comm, ti.uid,
	       ti.euid);
	say("  ", 4, "user namespace set (CapUns): %s",
	    ti.has_set ? caps_text(t, ti.userns_set) : "(not in this kernel)");
	if (t->has_mask)
		say("  ", 4, "system mask (kernel.userns_cap_mask): %s",
		    caps_text(t, t->mask));
	if (t->unpriv_clone == 0)
		say("  ", 4, "unprivileged user namespaces: off "
		    "(kernel.unprivileged_userns_clone=0): only a task with "
		    "cap_sys_admin in the initial namespace may create one, "
		    "at any depth; the set and ceilings apply to those it "
		    "creates");
	note_missing(t);
	printf("\nuser namespaces, from the top down to the task's:\n");
	for (i = depth - 1; i >= 0; i--) {
		const struct model_ns *ns = chain[i];

		printf("  %*slevel %d  ns %lu  owner %ld%s\n", 2 * (depth - 1 - i),
		       "", ns->level, ns->ino, ns->owner,
		       ns->initial ? "  (initial)" : "");
		if (t->ceilings && !ns->initial)
			printf("  %*s  ceiling: %s\n", 2 * (depth - 1 - i), "",
			       caps_text(t, ns->ceiling));
		if (t->has_mask && !ns->initial)
			printf("  %*s  %s\n", 2 * (depth - 1 - i), "",
			       mask_text(t, ns));
		if (ns != ti.ns)
			printf("  %*s  the task can: nothing (capabilities "
			       "never act on an ancestor)\n",
			       2 * (depth - 1 - i), "");
		else
			printf("  %*s  the task can: %s\n", 2 * (depth - 1 - i),
			       "", caps_text(t, ti.effective &
					     model_own_allowed(ns, t->mask,
							       ti.userns_set,
							       ti.unmasked)));
	}
	if (depth && !chain[depth - 1]->initial)
		printf("  (namespaces above are outside this observer's view)\n");
	for (i = 0; i < n; i++) {
		/* One caps_text() at a time: it keeps two buffers. */
		printf("\nowned: ns %lu (level %d), created by euid %ld\n",
		       owned[i]->ino, owned[i]->level, ti.euid);
		printf("  ceiling: %s\n", caps_text(t, owned[i]->ceiling));
		printf("  %s\n", mask_text(t, owned[i]));
		printf("  the task can, by the owner rule: %s\n",
		       caps_text(t, model_allowed(owned[i], t->mask) &
				 ti.userns_set));
	}
}

/* ---- explain ------------------------------------------------------- */

static void describe(const struct ns_table *t, const struct model_step *s,
		     const struct task_info *ti, int cap, int i)
{
	const struct model_ns *ns = s->ns;
	char head[128];

	snprintf(head, sizeof(head), "  %d. ", i + 1);
	switch (s->rule) {
	case M_OWN:
		say(head, 5, "ns %lu (level %d, owner %ld) is the task's own "
		    "namespace; %s is in its effective set and allowed here: "
		    "allowed", ns->ino, ns->level, ns->owner, cap_str(cap));
		break;
	case M_OWN_LACKS:
		say(head, 5, "ns %lu (level %d, owner %ld) is the task's own "
		    "namespace; %s is not in its effective set: denied",
		    ns->ino, ns->level, ns->owner, cap_str(cap));
		break;
	case M_OWN_CUT:
		say(head, 5, "ns %lu (level %d, owner %ld) is the task's own "
		    "namespace; %s is in its effective set, but cut by the %s "
		    "(allowed here: %s): denied", ns->ino, ns->level,
		    ns->owner, cap_str(cap), s->cut_by,
		    caps_text(t, s->allowed));
		break;
	case M_NOT_BELOW:
		say(head, 5, "ns %lu (level %d) is not below the task's "
		    "namespace (ns %lu, level %d): capabilities never act "
		    "upwards or sideways: denied", ns->ino, ns->level,
		    ti->ns->ino, ti->ns->level);
		break;
	case M_OWNER:
		say(head, 5, "ns %lu (level %d): its parent is the task's "
		    "namespace and its owner is the task's euid %ld: the owner "
		    "rule gives %s: allowed", ns->ino, ns->level, ti->euid,
		    caps_text(t, s->allowed));
		break;
	case M_OWNER_CUT:
		say(head, 5, "ns %lu (level %d) is owned by the task's euid "
		    "%ld, but the owner rule's %s is cut by the %s (it gives "
		    "%s); go on to the parent", ns->ino, ns->level, ti->euid,
		    cap_str(cap), s->cut_by, caps_text(t, s->allowed));
		break;
	case M_UP:
		say(head, 5, "ns %lu (level %d, owner %ld) is below the "
		    "task's namespace and not owned by it: go on to the parent",
		    ns->ino, ns->level, ns->owner);
		break;
	}
	if (ns->unmasked && (s->rule == M_OWN || s->rule == M_OWN_CUT))
		say("     ", 5, "(ns %lu was made by real root: the system "
		    "mask leaves what real root held, %s, to the tasks real "
		    "root started there; this task %s)", ns->ino,
		    caps_text(t, ns->unmasked),
		    ti->unmasked ? "is one" : "is not, or the mask cuts none "
		    "of it here");
	if (ns->unmasked && (s->rule == M_OWNER || s->rule == M_OWNER_CUT))
		say("     ", 5, "(what real root left to the tasks of ns %lu "
		    "is theirs, not its owner's)", ns->ino);
}

static int explain(struct ns_table *t, const char *pid, const char *capname,
		   const char *target)
{
	const struct model_ns *ns;
	struct model_trace trace;
	struct task_info ti;
	char what[320];
	int cap = parse_cap(capname), fd, i;
	bool ok;

	load_task(t, pid, &ti);
	fd = nsinfo_open_target(target, what, sizeof(what));
	if (fd < 0) {
		if (errno == ENOENT)
			die("no such process or namespace file: %s", target);
		if (errno == EACCES || errno == EPERM)
			die("no permission to open %s", target);
		die("not a namespace: %s", target);
	}
	ns = nsinfo_user_ns(t, fd);
	close(fd);
	if (!ns)
		die("reading %s: %s", what, strerror(errno));

	ok = model_capable(&(struct model_cred){ ti.ns, ti.euid, ti.effective,
						 ti.userns_set, ti.unmasked },
			   ns, cap, t->mask, &trace);
	if (json) {
		printf("{\"pid\":%d,\"cap\":\"%s\",\"target\":%lu,"
		       "\"allowed\":%s,\"has_ceilings\":%s,\"steps\":[",
		       ti.pid, cap_str(cap), ns->ino, ok ? "true" : "false",
		       t->ceilings ? "true" : "false");
		for (i = 0; i < trace.n; i++) {
			static const char *const rule[] = {
				[M_OWN] = "own", [M_OWN_CUT] = "own_clamped",
				[M_OWN_LACKS] = "own_lacks",
				[M_NOT_BELOW] = "not_below",
				[M_OWNER] = "owner",
				[M_OWNER_CUT] = "owner_clamped",
				[M_UP] = "up",
			};

			printf("%s{\"ns\":%lu,\"rule\":\"%s\"%s%s%s}",
			       i ? "," : "", trace.step[i].ns->ino,
			       rule[trace.step[i].rule],
			       trace.step[i].cut_by ? ",\"cut_by\":\"" : "",
			       trace.step[i].cut_by ? trace.step[i].cut_by : "",
			       trace.step[i].cut_by ? "\"" : "");
		}
		printf("]}\n");
		return ok ? 0 : 1;
	}

	say("", 2, "can task %d (%s, euid %ld) use %s in %s (ns %lu)?", ti.pid,
	    ti.comm, ti.euid, cap_str(cap), what, ns->ino);
	note_missing(t);
	for (i = 0; i < trace.n; i++)
		describe(t, &trace.step[i], &ti, cap, i);
	printf("%s\n", ok ? "allowed" : "denied");
	return ok ? 0 : 1;
}

/* ---- exec ---------------------------------------------------------- */

static int do_exec(struct ns_table *t, int argc, char **argv)
{
	struct task_info self;
	uint64_t drop = 0;
	int cap;

	if (argc < 4 || strcmp(argv[2], "--"))
		usage();
	/* Say which kernels lack the set before anything is changed. */
	if (nsinfo_task(t, getpid(), &self))
		die("reading /proc/self: %s", strerror(errno));
	if (!self.has_set)
		die("this kernel has no user namespace set (no CapUns in "
		    "/proc/self/status)");
	if (!strcmp(argv[0], "--drop"))
		drop = parse_caps(argv[1]);
	else if (!strcmp(argv[0], "--keep"))
		drop = t->all & ~parse_caps(argv[1]);
	else
		usage();

	/*
	 * The kernel lets a task without CAP_SETPCAP lower its set only under
	 * no_new_privs, so that no set-user-ID program runs with a set its
	 * caller lowered; the command runs under it too.
	 */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("setting no_new_privs: %s", strerror(errno));
	for (cap = 0; cap < 64; cap++) {
		if (!(drop & (1ULL << cap)))
			continue;
		if (prctl(PR_CAP_USERNS, PR_CAP_USERNS_LOWER, cap, 0, 0))
			die("lowering %s: %s", cap_str(cap), strerror(errno));
	}
	execvp(argv[3], &argv[3]);
	die("cannot run %s: %s", argv[3], strerror(errno));
}

int main(int argc, char **argv)
{
	static struct ns_table t;
	char *args[8];
	int n = 0, i;

	if (argc < 2)
		usage();
	nsinfo_init(&t);
	if (!strcmp(argv[1], "exec"))
		return do_exec(&t, argc - 2, argv + 2);

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] == '-' && argv[i][1])
			die("unknown option: %s", argv[i]);
		else if (n < 8)
			args[n++] = argv[i];
	}
	if (!strcmp(argv[1], "show") && n <= 1) {
		show(&t, n ? args[0] : NULL);
		return 0;
	}
	if (!strcmp(argv[1], "explain") && n == 3)
		return explain(&t, args[0], args[1], args[2]);
	if (!strcmp(argv[1], "image") && n == 1)
		return image_report(args[0], json);
	usage();
}
