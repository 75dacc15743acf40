// SPDX-License-Identifier: GPL-2.0
/*
 * make demo: a walk through capabilities relative to user namespaces, on
 * the running kernel.  Each step has a task of the hierarchy below try one
 * operation and prints what it tried, what the kernel answered, and which
 * rule decided it.  The demo exits non-zero if any answer is not the one
 * the rule predicts.
 */

#include <sys/klog.h>
#include <sys/utsname.h>

#include "nscaps_tree.h"
#include "wrap.h"

/* Alice's container: a user namespace with its own uts namespace. */
#define C_ROOT NR_ROLES

struct step {
	int actor;
	enum agent_op op;
	int target;		/* a role, or NONE */
	const char *str;
	long arg;
	int expected;
	const char *what;
	const char *rule;
};

static const struct step steps[] = {
	{ HOST_ALICE, OP_SETHOSTNAME, NONE, "alice-was-here", 0, EPERM,
	  "alice sets the host's hostname",
	  "sethostname() needs CAP_SYS_ADMIN in the user namespace that owns "
	  "the host's uts namespace, the initial one; alice has no "
	  "capabilities there" },
	{ C_ROOT, OP_SETHOSTNAME, NONE, "container", 0, 0,
	  "root of C sets the hostname of C's own uts namespace",
	  "C's uts namespace was created with C, so C owns it (seed patch 1); "
	  "root of C holds CAP_SYS_ADMIN in C (seed patch 3)" },
	{ U_ROOT, OP_SETHOSTNAME, NONE, "container", 0, EPERM,
	  "root of U, which shares the host's uts namespace, sets its name",
	  "capabilities of a child namespace act there and below, never on "
	  "the initial namespace that owns the host's uts (rule 2)" },
	{ U_ROOT, OP_SIGNAL, U_USER5, NULL, 0, 0,
	  "root of U signals uid 5 of U (no uid match)",
	  "CAP_KILL in the target's user namespace (seed patch 4, rule 2)" },
	{ U_ROOT, OP_SIGNAL, U2_ROOT, NULL, 0, 0,
	  "root of U signals root of U2, a namespace created inside U",
	  "capabilities in U act on U's descendants (rule 2)" },
	{ U_ROOT, OP_SIGNAL, HOST_BOB, NULL, 0, EPERM,
	  "root of U signals bob on the host",
	  "root of U has no capability in the parent namespace (rule 2)" },
	{ U_ROOT, OP_SIGNAL, S_ROOT, NULL, 0, EPERM,
	  "root of U signals root of S, a sibling namespace",
	  "nor in a sibling (rule 2)" },
	{ U2_ROOT, OP_SIGNAL, U_USER5, NULL, 0, EPERM,
	  "root of U2 signals uid 5 of U, its parent namespace",
	  "a nested root is just as confined (rule 2)" },
	{ HOST_ALICE, OP_SIGNAL, U_ROOT, NULL, 0, 0,
	  "alice signals root of U (kuid 200000, not alice)",
	  "alice created U: its owner, seen from the parent namespace, holds "
	  "every capability in U (rule 3)" },
	{ HOST_ALICE, OP_ATTACH, U_ROOT, NULL, 0, 0,
	  "alice attaches to root of U with ptrace",
	  "the owner rule again, for CAP_SYS_PTRACE (rule 3, seed patch 5)" },
	{ HOST_ALICE, OP_SIGNAL, U2_ROOT, NULL, 0, 0,
	  "alice signals root of U2, below U",
	  "the owner's capabilities reach U's descendants too (rule 3)" },
	{ HOST_BOB, OP_SIGNAL, U_ROOT, NULL, 0, EPERM,
	  "bob signals root of U",
	  "bob is another user of the same parent namespace: he has only his "
	  "own capabilities, none (rule 3)" },
	{ HOST_BOB, OP_SIGNAL, S_ROOT, NULL, 0, 0,
	  "bob signals root of S",
	  "bob created S (rule 3)" },
	{ HOST_BOB_CAPS, OP_ATTACH, U_ROOT, NULL, 0, 0,
	  "bob, holding CAP_SYS_PTRACE on the host, attaches to root of U",
	  "capabilities in the initial namespace act on every namespace "
	  "(rule 1)" },
	{ U_ROOT, OP_ATTACH, U_USER5, NULL, 0, 0,
	  "root of U attaches to uid 5 of U",
	  "CAP_SYS_PTRACE in U (seed patch 5)" },
	{ U_ROOT, OP_ATTACH, HOST_BOB, NULL, 0, EPERM,
	  "root of U attaches to bob on the host",
	  "no capability outside U (seed patch 5, rule 2)" },
	{ U_USER5, OP_SIGNAL, U_ROOT, NULL, 0, EPERM,
	  "uid 5 of U signals root of U",
	  "inside a namespace the usual uid rules hold: no uid match, no "
	  "CAP_KILL" },
	{ U_ROOT, OP_SETUID, NONE, NULL, 7, 0,
	  "root of U switches to uid 7 of U (kuid 200007)",
	  "setuid works inside a namespace, within its uid map (a next goal "
	  "of the seed, reached by mainline)" },
};

static int start_all(struct agent *a)
{
	struct agent_spec c = { .creator = ALICE,
				.unshare = CLONE_NEWUSER | CLONE_NEWUTS,
				.uid = 0 };
	enum role failed;
	int err;

	failed = tree_start(a, &err);
	if (failed != NONE) {
		fprintf(stderr, "demo: starting %s: %s\n",
			tree_nodes[failed].name, strerror(-err));
		return 1;
	}
	err = agent_start(&a[C_ROOT], &c);
	if (err) {
		fprintf(stderr, "demo: starting C: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}

static void print_wrapped(const char *prefix, const char *text)
{
	wrap(prefix, strlen(prefix), 72, text);
}

static int nsteps, nwrong;

static void report(const char *what, int err, int expected, const char *rule)
{
	char tag[16];

	snprintf(tag, sizeof(tag), "%2d. ", ++nsteps);
	print_wrapped(tag, what);
	printf("    -> %s%s\n", errname(err),
	       err == expected ? "" : "   UNEXPECTED");
	print_wrapped("    because ", rule);
	printf("\n");
	nwrong += err != expected;
}

static void seed_walkthrough(struct agent *a)
{
	struct utsname host, now;
	size_t i;

	uname(&host);
	printf("Part 1: the seed's model\n\n"
	       "The hierarchy (real root set up U and S with id maps, as a "
	       "container\nmanager would; alice made C by herself):\n\n"
	       "  initial user namespace: alice (uid 1000), bob (uid 1001), "
	       "no capabilities\n"
	       "  +-- U  created by alice  uid 0..999 -> host uid "
	       "200000..200999,\n"
	       "  |                        uid 1000 -> host uid 1000 (alice)\n"
	       "  |   +-- U2  created by root of U\n"
	       "  +-- S  created by bob    uid 0..999 -> host uid "
	       "300000..300999\n"
	       "  +-- C  created by alice  with its own uts namespace\n\n"
	       "The rules (capabilities are relative to user namespaces):\n"
	       "  1. a task's capabilities in the initial namespace act on "
	       "every namespace;\n"
	       "  2. a task's capabilities in a child namespace act there and "
	       "below only;\n"
	       "  3. the user who creates a namespace holds every capability "
	       "in it and\n     below it, seen from the parent namespace; "
	       "another user does not.\n\n");

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct step *s = &steps[i];
		pid_t target = s->target == NONE ? 0 : a[s->target].pid;

		report(s->what, agent_do(&a[s->actor], s->op, target, s->arg,
					 s->str), s->expected, s->rule);
	}
	uname(&now);
	printf("The host's hostname is still '%s' (it was '%s').\n\n",
	       now.nodename, host.nodename);
	nwrong += strcmp(now.nodename, host.nodename) != 0;
}

static unsigned long long ceiling_of(pid_t pid)
{
	char path[64];
	__u64 ceiling = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ioctl(fd, NS_GET_USERNS_CAP_CEILING, &ceiling);
		close(fd);
	}
	return ceiling;
}

/* Show the administrator's view: the last clamp the kernel logged. */
static void print_last_denial(void)
{
	static char log[1 << 16];
	char *line, *last = NULL, *save;
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);

	if (n <= 0)
		return;
	log[n] = '\0';
	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strstr(line, "denied"))
			last = line;
	if (last && *last == '<' && strchr(last, '>'))
		last = strchr(last, '>') + 1;
	if (last)
		printf("    kernel log: %s\n\n", last);
}

/* Run the nscaps tool, its output going where ours goes. */
static void nscaps(const char *a, const char *b, const char *c,
		   const char *d)
{
	char *argv[] = { "nscaps", (char *)a, (char *)b, (char *)c,
			 (char *)d, NULL };
	int status;
	pid_t child;

	printf("$ nscaps %s %s%s%s%s%s\n", a, b, c ? " " : "", c ? c : "",
	       d ? " " : "", d ? d : "");
	fflush(stdout);
	child = fork();
	if (child == 0) {
		execv("/tests/nscaps", argv);
		_exit(127);
	}
	waitpid(child, &status, 0);
	printf("\n");
}

/* Part 3: the nscaps tool explains what parts 1 and 2 showed. */
static void tool_session(struct agent *c, struct agent *sb)
{
	char n[16], p[16], net[64];

	snprintf(n, sizeof(n), "%d", c->pid);
	snprintf(p, sizeof(p), "%d", sb->pid);
	snprintf(net, sizeof(net), "/proc/%d/ns/net", sb->pid);
	printf("Part 3: the nscaps tool explains it (root of N is pid %s, "
	       "root of P pid %s)\n\n", n, p);
	nscaps("show", p, NULL, NULL);
	nscaps("explain", p, "cap_net_admin", net);
	nscaps("explain", p, "cap_sys_admin", net);
	nscaps("explain", n, "cap_kill", "1");
}

/*
 * Part 2: the clamp-down of our series.  A distribution's policy, a mask
 * without CAP_NET_ADMIN, applied live to a running container; then a
 * sandbox that lowers its own user namespace set.
 */
static void clamp_walkthrough(void)
{
	struct agent_spec cspec = { .creator = ALICE, .uid = 0,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	struct agent_spec sspec = { .creator = ALICE, .uid = 0,
				    .drop = 1ULL << CAP_NET_ADMIN, .nnp = true,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	/* Alice's shell, and a process of her sandbox still outside P. */
	struct agent_spec shspec = { .creator = ALICE, .uid = KEEP };
	struct agent_spec lspec = { .creator = ALICE, .uid = KEEP,
				    .drop = 1ULL << CAP_NET_ADMIN, .nnp = true };
	struct agent sh = {}, low = {};
	unsigned long long full = get_mask();
	unsigned long long policy = full & ~(1ULL << CAP_NET_ADMIN);
	struct agent c = {}, sb = {};
	char line[256];

	if (agent_start(&c, &cspec)) {
		printf("demo: cannot start container N\n");
		nwrong++;
		return;
	}
	printf("Part 2: clamping down (our kernel series)\n\n"
	       "  initial user namespace: real root, the administrator\n"
	       "  +-- N  alice's running container, with a network namespace\n"
	       "  +-- P  made later by alice's sandbox, which first set "
	       "no_new_privs\n         and lowered its user namespace set: "
	       "no CAP_NET_ADMIN\n\n"
	       "N is user namespace %lu.  kernel.userns_cap_mask is %016llx: "
	       "every capability.\n\n", (unsigned long)ns_ino(c.pid, "user"),
	       full);

	report("root of N brings its loopback interface up",
	       agent_do(&c, OP_LO_UP, 0, 0, NULL), 0,
	       "CAP_NET_ADMIN in N, which owns N's network namespace");

	snprintf(line, sizeof(line),
		 "the administrator sets kernel.userns_cap_mask to %016llx, "
		 "taking CAP_NET_ADMIN (bit 12) out of every container",
		 policy);
	report(line, -set_mask(policy), 0,
	       "writing it needs CAP_SYS_ADMIN in the initial namespace; the "
	       "mask applies at every check, no restart needed");

	report("root of N, still running, adds a dummy link",
	       agent_do(&c, OP_ADD_DUMMY, 0, 0, "dummy0"), EPERM,
	       "the mask holds every namespace but the initial one, at each "
	       "check; the denial is logged in the kernel log");
	report("root of N adds a netfilter table",
	       agent_do(&c, OP_NFT_TABLE, 0, 0, "filter"), EPERM,
	       "nf_tables, too, is behind CAP_NET_ADMIN");
	print_last_denial();
	report("root of N makes a uts namespace and sets its hostname",
	       agent_do(&c, OP_UNSHARE, 0, CLONE_NEWUTS, NULL) ?:
	       agent_do(&c, OP_SETHOSTNAME, 0, 0, "n"), 0,
	       "only CAP_NET_ADMIN was masked; N keeps its other capabilities");
	report("real root adds a link inside N's network namespace",
	       net_add_dummy("fromhost", c.pid), 0,
	       "privileges held in the initial namespace are never masked: "
	       "the administrator still manages the container");

	report("the administrator restores the mask",
	       -set_mask(full), 0, "raising the mask restores N at once");
	report("root of N adds a dummy link",
	       agent_do(&c, OP_ADD_DUMMY, 0, 0, "dummy1"), 0,
	       "nothing holds CAP_NET_ADMIN back any more");

	if (agent_start(&sb, &sspec)) {
		printf("demo: cannot start sandbox P\n");
		nwrong++;
		agent_stop(&c);
		return;
	}
	snprintf(line, sizeof(line),
		 "alice's sandbox lowered its set (CapUns %016llx) and made P; "
		 "P's ceiling, read with NS_GET_USERNS_CAP_CEILING, is %016llx; "
		 "root of P adds a dummy link",
		 task_caps(sb.pid, "CapUns:"), ceiling_of(sb.pid));
	report(line, agent_do(&sb, OP_ADD_DUMMY, 0, 0, "dummy0"), EPERM,
	       "ceiling(P) = ceiling(parent) & creator's set: CAP_NET_ADMIN is "
	       "out of P and of everything ever created below it");
	report("root of P creates a namespace below P, and there adds a "
	       "network namespace and a link",
	       agent_do(&sb, OP_UNSHARE, 0, CLONE_NEWUSER | CLONE_NEWNET,
			NULL) ?: agent_do(&sb, OP_ADD_DUMMY, 0, 0, "d"), EPERM,
	       "nested creation never regains a capability: a ceiling never "
	       "grows");

	if (!agent_start(&sh, &shspec) && !agent_start(&low, &lspec)) {
		report("a process of the sandbox, outside P, ptrace-attaches to "
		       "alice's shell (same uid, full set)",
		       agent_do(&low, OP_ATTACH, sh.pid, 0, NULL), EPERM,
		       "only a task whose set holds all of another's may "
		       "control it: otherwise the shell could be made to "
		       "create what the sandbox may not");
		report("alice's shell ptrace-attaches to that sandbox process",
		       agent_do(&sh, OP_ATTACH, low.pid, 0, NULL), 0,
		       "her shell's full set holds the sandbox's; the uids "
		       "match");
	} else {
		printf("demo: cannot start alice's shell and sandbox\n");
		nwrong++;
	}
	agent_stop(&low);
	agent_stop(&sh);

	tool_session(&c, &sb);
	agent_stop(&sb);
	agent_stop(&c);
}

int main(void)
{
	struct agent a[NR_ROLES + 1] = {};
	int i;

	if (start_all(a))
		return 1;
	seed_walkthrough(a);
	for (i = 0; i <= NR_ROLES; i++)
		agent_stop(&a[i]);
	clamp_walkthrough();

	printf("%d steps, %d as the rules predict.\n", nsteps,
	       nsteps - nwrong);
	return nwrong ? 1 : 0;
}
