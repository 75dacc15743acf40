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
 *   lo up             in its own network namespace: CAP_NET_ADMIN in its
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
#include "model.h"
#include "nsinfo.h"

#define KILL_AND_ADMIN	((1ULL << CAP_KILL) | (1ULL << CAP_SYS_ADMIN))
#define ALL_CAPS	((1ULL << (CAP_LAST_CAP + 1)) - 1)

/* Real, effective and saved uid or gid, from "Uid:" or "Gid:". */
static void read_ids(pid_t pid, const char *field, long ids[3])
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
static bool ptrace_ids_match(pid_t caller, pid_t target)
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
static bool uid_match(pid_t sender, pid_t target)
{
	long s[3], t[3];

	read_ids(sender, "Uid:", s);
	read_ids(target, "Uid:", t);
	return s[1] == t[2] || s[1] == t[0] || s[0] == t[2] || s[0] == t[0];
}

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

/* The model's answer: @actor, @cap, in the owner of @target's @type ns. */
static bool predict_ns(struct ns_table *t, pid_t actor, pid_t target,
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
							 ti.userns_set },
				   ns, cap, t->mask, NULL);
}

static bool predict(struct ns_table *t, pid_t actor, pid_t target, int cap)
{
	return predict_ns(t, actor, target, "user", cap);
}

static bool predict_attach(struct ns_table *t, pid_t caller, pid_t target)
{
	bool cap = predict(t, caller, target, CAP_SYS_PTRACE);
	bool subset = ns_ino(caller, "user") == ns_ino(target, "user") &&
		      !(task_caps(target, "CapPrm:") &
			~task_caps(caller, "CapPrm:"));

	return (ptrace_ids_match(caller, target) || cap) && (subset || cap);
}

#define AGREE(want, err, what, a, b) do {				\
	EXPECT_EQ(want, !(err)) {					\
		TH_LOG("%s %s -> %s: model says %s, kernel %s", what,	\
		       names[a], names[b], (want) ? "allowed" : "denied",	\
		       errname(err));					\
	}								\
	compared++;							\
} while (0)

/*
 * Every agent acts on its own uts and network namespaces, and on every
 * other agent; returns how many operations were compared.
 */
static int compare_all(struct __test_metadata *_metadata,
		       struct agent *agents, const char *const *names, int n)
{
	static struct ns_table t;
	int a, b, compared = 0, err;
	bool want;

	nsinfo_init(&t);
	ASSERT_TRUE(t.ceilings);
	ASSERT_TRUE(t.has_mask);

	for (a = 0; a < n; a++) {
		pid_t actor = agents[a].pid;

		want = predict_ns(&t, actor, actor, "uts", CAP_SYS_ADMIN);
		err = agent_do(&agents[a], OP_SETHOSTNAME, 0, 0, "x");
		AGREE(want, err, "sethostname", a, a);
		want = predict_ns(&t, actor, actor, "net", CAP_NET_ADMIN);
		err = agent_do(&agents[a], OP_LO_UP, 0, 0, NULL);
		AGREE(want, err, "lo up", a, a);

		for (b = 0; b < n; b++) {
			pid_t target = agents[b].pid;

			if (a == b)
				continue;
			want = uid_match(actor, target) ||
			       predict(&t, actor, target, CAP_KILL);
			err = agent_do(&agents[a], OP_KILL, target, 0, NULL);
			AGREE(want, err, "signal", a, b);

			want = predict_attach(&t, actor, target);
			err = agent_do(&agents[a], OP_ATTACH, target, 0, NULL);
			AGREE(want, err, "ptrace attach", a, b);

			if (ns_ino(actor, "user") == ns_ino(target, "user"))
				continue;
			/* Opening /proc/PID/ns/user is a ptrace read check. */
			want = predict_attach(&t, actor, target) &&
			       predict(&t, actor, target, CAP_SYS_ADMIN);
			err = agent_do(&agents[a], OP_TRY_SETNS, target, 0,
				       NULL);
			AGREE(want, err, "setns", a, b);
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

/*
 * Generated trees: from a fixed seed, GEN_NS user namespaces, each made by
 * alice or bob on the host or by root of an earlier one, each with its own
 * uts and network namespaces, some with ids mapped by real root, some by
 * their creator; creators drop random capabilities from their sets, and a
 * random mask is set once the tree stands.  Agents: root of every
 * namespace, alice and bob.
 */
#define GEN_NS		6
#define GEN_AGENTS	(GEN_NS + 2)

static const int gen_caps[] = { CAP_KILL, CAP_SYS_PTRACE, CAP_NET_ADMIN,
				CAP_SYS_ADMIN };

FIXTURE(generated) {
	struct agent agents[GEN_AGENTS];
	char names[GEN_AGENTS][48];
};

FIXTURE_VARIANT(generated) {
	unsigned int seed;
};

FIXTURE_VARIANT_ADD(generated, seed_1) { .seed = 1 };
FIXTURE_VARIANT_ADD(generated, seed_2) { .seed = 2 };
FIXTURE_VARIANT_ADD(generated, seed_3) { .seed = 3 };
FIXTURE_VARIANT_ADD(generated, seed_4) { .seed = 4 };
FIXTURE_VARIANT_ADD(generated, seed_5) { .seed = 5 };
FIXTURE_VARIANT_ADD(generated, seed_6) { .seed = 6 };

FIXTURE_SETUP(generated)
{
	static char maps[GEN_NS][32];
	unsigned long long mask = ALL_CAPS;
	unsigned int seed = variant->seed;
	struct agent_spec spec;
	char text[32];
	int i, c, parent;

	for (i = 0; i < GEN_NS; i++) {
		spec = (struct agent_spec){
			.unshare = CLONE_NEWUSER | CLONE_NEWUTS | CLONE_NEWNET,
			.uid = 0,
		};
		parent = i ? (int)(rand_r(&seed) % (i + 1)) - 1 : -1;
		if (parent < 0) {
			spec.creator = rand_r(&seed) % 2 ? BOB : ALICE;
			if (rand_r(&seed) % 2) {
				snprintf(maps[i], sizeof(maps[i]),
					 "0 %d 1000", 400000 + 1000 * i);
				spec.uid_map = maps[i];
			}
		} else {
			/* Root of the parent makes it, mapping itself. */
			spec.join = self->agents[parent].pid;
			spec.creator = 0;
		}
		/* Not CAP_SYS_ADMIN: it maps the ids of what comes below. */
		for (c = 0; c < 3; c++)
			if (rand_r(&seed) % 4 == 0)
				spec.drop |= 1ULL << gen_caps[c];
		ASSERT_EQ(0, agent_start(&self->agents[i], &spec));
		snprintf(self->names[i], sizeof(self->names[i]),
			 "root of G%d (parent %s%d, dropped %llx)", i,
			 parent < 0 ? "host, creator " : "G",
			 parent < 0 ? (int)spec.creator : parent, spec.drop);
	}
	ASSERT_EQ(0, agent_start(&self->agents[GEN_NS],
				 &(struct agent_spec){ .creator = ALICE,
						       .uid = KEEP }));
	ASSERT_EQ(0, agent_start(&self->agents[GEN_NS + 1],
				 &(struct agent_spec){ .creator = BOB,
						       .uid = KEEP }));
	snprintf(self->names[GEN_NS], sizeof(self->names[0]), "alice");
	snprintf(self->names[GEN_NS + 1], sizeof(self->names[0]), "bob");

	for (c = 0; c < 4; c++)
		if (rand_r(&seed) % 4 == 0)
			mask &= ~(1ULL << gen_caps[c]);
	snprintf(text, sizeof(text), "%016llx\n", mask);
	ASSERT_EQ(0, write_file(MASK_SYSCTL, text));
	TH_LOG("seed %u: mask %016llx", variant->seed, mask);
}

FIXTURE_TEARDOWN(generated)
{
	char text[32];
	int i;

	snprintf(text, sizeof(text), "%016llx\n", ALL_CAPS);
	write_file(MASK_SYSCTL, text);
	for (i = GEN_AGENTS - 1; i >= 0; i--)
		agent_stop(&self->agents[i]);
}

TEST_F(generated, real_operations)
{
	const char *names[GEN_AGENTS];
	int i;

	for (i = 0; i < GEN_AGENTS; i++)
		names[i] = self->names[i];
	ksft_print_msg("agreement: %d operations compared\n",
		       compare_all(_metadata, self->agents, names,
				   GEN_AGENTS));
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

TEST_HARNESS_MAIN
