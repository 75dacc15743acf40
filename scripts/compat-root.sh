#!/bin/bash
# The real tools of make check-compat, as Debian 12 ships them, and its
# shell, dash (busybox's sh would run its own applets by those names): each
# program below with the shared libraries it loads (ldd), the dynamic
# loader, x_tables' extensions and the subordinate ids newuidmap reads,
# laid out as on Debian, in a cpio archive that the kernel unpacks over
# the guest's initramfs.  Nothing is rebuilt: these are the packages'
# own files, set-user-ID bits included.
#   compat-root.sh OUT.cpio.gz
set -eu

out=$1
root=${out%.cpio.gz}
programs="/usr/bin/dash /usr/bin/bwrap /usr/bin/crun
	  /usr/bin/unshare /usr/bin/nsenter /usr/bin/setpriv
	  /usr/bin/newuidmap /usr/bin/newgidmap
	  /usr/bin/ip /usr/sbin/tc /usr/sbin/nft
	  /usr/sbin/xtables-legacy-multi /usr/sbin/ipset /usr/sbin/conntrack
	  /usr/bin/slirp4netns /usr/bin/passt /usr/sbin/capsh
	  /usr/bin/podman /usr/bin/conmon /usr/bin/systemd-nspawn"
# Names the packages install as links to the programs above.
links="/usr/bin/sh:dash /usr/sbin/ip:/usr/bin/ip
       /usr/sbin/iptables-legacy:/usr/sbin/xtables-legacy-multi
       /usr/sbin/ip6tables-legacy:/usr/sbin/xtables-legacy-multi
       /usr/bin/pasta:/usr/bin/passt"
xtables=/usr/lib/x86_64-linux-gnu/xtables

rm -rf "$root"
mkdir -p "$root"
# Copy a file to the same path under the root, keeping its mode.
put() {
	mkdir -p "$root$(dirname "$1")"
	cp -p "$1" "$root$1"
}
for p in $programs; do
	[ -x "$p" ] || { echo "compat-root: $p is missing (make deps?)" >&2; exit 1; }
	put "$p"
done
for l in $links; do
	mkdir -p "$root$(dirname "${l%%:*}")"
	ln -sf "${l#*:}" "$root${l%%:*}"
done
mkdir -p "$root$xtables"
cp -p "$xtables"/*.so "$root$xtables/"
# Every shared library any of them loads, where ldd finds it, and the
# loader itself.
# shellcheck disable=SC2086
for elf in $programs "$xtables"/*.so; do
	ldd "$elf" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
			  $1 ~ /^\// { print $1 }'
done | sort -u | while read -r lib; do
	put "$lib"
done
# The host's os-release, which systemd-nspawn binds into a container.
put /usr/lib/os-release
mkdir -p "$root/etc"
ln -sf ../usr/lib/os-release "$root/etc/os-release"
# podman's configuration, as containers-common installs it.
for d in /etc/containers /usr/share/containers; do
	mkdir -p "$root$d"
	cp -a "$d"/. "$root$d/"
done
# alice's subordinate ids, as adduser gives a new user on Debian, and
# those podman --userns=auto takes for root's containers.
mkdir -p "$root/etc"
printf 'alice:100000:65536\ncontainers:200000:65536\n' >"$root/etc/subuid"
printf 'alice:100000:65536\ncontainers:200000:65536\n' >"$root/etc/subgid"

"$(dirname "$0")/pack-initramfs.sh" "$root" "$out"
