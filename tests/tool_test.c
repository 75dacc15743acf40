// SPDX-License-Identifier: GPL-2.0
/*
 * nscaps, the tool: its reference model of cap_capable() must agree with
 * the kernel, and its commands must say so and fail cleanly.
 *
 * Agreement: over the hierarchy of nscaps_tree.h, where the roots of U, U2
 * and S also have uts and network namespaces of their own, with sets and
 * mask as each variant says, every agent tries
 *
 *   sethostname()     on its own uts namespace: CAP_SYS_ADMIN in its owner
 *   lo's MTU          in its own network namespace: CAP_NET_ADMIN in its
 *                     owner
 *
 * and on every other agent
 *
 *   a signal          a uid matches (kill_ok_by_cred()), or CAP_KILL in
 *                     the target's user namespace
 *   PTRACE_ATTACH     as __ptrace_may_access() and cap_ptrace_access_check()
 *                     combine a uid match, a permitted-set subset in one
 *                     namespace, and CAP_SYS_PTRACE in the target's
 *   setns() into      CAP_SYS_ADMIN in it, after opening its nsfs file,
 *   its user ns       which is a ptrace read check (its own: skipped)
 *
 * where each capability comes from the model, and the test fails on every
 * disagreement, naming both agents.
 *
 *   init --+-- U (alice's) --- U2
 *          +-- S (bob's)
 */

#include "kselftest_harness.h"
#include "nscaps_tree.h"
#include "nscaps_agree.h"

#define KILL_AND_ADMIN	((1ULL << CAP_KILL) | (1ULL << CAP_SYS_ADMIN))

FIXTURE(agree) {
	struct agent agents[NR_ROLES];
};

FIXTURE_VARIANT(agree) {
	unsigned long long mask;	/* 0: leave it full */
	unsigned long long alice_drop;	/* lowered by alice before U */
	unsigned long long alice_later;	/* lowered by alice after U */
};

FIXTURE_VARIANT_ADD(agree, stock) {};
FIXTURE_VARIANT_ADD(agree, mask_without_kill_and_admin) {
	.mask = ALL_CAPS & ~KILL_AND_ADMIN,
};
/* Not CAP_SYS_ADMIN: without it, root of U could not map U2's ids. */
FIXTURE_VARIANT_ADD(agree, alice_dropped_before_u) {
	.alice_drop = 1ULL << CAP_KILL,
};
FIXTURE_VARIANT_ADD(agree, alice_dropped_after_u) {
	.alice_later = KILL_AND_ADMIN,
};

FIXTURE_SETUP(agree)
{
	struct agent_spec spec;
	char text[32];
	int r, err;

	for (r = 0; r < NR_ROLES; r++) {
		spec = tree_nodes[r].spec;
		if (tree_nodes[r].join != NONE)
			spec.join = self->agents[tree_nodes[r].join].pid;
		if (r == U_ROOT || r == HOST_ALICE)
			spec.drop = variant->alice_drop;
		if (spec.unshare)
			spec.unshare |= CLONE_NEWUTS | CLONE_NEWNET;
		err = agent_start(&self->agents[r], &spec);
		ASSERT_EQ(0, err) {
			TH_LOG("starting %s: %s", tree_nodes[r].name,
			       strerror(-err));
		}
	}
	for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
		if ((variant->alice_later >> cap) & 1)
			ASSERT_EQ(0, agent_do(&self->agents[HOST_ALICE],
					      OP_USERNS_LOWER, 0, cap, NULL));
	if (variant->mask) {
		snprintf(text, sizeof(text), "%016llx\n", variant->mask);
		ASSERT_EQ(0, write_file(MASK_SYSCTL, text));
	}
}

FIXTURE_TEARDOWN(agree)
{
	char text[32];

	snprintf(text, sizeof(text), "%016llx\n", ALL_CAPS);
	write_file(MASK_SYSCTL, text);
	tree_stop(self->agents);
}

/*
 * Every agent acts on its own uts and network namespaces, and on every
 * other agent; returns how many operations were compared.
 */
static int compare_all(struct __test_metadata *_metadata,
		       struct agent *agents, const char *const *names, int n)
{
	static struct ns_table t;
	int a, b, op, compared = 0, err;
	bool want;

	nsinfo_init(&t);
	ASSERT_TRUE(t.ceilings);
	ASSERT_TRUE(t.has_mask);

	for (a = 0; a < n; a++) {
		for (b = 0; b < n; b++) {
			for (op = 0; op < NR_AG_OPS; op++) {
				/* Its own namespaces, or another agent. */
				if ((op >= AG_HOSTNAME) != (a == b))
					continue;
				/* setns() into its own namespace: EINVAL. */
				if (op == AG_SETNS &&
				    ns_ino(agents[a].pid, "user") ==
				    ns_ino(agents[b].pid, "user"))
					continue;
				err = agree_one(&t, &agents[a], agents[b].pid,
						op, &want);
				EXPECT_EQ(want, !err) {
					TH_LOG("%s %s -> %s: model says %s, kernel %s",
					       agree_op_names[op], names[a],
					       names[b],
					       want ? "allowed" : "denied",
					       errname(err));
				}
				compared++;
			}
		}
	}
	return compared;
}

TEST_F(agree, real_operations)
{
	const char *names[NR_ROLES];
	int r;

	for (r = 0; r < NR_ROLES; r++)
		names[r] = tree_nodes[r].name;
	ksft_print_msg("agreement: %d operations compared\n",
		       compare_all(_metadata, self->agents, names, NR_ROLES));
}

/* The commands, run as a user would. */
static int run(char *out, size_t len, uid_t uid, char *const argv[])
{
	int pipefd[2], status;
	ssize_t n, total = 0;
	pid_t child;

	if (pipe(pipefd))
		return -1;
	child = fork();
	if (child == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		if (uid != KEEP && become(uid, false))
			_exit(99);
		execv("/tests/nscaps", argv);
		_exit(98);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], out + total, len - 1 - total)) > 0)
		total += n;
	out[total] = '\0';
	close(pipefd[0]);
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The text with its line wrapping undone, to look for phrases in. */
static const char *flat(const char *text)
{
	static char out[8192];
	size_t n = 0;

	for (; *text && n < sizeof(out) - 1; text++) {
		if (*text == '\n' || *text == ' ') {
			if (n && out[n - 1] == ' ')
				continue;
			out[n++] = ' ';
		} else {
			out[n++] = *text;
		}
	}
	out[n] = '\0';
	return out;
}

/* The verdict: the last line of explain's text. */
static bool ends_with(const char *text, const char *line)
{
	size_t t = strlen(text), l = strlen(line);

	return t >= l && !strcmp(text + t - l, line);
}

FIXTURE(cli) {
	struct agent agents[NR_ROLES];
	char pid[NR_ROLES][16];
	char out[8192];
};

FIXTURE_SETUP(cli)
{
	int r;

	ASSERT_TREE_STARTED(self->agents);
	for (r = 0; r < NR_ROLES; r++)
		snprintf(self->pid[r], 16, "%d", self->agents[r].pid);
}

FIXTURE_TEARDOWN(cli)
{
	tree_stop(self->agents);
}

TEST_F(cli, show_chain_of_nested_root)
{
	char *argv[] = { "nscaps", "show", self->pid[U2_ROOT], NULL };
	char ino[32];

	ASSERT_EQ(0, run(self->out, sizeof(self->out), KEEP, argv));
	snprintf(ino, sizeof(ino), "ns %lu", ns_ino(self->agents[U2_ROOT].pid,
						     "user"));
	EXPECT_NE(NULL, strstr(self->out, ino)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "level 2"));
	EXPECT_NE(NULL, strstr(self->out, "(initial)"));
	EXPECT_NE(NULL, strstr(self->out, "never act on an ancestor"));
}

TEST_F(cli, show_owned_namespace)
{
	char *argv[] = { "nscaps", "show", self->pid[HOST_ALICE], NULL };

	ASSERT_EQ(0, run(self->out, sizeof(self->out), KEEP, argv));
	EXPECT_NE(NULL, strstr(self->out, "owned: ns")) TH_LOG("%s",
							       self->out);
	EXPECT_NE(NULL, strstr(self->out, "by the owner rule: all"));
}

TEST_F(cli, explain_owner_rule)
{
	char *argv[] = { "nscaps", "explain", self->pid[HOST_ALICE],
			 "cap_kill", self->pid[U_ROOT], NULL };

	ASSERT_EQ(0, run(self->out, sizeof(self->out), KEEP, argv));
	EXPECT_TRUE(ends_with(self->out, "\nallowed\n"));
	EXPECT_NE(NULL, strstr(flat(self->out), "the owner rule gives"))
		TH_LOG("%s", self->out);
}

TEST_F(cli, explain_clamped_owner_rule)
{
	char *argv[] = { "nscaps", "explain", self->pid[HOST_ALICE],
			 "CAP_KILL", self->pid[U_ROOT], NULL };

	ASSERT_EQ(0, agent_do(&self->agents[HOST_ALICE], OP_USERNS_LOWER, 0,
			      CAP_KILL, NULL));
	ASSERT_EQ(1, run(self->out, sizeof(self->out), KEEP, argv));
	EXPECT_TRUE(ends_with(self->out, "\ndenied\n"));
	EXPECT_NE(NULL, strstr(flat(self->out), "cut by the set"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(flat(self->out), "not in its effective set"));
}

TEST_F(cli, explain_upwards_json)
{
	char path[64];
	char *argv[] = { "nscaps", "explain", "--json", self->pid[U_ROOT],
			 "kill", path, NULL };

	/* Any namespace file: the host's uts, owned by the initial ns. */
	snprintf(path, sizeof(path), "/proc/%d/ns/uts",
		 self->agents[HOST_BOB].pid);
	ASSERT_EQ(1, run(self->out, sizeof(self->out), KEEP, argv));
	EXPECT_NE(NULL, strstr(self->out, "\"allowed\":false"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "\"rule\":\"not_below\""));
}

TEST_F(cli, exec_lowers_the_set)
{
	char *argv[] = { "nscaps", "exec", "--drop", "cap_net_admin,sys_time",
			 "--", "/tests/nscaps", "show", NULL };

	ASSERT_EQ(0, run(self->out, sizeof(self->out), ALICE, argv));
	EXPECT_NE(NULL, strstr(flat(self->out),
			       "(CapUns): all but cap_net_admin, cap_sys_time"))
		TH_LOG("%s", self->out);
}

/* The kernel lets an unprivileged task lower its set under no_new_privs. */
TEST_F(cli, exec_sets_no_new_privs)
{
	char *argv[] = { "nscaps", "exec", "--drop", "cap_net_admin", "--",
			 "/bin/grep", "NoNewPrivs", "/proc/self/status", NULL };

	ASSERT_EQ(0, run(self->out, sizeof(self->out), ALICE, argv));
	EXPECT_NE(NULL, strstr(self->out, "NoNewPrivs:\t1"))
		TH_LOG("%s", self->out);
}

TEST_F(cli, exec_keeps_only)
{
	char *argv[] = { "nscaps", "exec", "--keep", "SYS_ADMIN,cap_kill",
			 "--", "/tests/nscaps", "show", "--json", NULL };

	ASSERT_EQ(0, run(self->out, sizeof(self->out), ALICE, argv));
	EXPECT_NE(NULL, strstr(self->out, "\"userns_set\":\"0000000000200020\""))
		TH_LOG("%s", self->out);
}

/* Errors name the problem and exit 2. */
FIXTURE(errors) {
	char out[4096];
};

FIXTURE_VARIANT(errors) {
	char *argv[8];
	uid_t uid;
	const char *message;
};

FIXTURE_VARIANT_ADD(errors, unknown_capability) {
	.argv = { "nscaps", "explain", "1", "cap_fly", "1" }, .uid = KEEP,
	.message = "unknown capability: cap_fly",
};
FIXTURE_VARIANT_ADD(errors, no_such_pid) {
	.argv = { "nscaps", "show", "999999" }, .uid = KEEP,
	.message = "no such process: 999999",
};
FIXTURE_VARIANT_ADD(errors, not_a_pid) {
	.argv = { "nscaps", "show", "12ab" }, .uid = KEEP,
	.message = "not a PID: 12ab",
};
FIXTURE_VARIANT_ADD(errors, no_permission) {
	.argv = { "nscaps", "show", "1" }, .uid = ALICE,
	.message = "no permission to read the namespaces of process 1",
};
FIXTURE_VARIANT_ADD(errors, no_such_target) {
	.argv = { "nscaps", "explain", "1", "kill", "/nonexistent" },
	.uid = KEEP, .message = "no such process or namespace file",
};
FIXTURE_VARIANT_ADD(errors, target_not_a_namespace) {
	.argv = { "nscaps", "explain", "1", "kill", "/init" },
	.uid = KEEP, .message = "not a namespace: /init",
};
FIXTURE_VARIANT_ADD(errors, exec_unknown_capability) {
	.argv = { "nscaps", "exec", "--drop", "bogus", "--", "true" },
	.uid = ALICE, .message = "unknown capability: bogus",
};
FIXTURE_VARIANT_ADD(errors, usage) {
	.argv = { "nscaps", "frobnicate" }, .uid = KEEP,
	.message = "usage: nscaps show",
};

FIXTURE_SETUP(errors) {}
FIXTURE_TEARDOWN(errors) {}

TEST_F(errors, exit_2)
{
	EXPECT_EQ(2, run(self->out, sizeof(self->out), variant->uid,
			 variant->argv));
	EXPECT_NE(NULL, strstr(flat(self->out), variant->message))
		TH_LOG("got: %s", self->out);
}

/*
 * The mask leaves a namespace real root made what real root held, and the
 * tool says so where it decides; the kernel agrees, and disagrees for
 * alice's:
 *
 *   init: mask -NET
 *   +-- R  real root's: nscaps "allowed", lo's MTU ok
 *   +-- A  alice's:     nscaps "cut by the mask", lo's MTU EPERM
 */
TEST(root_made_namespace)
{
	struct agent_spec rspec = { .creator = KEEP, .uid = 0,
				    .uid_map = "0 300000 1000",
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	struct agent_spec aspec = { .creator = ALICE, .uid = 0,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	long long saved = get_mask();
	char rpid[16], apid[16], out[8192], json[64];
	char *show[] = { "nscaps", "show", rpid, NULL };
	char *show_json[] = { "nscaps", "show", "--json", rpid, NULL };
	char *explain_r[] = { "nscaps", "explain", rpid, "cap_net_admin",
			      rpid, NULL };
	char *explain_a[] = { "nscaps", "explain", apid, "cap_net_admin",
			      apid, NULL };
	struct agent r, a;

	ASSERT_EQ(ALL_CAPS, saved);
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~(1LL << CAP_NET_ADMIN)));
	ASSERT_EQ(0, agent_start(&r, &rspec));
	ASSERT_EQ(0, agent_start(&a, &aspec));
	snprintf(rpid, sizeof(rpid), "%d", r.pid);
	snprintf(apid, sizeof(apid), "%d", a.pid);

	EXPECT_EQ(0, run(out, sizeof(out), KEEP, show));
	EXPECT_NE(NULL, strstr(flat(out), "mask: made by real root, which "
				     "held what the mask leaves the tasks it "
				     "started there: all"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, run(out, sizeof(out), KEEP, show_json));
	snprintf(json, sizeof(json), "\"unmasked\":\"%016llx\",\"relation\":"
		 "\"own\"", (unsigned long long)ALL_CAPS);
	EXPECT_NE(NULL, strstr(out, json)) TH_LOG("%s", out);

	EXPECT_EQ(0, run(out, sizeof(out), KEEP, explain_r));
	EXPECT_TRUE(ends_with(out, "\nallowed\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(flat(out), "made by real root: the system "
				     "mask leaves what real root held, all, to "
				     "the tasks real root started there; this "
				     "task is one"));
	EXPECT_EQ(0, agent_do(&r, OP_LO_MTU, 0, 0, NULL));

	EXPECT_EQ(1, run(out, sizeof(out), KEEP, explain_a));
	EXPECT_NE(NULL, strstr(flat(out), "cut by the mask")) TH_LOG("%s", out);
	EXPECT_EQ(EPERM, agent_do(&a, OP_LO_MTU, 0, 0, NULL));

	agent_stop(&a);
	agent_stop(&r);
	set_mask(saved);
}

TEST_HARNESS_MAIN
