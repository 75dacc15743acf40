// SPDX-License-Identifier: GPL-2.0
/*
 * make demo: a walk through capabilities relative to user namespaces, on
 * the running kernel.  Each step has a task of the hierarchy below try one
 * operation and prints what it tried, what the kernel answered, and which
 * rule decided it.  The demo exits non-zero if any answer is not the one
 * the rule predicts.
 */

#include <sys/utsname.h>

#include "nscaps_tree.h"

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
	int width = 72 - strlen(prefix), len;
	const char *p = text;
	char pad[32];

	snprintf(pad, sizeof(pad), "%*s", (int)strlen(prefix), "");

	while (*p) {
		len = strlen(p);
		if (len > width) {
			len = width;
			while (len > 0 && p[len] != ' ')
				len--;
		}
		printf("%s%.*s\n", prefix, len, p);
		p += len;
		while (*p == ' ')
			p++;
		prefix = pad;
	}
}

int main(void)
{
	struct agent a[NR_ROLES + 1] = {};
	struct utsname host;
	int i, err, wrong = 0;

	if (start_all(a))
		return 1;
	uname(&host);
	printf("The hierarchy (real root set up U and S with id maps, as a "
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

	for (i = 0; i < (int)(sizeof(steps) / sizeof(steps[0])); i++) {
		const struct step *s = &steps[i];
		pid_t target = s->target == NONE ? 0 : a[s->target].pid;
		char tag[16];

		err = agent_do(&a[s->actor], s->op, target, s->arg, s->str);
		snprintf(tag, sizeof(tag), "%2d. ", i + 1);
		print_wrapped(tag, s->what);
		printf("    -> %s%s\n", errname(err),
		       err == s->expected ? "" : "   UNEXPECTED");
		print_wrapped("    because ", s->rule);
		printf("\n");
		wrong += err != s->expected;
	}

	{
		struct utsname now;

		uname(&now);
		printf("The host's hostname is still '%s' (it was '%s').\n",
		       now.nodename, host.nodename);
		wrong += strcmp(now.nodename, host.nodename) != 0;
	}
	printf("%d steps, %d as the rules predict.\n",
	       (int)(sizeof(steps) / sizeof(steps[0])),
	       (int)(sizeof(steps) / sizeof(steps[0])) - wrong);
	for (i = 0; i <= NR_ROLES; i++)
		agent_stop(&a[i]);
	return wrong ? 1 : 0;
}
