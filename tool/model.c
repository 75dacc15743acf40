// SPDX-License-Identifier: GPL-2.0
/* The reference model of cap_capable(); see model.h for the rules. */

#include <stddef.h>

#include "model.h"

#define BIT(cap)	(1ULL << (cap))

uint64_t model_allowed(const struct model_ns *ns, uint64_t mask)
{
	return ns->initial ? ~0ULL : ns->ceiling & mask;
}

uint64_t model_own_allowed(const struct model_ns *ns, uint64_t mask,
			   uint64_t set, bool unmasked)
{
	if (ns->initial)
		return ~0ULL;
	return model_allowed(ns, mask | (unmasked ? ns->unmasked : 0)) & set;
}

/* @mask: the mask as it applies where the rule matched. */
static const char *cut_by(const struct model_ns *ns, int cap, uint64_t mask)
{
	if (!(ns->ceiling & BIT(cap)))
		return "ceiling";
	if (!(mask & BIT(cap)))
		return "mask";
	return "set";
}

static bool record(struct model_trace *t, enum model_rule rule,
		   const struct model_ns *ns, uint64_t allowed,
		   const char *by, bool verdict)
{
	if (t && t->n < MODEL_MAX_STEPS)
		t->step[t->n++] = (struct model_step){ rule, ns, allowed, by };
	return verdict;
}

bool model_capable(const struct model_cred *cred,
		   const struct model_ns *target, int cap, uint64_t mask,
		   struct model_trace *trace)
{
	const struct model_ns *ns;
	uint64_t allowed;

	if (trace)
		trace->n = 0;
	for (ns = target; ns; ns = ns->parent) {
		if (ns == cred->ns) {
			allowed = model_own_allowed(ns, mask,
						    cred->userns_set,
						    cred->unmasked);
			if (!(cred->effective & BIT(cap)))
				return record(trace, M_OWN_LACKS, ns, allowed,
					      NULL, false);
			if (!(allowed & BIT(cap)))
				return record(trace, M_OWN_CUT, ns, allowed,
					      cut_by(ns, cap, mask |
						     (cred->unmasked ?
						      ns->unmasked : 0)),
					      false);
			return record(trace, M_OWN, ns, allowed, NULL, true);
		}
		if (ns->level <= cred->ns->level)
			return record(trace, M_NOT_BELOW, ns, 0, NULL, false);
		if (ns->parent == cred->ns && ns->owner == cred->euid) {
			allowed = model_allowed(ns, mask) & cred->userns_set;
			if (allowed & BIT(cap))
				return record(trace, M_OWNER, ns, allowed,
					      NULL, true);
			record(trace, M_OWNER_CUT, ns, allowed,
			       cut_by(ns, cap, mask), false);
			continue;
		}
		record(trace, M_UP, ns, 0, NULL, false);
	}
	/* The task's namespace is not above the target: unrelated. */
	return record(trace, M_NOT_BELOW, target, 0, NULL, false);
}
