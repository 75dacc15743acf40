#!/bin/bash
# The nscaps tool on this machine's own kernel, which lacks our series:
# show and explain must still work, say that ceilings are missing, and exec
# must refuse with exit status 2.  TAP, appended to the guest's log so that
# the summary counts it.
set -eu

tool=${1:?usage: host-tool-check.sh build/nscaps}
echo "==> suite host_tool"
if grep -q '^CapUns:' /proc/self/status; then
	echo "1..1"
	echo "ok 1 host kernel has the series # SKIP"
	echo "<== suite host_tool rc=0"
	exit 0
fi
echo "1..3"
n=0
check() {
	n=$((n + 1))
	if "$@" >/dev/null 2>&1; then echo "ok $n $desc"; else echo "not ok $n $desc"; fi
}
desc="show works and says there are no ceilings"
check bash -c "'$tool' show | grep -q 'no user namespace ceilings'"
desc="explain works without ceilings"
check bash -c "'$tool' explain \$\$ cap_sys_admin \$\$ | tail -1 | grep -qx 'allowed\|denied'"
desc="exec refuses with status 2 and names the problem"
check bash -c "'$tool' exec --drop net_admin -- true 2>&1 | grep -q 'no user namespace set'; test \${PIPESTATUS[0]} = 2"
echo "<== suite host_tool rc=0"
