// SPDX-License-Identifier: GPL-2.0
/*
 * The payload of the compat suite's root-made containers: what a pod's
 * init container does with CAP_NET_ADMIN, in the network namespace we run
 * in.  Adds a dummy link ("ip link add d0 type dummy") and an nf_tables
 * table ("nft add table ip t").  Static, so that it runs in a container's
 * root with nothing bound in.  Exit status 0 if both are done; otherwise
 * it says which failed and why, in strerror()'s words.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nscaps_net.h"

int main(void)
{
	int link = net_add_dummy("d0", 0);
	int table = net_add_nft_table("t");

	if (link)
		fprintf(stderr, "net_admin_probe: adding a dummy link: %s\n",
			strerror(link));
	if (table)
		fprintf(stderr, "net_admin_probe: adding an nf_tables table: %s\n",
			strerror(table));
	return link || table;
}
