// SPDX-License-Identifier: GPL-2.0
/*
 * Differential fuzzing: random user namespace trees, random tasks in them
 * and random privileged operations, the kernel's answer against the
 * reference model of the nscaps tool (nscaps_agree.h), and each
 * namespace's ceiling against what the generator expects of it.
 *
 * A tree, from one seed:
 *
 *   init --+-- G0 (alice's, maps 0 400000 1000 + her own uid, by real root)
 *          |   +-- G3 (root of G0's, maps 0 10 5 + 5 15 10 of G0)
 *          |       +-- uid 5 of G3, no caps
 *          +-- G1 (carol's, she maps herself)
 *          |   +-- G4 --- G5 --- ... --- G30   a chain, down to depth 32
 *          +-- G2 (bob's, ...)
 *
 * Every namespace has a uts and a network namespace of its own and an
 * agent that is its root; creators lower random capabilities from their
 * sets before creating, some lower more afterwards, and the mask is set
 * at random, then changed halfway through the operations.
 *
 *   fuzz_test                 make check: a fixed list of seeds
 *   fuzz_test --fuzz SEED N   make fuzz: trees SEED .. SEED+N-1, prints
 *                             cases per second and every divergence with
 *                             the command that replays its tree
 */

#include <limits.h>
#include <stdarg.h>
#include <time.h>

#include "kselftest_harness.h"
#include "nscaps_agree.h"

#define CAROL		1002
#define MAX_NS		40
#define MAX_AGENTS	(MAX_NS * 2 + 3)
#define MAX_DEPTH	32
#define OPS_PER_TREE	400
#define NSCAPS_DROPPABLE ((1ULL << CAP_KILL) | (1ULL << CAP_SYS_PTRACE) | \
			  (1ULL << CAP_NET_ADMIN))

/* Never lowered: without them nobody could write the maps below. */
static const int mask_caps[] = { CAP_KILL, CAP_SYS_PTRACE, CAP_NET_ADMIN,
				 CAP_SYS_ADMIN };

struct tree {
	unsigned int seed, rand;
	int n_ns, n;			/* namespaces, agents */
	struct agent agents[MAX_AGENTS];
	char names[MAX_AGENTS][80];
	int ns_agent[MAX_NS];		/* the root agent of each namespace */
	int depth[MAX_NS];
	int ids[MAX_NS];		/* ids 0..ids-1 are mapped */
	unsigned long long ceiling[MAX_NS];
	char maps[MAX_NS][48];
	unsigned long long mask;
	long cases, divergences;
};

static unsigned int pick(struct tree *t, unsigned int n)
{
	return rand_r(&t->rand) % n;
}

static unsigned long long random_drops(struct tree *t, int one_in)
{
	unsigned long long drop = 0;
	int cap;

	for (cap = 0; cap <= CAP_LAST_CAP; cap++)
		if ((NSCAPS_DROPPABLE >> cap & 1) && !pick(t, one_in))
			drop |= 1ULL << cap;
	return drop;
}

static int add_agent(struct tree *t, const struct agent_spec *spec)
{
	int err = agent_start(&t->agents[t->n], spec);

	if (err)
		printf("# fuzz: seed %u: starting %s: %s\n", t->seed,
		       t->names[t->n], strerror(-err));
	return err ? err : t->n++;
}

/* Namespace @i under @parent (-1: the host). */
static int add_ns(struct tree *t, int parent)
{
	static const uid_t users[] = { ALICE, BOB, CAROL };
	int i = t->n_ns, a;
	struct agent_spec spec = {
		.unshare = CLONE_NEWUSER | CLONE_NEWUTS | CLONE_NEWNET,
		.uid = 0,
		.drop = random_drops(t, 4),
	};

	if (parent < 0) {
		spec.creator = users[pick(t, 3)];
		t->depth[i] = 1;
		t->ceiling[i] = ALL_CAPS;
		if (pick(t, 2)) {
			snprintf(t->maps[i], sizeof(t->maps[i]),
				 "0 %d 1000\n%d %d 1\n", 400000 + 2000 * i,
				 spec.creator, spec.creator);
			spec.uid_map = t->maps[i];
			t->ids[i] = 1000;
		}
	} else {
		spec.join = t->agents[t->ns_agent[parent]].pid;
		spec.creator = 0;
		t->depth[i] = t->depth[parent] + 1;
		t->ceiling[i] = t->ceiling[parent];
		/* Two lines, of ids 10..24 of the parent: 15 ids. */
		if (t->ids[parent] >= 25 && pick(t, 2)) {
			snprintf(t->maps[i], sizeof(t->maps[i]),
				 "0 10 5\n5 15 10\n");
			spec.uid_map = t->maps[i];
			t->ids[i] = 15;
		}
	}
	if (!spec.uid_map)
		t->ids[i] = 1;
	/* A new namespace's ceiling: its parent's, within the creator's set. */
	t->ceiling[i] &= ~spec.drop;
	snprintf(t->names[t->n], sizeof(t->names[0]),
		 "root of G%d (depth %d, parent %s%d, %s map, dropped %llx)", i,
		 t->depth[i], parent < 0 ? "host user " : "G",
		 parent < 0 ? (int)spec.creator : parent,
		 spec.uid_map ? "root-written" : "self", spec.drop);
	a = add_agent(t, &spec);
	if (a < 0)
		return a;
	t->ns_agent[t->n_ns++] = a;
	return 0;
}

static int grow(struct tree *t)
{
	int i, parent, len, err = 0;
	int wide = 3 + pick(t, 6);

	for (i = 0; i < wide && !err; i++)
		err = add_ns(t, (int)pick(t, t->n_ns + 1) - 1);
	/* Half the trees get a chain, to a random depth up to 32. */
	if (!err && pick(t, 2)) {
		parent = pick(t, t->n_ns);
		len = 1 + pick(t, MAX_DEPTH - t->depth[parent]);
		for (i = 0; i < len && !err && t->n_ns < MAX_NS; i++) {
			err = add_ns(t, parent);
			parent = t->n_ns - 1;
		}
	}
	/* Tasks without capabilities next to some roots. */
	for (i = 0; i < t->n_ns && !err; i++) {
		if (t->ids[i] < 6 || pick(t, 2))
			continue;
		snprintf(t->names[t->n], sizeof(t->names[0]),
			 "uid 5 of G%d", i);
		err = add_agent(t, &(struct agent_spec){
			.join = t->agents[t->ns_agent[i]].pid,
			.creator = 5, .uid = KEEP });
		err = err < 0 ? err : 0;
	}
	return err;
}

static void set_random_mask(struct tree *t)
{
	size_t c;

	t->mask = ALL_CAPS;
	for (c = 0; c < sizeof(mask_caps) / sizeof(mask_caps[0]); c++)
		if (!pick(t, 4))
			t->mask &= ~(1ULL << mask_caps[c]);
	set_mask(t->mask);
}

static void diverged(struct tree *t, const char *fmt, ...)
{
	va_list ap;

	printf("# fuzz: divergence, seed %u case %ld: ", t->seed, t->cases);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n# fuzz:   replay: make fuzz SEED=%u N=1\n", t->seed);
	t->divergences++;
}

/* Each namespace's ceiling, as NS_GET_USERNS_CAP_CEILING reports it. */
static void check_ceilings(struct tree *t)
{
	int i, fd;
	__u64 got;
	char path[64];

	for (i = 0; i < t->n_ns; i++, t->cases++) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user",
			 t->agents[t->ns_agent[i]].pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, NS_GET_USERNS_CAP_CEILING, &got))
			got = 0;
		if (fd >= 0)
			close(fd);
		if (got != t->ceiling[i])
			diverged(t, "ceiling of G%d: expected %llx, kernel %llx",
				 i, t->ceiling[i], (unsigned long long)got);
	}
}

static void operate(struct tree *t, int nops)
{
	static struct ns_table table;
	int i, a, b, err;
	enum agree_op op;
	bool want;

	nsinfo_init(&table);
	for (i = 0; i < nops; i++) {
		a = pick(t, t->n);
		b = pick(t, t->n);
		op = pick(t, NR_AG_OPS);
		if (op >= AG_HOSTNAME)
			b = a;
		else if (a == b || (op == AG_SETNS &&
			 ns_ino(t->agents[a].pid, "user") ==
			 ns_ino(t->agents[b].pid, "user")))
			continue;
		if (i == nops / 2) {
			/* Halfway: a new mask, and the model reads it. */
			set_random_mask(t);
			nsinfo_init(&table);
		}
		err = agree_one(&table, &t->agents[a], t->agents[b].pid, op,
				&want);
		t->cases++;
		if (want != !err)
			diverged(t, "%s, %s -> %s (mask %llx): model says %s, kernel %s",
				 agree_op_names[op], t->names[a], t->names[b],
				 t->mask, want ? "allowed" : "denied",
				 errname(err));
	}
}

/* One tree from @seed: grow, check, operate, tear down.  0, or -errno. */
static int run_tree(struct tree *t, unsigned int seed, int nops)
{
	int err, i;

	memset(t, 0, sizeof(*t));
	t->seed = t->rand = seed;
	snprintf(t->names[t->n], sizeof(t->names[0]), "alice");
	err = add_agent(t, &(struct agent_spec){ .creator = ALICE,
						 .uid = KEEP });
	snprintf(t->names[t->n], sizeof(t->names[0]), "bob");
	if (err >= 0)
		err = add_agent(t, &(struct agent_spec){ .creator = BOB,
							 .uid = KEEP });
	if (err >= 0)
		err = grow(t);
	if (err >= 0) {
		check_ceilings(t);
		/* Some host users lower more once their namespaces stand. */
		for (i = 0; i < 2; i++)
			if (!pick(t, 3))
				agent_do(&t->agents[i], OP_USERNS_LOWER, 0,
					 mask_caps[pick(t, 4)], NULL);
		set_random_mask(t);
		operate(t, nops);
	}
	set_mask(ALL_CAPS);
	for (i = t->n - 1; i >= 0; i--)
		agent_stop(&t->agents[i]);
	return err < 0 ? err : 0;
}

static struct tree the_tree;

static int deepest(const struct tree *t)
{
	int i, d = 0;

	for (i = 0; i < t->n_ns; i++)
		d = t->depth[i] > d ? t->depth[i] : d;
	return d;
}

FIXTURE(fuzz) {};
FIXTURE_VARIANT(fuzz) { unsigned int seed; };
FIXTURE_VARIANT_ADD(fuzz, seed_1) { .seed = 1 };
FIXTURE_VARIANT_ADD(fuzz, seed_2) { .seed = 2 };
FIXTURE_VARIANT_ADD(fuzz, seed_3) { .seed = 3 };
FIXTURE_VARIANT_ADD(fuzz, seed_4) { .seed = 4 };
FIXTURE_VARIANT_ADD(fuzz, seed_5) { .seed = 5 };
FIXTURE_VARIANT_ADD(fuzz, seed_6) { .seed = 6 };
FIXTURE_VARIANT_ADD(fuzz, seed_7) { .seed = 7 };
FIXTURE_VARIANT_ADD(fuzz, seed_8) { .seed = 8 };
FIXTURE_SETUP(fuzz) {}
FIXTURE_TEARDOWN(fuzz)
{
	set_mask(ALL_CAPS);
}

/* A chain to depth 32 takes minutes on a KASAN kernel under TCG. */
TEST_F_TIMEOUT(fuzz, tree, 900)
{
	struct tree *t = &the_tree;

	ASSERT_EQ(0, run_tree(t, variant->seed, OPS_PER_TREE));
	ksft_print_msg("fuzz: seed %u: %d namespaces (deepest %d), %d tasks, %ld cases, %ld divergences\n",
		       t->seed, t->n_ns, deepest(t), t->n, t->cases,
		       t->divergences);
	EXPECT_EQ(0, t->divergences);
}

static int fuzz_main(unsigned int seed, unsigned int n)
{
	long cases = 0, divergences = 0, failed = 0;
	struct timespec t0, t1;
	double secs;
	unsigned int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		if (run_tree(&the_tree, seed + i, OPS_PER_TREE))
			failed++;
		cases += the_tree.cases;
		divergences += the_tree.divergences;
		if ((i + 1) % 10 == 0 || i + 1 == n) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			secs = t1.tv_sec - t0.tv_sec +
			       (t1.tv_nsec - t0.tv_nsec) / 1e9;
			printf("fuzz: %u trees, %ld cases, %ld divergences, %ld setup failures, %.0f cases/s\n",
			       i + 1, cases, divergences, failed,
			       cases / secs);
			fflush(stdout);
		}
	}
	return divergences || failed;
}

int main(int argc, char **argv)
{
	char *end;
	unsigned long seed, n;

	if (argc > 1 && !strcmp(argv[1], "--fuzz")) {
		if (argc != 4)
			goto usage;
		seed = strtoul(argv[2], &end, 0);
		if (*end || seed > UINT_MAX)
			goto usage;
		n = strtoul(argv[3], &end, 0);
		if (*end || !n || n > UINT_MAX)
			goto usage;
		return fuzz_main(seed, n);
	}
	return test_harness_run(argc, argv);
usage:
	fprintf(stderr, "usage: fuzz_test [--fuzz SEED N]: SEED and N are unsigned numbers, N > 0\n");
	return 2;
}
