# nscaps: capabilities relative to user namespaces, on Debian's 6.12 kernel.
#
#   make demo     build as needed, boot, walk through the model as a user
#   make check    build as needed, boot, run every suite, print the summary
#   make shell    boot the same kernel to an interactive busybox shell
#   make help     everything else

SHELL := /bin/bash
comma := ,
.DEFAULT_GOAL := help

B       := build
LINUX   := $(B)/linux
KOUT    := $(B)/kbuild
HDRS    := $(KOUT)/headers/include
SELFT   := $(LINUX)/tools/testing/selftests
TIMEOUT ?= 600

export CCACHE_DIR ?= $(HOME)/.ccache

CC_GUEST := gcc
CFLAGS_GUEST := -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-clobbered -static \
	-D_GNU_SOURCE -isystem $(HDRS) -I$(SELFT) -Itests

# Our conformance suites, in the order they run; each is tests/NAME.c.
SUITES := uts_owner_test owner_rule_test hostname_test kill_test \
	ptrace_test powerless_test setid_test procmount_test ceiling_test \
	root_made_test loopback_test tap_test \
	escape_test erofs_file_test erofs_test lsm_test tool_test fuzz_test \
	stress_test audit_test keys_test
# Suites that need a kernel command line of their own: make check boots the
# guest a second time for them, with BOOT_APPEND.
ALONE := boot_mask_test
BOOT_APPEND := sysctl.kernel.userns_cap_mask=1ffffffefff \
	sysctl.kernel.userns_cap_mask=zz
# The tree's own selftests for this area; the nsfs ones are plain programs
# (exit status only) that guest/init reports as one test each; kselftest
# is the series' own (tools/testing/selftests/userns_caps), run by the
# kselftest runner.
TREE_TESTS := test_execve nsfs_owner nsfs_pidns kselftest
# Debian's own sandboxes and network tools under each clamp (make
# check-compat): a suite that runs only when a boot selects it, and the
# program its sandboxes run.
COMPAT := compat_test
# The BPF LSM version of the clamps, on the stock tree (make check-bpf):
# its own suite, and the loader with the program built in.
BPF_SUITES := bpf_mask_test
ALT := $(B)/alt
GUEST_BINS := $(addprefix $(B)/tests/,$(SUITES) $(ALONE) $(TREE_TESTS) \
	$(COMPAT) $(BPF_SUITES) lo_probe tcp_probe net_admin_probe \
	request_key_probe validate_cap demo \
	nscaps) \
	$(ALT)/userns-mask
TOOL_SRC := tool/nscaps.c tool/nsinfo.c tool/model.c tool/image.c
TOOL_LIB := tool/nsinfo.c tool/model.c

.PHONY: help deps tree kernel guest check check-debug check-smp check-distro check-compat \
	check-bpf check-exploits alt demo shell \
	tool fuzz bench export-patches checkpatch check-series postings clean

help:
	@sed -n '2,7s/^# \{0,1\}//p' Makefile
	@echo "  make deps            install the Debian packages (apt-get)"
	@echo "  make tree            build/linux: Debian's tree + kernel/series"
	@echo "  make kernel          build/bzImage from tinyconfig + kernel/config/"
	@echo "  make tool            build/nscaps, the tool, for this machine"
	@echo "  make check-debug     the suites on a KASAN/kmemleak/lockdep kernel"
	@echo "  DEBUG_SMP=y make check-debug   the same with SMP and preemption"
	@echo "  make check-smp       the suites on the same config, SMP and preemptible"
	@echo "  make check-compat    Debian's sandboxes and network tools under each clamp"
	@echo "  make check-bpf       the BPF LSM version of the clamps on the stock tree"
	@echo "  make alt             build/alt/userns-mask, the BPF LSM version's loader"
	@echo "  make check-distro    the suites on Debian's own config (an hour cold)"
	@echo "  make check-exploits EXPLOITS=DIR  kernelCTF's exploits, no clamp and recommended"
	@echo "  make fuzz SEED=1 N=100  N random trees against the model"
	@echo "  make bench           ours against the stock tree: build/bench/"
	@echo "  BENCH_CONFIG=distro make bench   the same on Debian's config (46 min cold)"
	@echo "  make export-patches  build/linux commits -> kernel/postings/, as cut by kernel/series"
	@echo "  make checkpatch      checkpatch.pl --strict on every patch"
	@echo "  make check-series    every prefix built, checkpatch'd, KUnit booted; suites at each posting's end"
	@echo "  make postings        build/postings/: the postings addressed, checked to apply"

deps:
	@scripts/deps.sh

tree: deps
	@scripts/tree.sh

kernel: tree
	@scripts/kernel.sh

# Test programs are built against the headers of our own tree, so they see
# any uapi the series adds.
$(B)/tests/%_test: tests/%_test.c tests/*.h kernel/series | kernel
	@mkdir -p $(@D)
	$(CC_GUEST) $(CFLAGS_GUEST) -o $@ $< -lcap

$(B)/tests/demo: tests/demo.c tests/*.h tool/wrap.h kernel/series | kernel
	@mkdir -p $(@D)
	$(CC_GUEST) $(CFLAGS_GUEST) -Itool -o $@ $< -lcap

# The tool, for this machine (system headers, our uapi numbers built in)...
tool: $(B)/nscaps
$(B)/nscaps: $(TOOL_SRC) tool/*.h
	@scripts/deps.sh
	@mkdir -p $(@D)
	gcc -O2 -g -Wall -Wextra -D_GNU_SOURCE -Itool -o $@ $(TOOL_SRC) -lcap

# ... and for the guest, where its tests run against the real kernel.
$(B)/tests/nscaps: $(TOOL_SRC) tool/*.h kernel/series | kernel
	@mkdir -p $(@D)
	$(CC_GUEST) $(CFLAGS_GUEST) -Itool -o $@ $(TOOL_SRC) -lcap

$(B)/tests/tool_test $(B)/tests/fuzz_test: $(B)/tests/%: tests/%.c $(TOOL_LIB) \
		tool/*.h tests/*.h kernel/series | kernel
	@mkdir -p $(@D)
	$(CC_GUEST) $(CFLAGS_GUEST) -Itool -o $@ $< $(TOOL_LIB) -lcap

$(B)/tests/test_execve $(B)/tests/validate_cap: $(B)/tests/%: kernel/series | kernel
	@mkdir -p $(@D)
	$(CC_GUEST) -O2 -static -std=gnu99 -isystem $(HDRS) -I$(SELFT) -w \
		-o $@ $(SELFT)/capabilities/$*.c -lcap-ng

# The series' kselftests (the clamps' and EROFS's), built static against
# our headers and installed with the kselftest runner into $(KSFT), which
# the guest carries as /kselftest; guest/kselftest runs them.
KSFT := $(B)/kselftest
# The selftests' sources, where build/linux has them yet (none on a clean
# clone, where the target is missing anyway).
KSFT_TARGETS := userns_caps filesystems/erofs
KSFT_SRC := $(wildcard $(addsuffix /*,$(addprefix $(SELFT)/,$(KSFT_TARGETS))))
$(B)/tests/kselftest: guest/kselftest kernel/series $(KSFT_SRC) | kernel
	@rm -rf $(KSFT) $(B)/kselftest-build
	@$(MAKE) -s -C $(SELFT) TARGETS="$(KSFT_TARGETS)" \
		O=$(CURDIR)/$(B)/kselftest-build \
		KHDR_INCLUDES="-isystem $(CURDIR)/$(HDRS)" LDFLAGS=-static \
		INSTALL_PATH=$(CURDIR)/$(KSFT) install >/dev/null
	@mkdir -p $(@D)
	cp $< $@

$(B)/tests/nsfs_%: kernel/series | kernel
	@mkdir -p $(@D)
	$(CC_GUEST) -O2 -static -isystem $(HDRS) -w -o $@ $(SELFT)/nsfs/$*.c

$(B)/tests/lo_probe: tests/lo_probe.c | kernel
	@mkdir -p $(@D)
	$(CC_GUEST) $(CFLAGS_GUEST) -o $@ $<

$(B)/tests/tcp_probe: tests/tcp_probe.c | kernel
	@mkdir -p $(@D)
	$(CC_GUEST) $(CFLAGS_GUEST) -o $@ $<

$(B)/tests/net_admin_probe: tests/net_admin_probe.c tests/nscaps_net.h | kernel
	@mkdir -p $(@D)
	$(CC_GUEST) $(CFLAGS_GUEST) -o $@ $<

$(B)/tests/exploit_run $(B)/tests/request_key_probe: $(B)/tests/%: tests/%.c \
		| kernel
	@mkdir -p $(@D)
	$(CC_GUEST) $(CFLAGS_GUEST) -o $@ $<
$(B)/tests/request_key_probe: tests/nscaps_keys.h

# alt/: the BPF program, compiled for BPF with its CO-RE relocations, the
# skeleton bpftool makes of it, and the loader, static for the guest.
# -mcpu=v3 for the atomics whose old value the ceiling budget reads.
alt: $(ALT)/userns-mask
$(ALT)/userns_mask.bpf.o: alt/userns_mask.bpf.c
	@scripts/deps.sh
	@mkdir -p $(@D)
	clang -O2 -g -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 \
		-I/usr/include/$(shell uname -m)-linux-gnu -c $< -o $@
$(ALT)/userns_mask.skel.h: $(ALT)/userns_mask.bpf.o
	bpftool gen skeleton $< name userns_mask_bpf >$@
$(ALT)/userns-mask: alt/userns_mask.c $(ALT)/userns_mask.skel.h
	gcc -O2 -g -Wall -Wextra -static -I$(ALT) -o $@ $< \
		-lbpf -lelf -lz -lzstd -lcap

guest: kernel $(GUEST_BINS) $(B)/disk.img
	@SUITES="$(SUITES) $(TREE_TESTS) $(ALONE) $(COMPAT) $(BPF_SUITES)" \
		PLAIN="nsfs_owner nsfs_pidns" \
		ALONE="$(ALONE) $(COMPAT) $(BPF_SUITES)" \
		MODULES=$(KOUT)/modroot KSELFTEST=$(KSFT) \
		scripts/initramfs.sh $(GUEST_BINS)

# The guest's second disk: ext4 with fs-verity and the EROFS images of
# erofs_test and the demo, which carry erofs_test as their probe program.
$(B)/disk.img: scripts/disk.sh $(B)/tests/erofs_test
	@scripts/disk.sh $@ $(B)/tests/erofs_test

check: guest $(B)/nscaps
	@echo "check: booting the guest (log: $(B)/check.log)"
	@scripts/qemu.sh check $(B)/check.log $(TIMEOUT) || true
	@echo "check: booting it again with $(BOOT_APPEND)"
	@APPEND="$(BOOT_APPEND) kunit.enable=0 nscaps.suites=$(subst $() ,$(comma),$(ALONE))" \
		scripts/qemu.sh check $(B)/check-boot.log 300 || true
	@cat $(B)/check-boot.log >>$(B)/check.log
	@scripts/host-tool-check.sh $(B)/nscaps >>$(B)/check.log
	@scripts/man-lint.sh >>$(B)/check.log
	@scripts/doc-links.py >>$(B)/check.log
	@awk -v expect="kunit $(SUITES) $(TREE_TESTS) $(ALONE) host_tool man_pages doc_links" \
		-f scripts/summarize.awk $(B)/check.log

demo: guest
	@scripts/qemu.sh demo $(B)/demo.log $(TIMEOUT) || true
	@sed -n '/^==> demo/,/^==> demo done/p' $(B)/demo.log | sed '1d;$$d'
	@grep -q '^==> demo done rc=0' $(B)/demo.log || \
		{ echo "demo: failed or did not finish, see $(B)/demo.log" >&2; exit 1; }

shell: guest
	@scripts/qemu.sh shell

# Differential fuzzing, long runs: N trees from SEED (make check runs a
# fixed list of seeds).  A divergence prints the command that replays it.
SEED ?= 1000
N ?= 100
fuzz: guest
	@scripts/fuzz.sh $(SEED) $(N)

# The same suites on a kernel built with kernel/config/debug/debug.config
# (KASAN, kmemleak, lockdep, RCU and atomic-sleep checks, UBSAN, list and
# object debugging), then a kmemleak scan; any report fails.  The whole
# run took 44 minutes on TCG; the timeout, in seconds, leaves room.
# DEBUG_SMP=y adds kernel/config/variant/smp.config: two CPUs, preemptible
# (build/kbuild-debug-smp, log build/check-debug-smp.log).  That kernel
# boots with acpi=noirq: under KASAN on TCG, ACPI's interrupt routing
# method runs past ACPICA's loop timeout and the virtio disk never gets
# an interrupt; the MP table routes them instead.
DEBUG_TIMEOUT ?= 5400
# The stress suite's cycles on the debug kernel (make check: 10000).
DEBUG_STRESS_CYCLES ?= 10000
DEBUG_SMP ?=
DBG := debug$(if $(DEBUG_SMP),-smp)
DBG_FRAGMENTS := $(CURDIR)/kernel/config/debug/debug.config \
	$(if $(DEBUG_SMP),$(CURDIR)/kernel/config/variant/smp.config)
DBG_APPEND := $(if $(DEBUG_SMP),acpi=noirq) nscaps.debug=1 nscaps.kasan=1 \
	nscaps.stress=$(DEBUG_STRESS_CYCLES)
check-debug: guest $(B)/nscaps
	@EXTRA_FRAGMENTS="$(strip $(DBG_FRAGMENTS))" \
		KBUILD_OUT=$(CURDIR)/$(B)/kbuild-$(DBG) \
		BZIMAGE=$(CURDIR)/$(B)/bzImage-$(DBG) scripts/kernel.sh
	@echo "check-debug: booting the debug kernel (log: $(B)/check-$(DBG).log)"
	@KERNEL=$(B)/bzImage-$(DBG) \
		APPEND="$(strip $(DBG_APPEND))" \
		scripts/qemu.sh check $(B)/check-$(DBG).log $(DEBUG_TIMEOUT) || true
	@awk -v expect="kunit $(SUITES) $(TREE_TESTS) kmemleak" \
		-f scripts/summarize.awk $(B)/check-$(DBG).log

# make check-smp: the suites of make check (KUnit runs at its boot too,
# uncounted: make check counts it) on the same config with SMP and full
# preemption (kernel/config/variant/smp.config), on QEMU's two CPUs.  Not
# in CI: make check's uniprocessor guest is faster, and CI time is its.
check-smp: guest $(B)/nscaps
	@EXTRA_FRAGMENTS=$(CURDIR)/kernel/config/variant/smp.config \
		KBUILD_OUT=$(CURDIR)/$(B)/kbuild-smp \
		BZIMAGE=$(CURDIR)/$(B)/bzImage-smp scripts/kernel.sh
	@echo "check-smp: booting (log: $(B)/check-smp.log)"
	@KERNEL=$(B)/bzImage-smp \
		APPEND="nscaps.suites=$(subst $() ,$(comma),$(SUITES) $(TREE_TESTS))" \
		scripts/qemu.sh check $(B)/check-smp.log $(TIMEOUT) || true
	@awk -v expect="$(SUITES) $(TREE_TESTS)" \
		-f scripts/summarize.awk $(B)/check-smp.log

# make check-compat: Debian's bwrap, crun, util-linux, iproute2, nftables,
# iptables, ipset and conntrack, unmodified, run by alice under no clamp,
# the mask, a set lowered under no_new_privs, a set lowered by a runtime
# with CAP_SETPCAP and the mask from the command line; and on the stock
# tree for the default column (scripts/check-compat.sh).  The matrix is
# build/check-compat-matrix.txt.  Not in make check: two more boots and a stock
# kernel build.
check-compat: guest
	@scripts/check-compat.sh

# make check-bpf: the BPF LSM version of the clamps (alt/) where it is the
# alternative, the stock tree with make check's fragments and
# kernel/config/variant/bpf.config (BTF, the BPF LSM): its own suite, then
# the escape catalogue, the conformance suites and the compat rows with it
# attached, for the comparison tables (scripts/check-bpf.sh).  Not in
# make check: a kernel of its own, with debug information for BTF.
check-bpf: guest
	@scripts/check-bpf.sh

# make check-distro: every suite of make check but KUnit (Debian builds
# none) on Debian's own cloud-amd64 config with its modules, LSMs (AppArmor by default) and audit
# (scripts/distro.sh, kernel/config/distro/distro.config), then make
# check-compat's boots on that kernel (without the stock column), then the
# BPF LSM version's suite on the stock tree built from Debian's config
# (scripts/distro-stock.sh).  Not in CI: over an hour from a cold
# ccache.  The log is build/check-distro.log.
DISTRO := $(B)/distro
DISTRO_TIMEOUT ?= 3600
check-distro: guest
	@SUITES="$(SUITES) $(TREE_TESTS) $(ALONE) $(COMPAT) $(BPF_SUITES)" \
		PLAIN="nsfs_owner nsfs_pidns" \
		ALONE="$(ALONE) $(COMPAT) $(BPF_SUITES)" KSELFTEST=$(KSFT) \
		scripts/distro.sh $(GUEST_BINS)
	@echo "check-distro: booting Debian's config (log: $(B)/check-distro.log)"
	@KERNEL=$(DISTRO)/bzImage INITRD=$(DISTRO)/initramfs.cpio.gz \
		scripts/qemu.sh check $(B)/check-distro.log $(DISTRO_TIMEOUT) || true
	@echo "check-distro: booting it again with $(BOOT_APPEND)"
	@KERNEL=$(DISTRO)/bzImage INITRD=$(DISTRO)/initramfs.cpio.gz \
		APPEND="$(BOOT_APPEND) nscaps.suites=$(subst $() ,$(comma),$(ALONE))" \
		scripts/qemu.sh check $(B)/check-distro-boot.log 900 || true
	@cat $(B)/check-distro-boot.log >>$(B)/check-distro.log
	@KERNEL=$(DISTRO)/bzImage INITRD=$(DISTRO)/initramfs.cpio.gz \
		COMPAT_TAG=check-distro-compat COMPAT_STOCK=no \
		scripts/check-compat.sh >/dev/null || true
	@cat $(B)/check-distro-compat-matrix.txt
	@cat $(B)/check-distro-compat.log $(B)/check-distro-compat-boot.log \
		>>$(B)/check-distro.log
	@scripts/distro-stock.sh
	@echo "check-distro: the BPF LSM version on the stock kernel (log: $(B)/check-distro-bpf.log)"
	@KERNEL=$(B)/bench-distro/bzImage-stock INITRD=$(B)/initramfs.cpio.gz \
		APPEND="nscaps.suites=$(BPF_SUITES)" \
		scripts/qemu.sh check $(B)/check-distro-bpf.log 600 || true
	@cat $(B)/check-distro-bpf.log >>$(B)/check-distro.log
	@awk -v expect="$(SUITES) $(TREE_TESTS) $(ALONE) $(COMPAT) $(BPF_SUITES)" \
		-f scripts/summarize.awk $(B)/check-distro.log

# make check-exploits EXPLOITS=DIR: the public kernelCTF exploits that use
# a user namespace (DIR: a checkout of google/security-research), each run
# in the guest by alice under no clamp and under the recommended one, on
# Debian's config with its modules loaded on demand; the table is
# build/exploits/table.tsv (scripts/check-exploits.sh).  Not in make check
# or CI: Debian's kernel (an hour cold) and two runs of every exploit.
check-exploits: $(B)/tests/exploit_run
	@scripts/distro.sh --kernel-only
	@EXPLOITS="$(EXPLOITS)" scripts/check-exploits.sh

# Stock (debian-base) against ours, same fragment, alternate boots; then
# -icount for instruction counts.  RUNS=5 ICOUNT_RUNS=2 by default.
# BENCH_CONFIG=distro: both kernels on Debian's cloud-amd64 config, the
# capability part only, into build/bench-distro/ (not in CI: 46 min cold).
bench: tree alt
	@scripts/bench.sh

export-patches:
	@scripts/export-patches.sh

# The tree is Debian's tarball, without mainline's history, so checkpatch
# cannot look up the mainline commits that Fixes: tags name; those are
# checked against the lists instead (docs/series.md).
CHECKPATCH := PATH=/usr/bin:$$PATH ./scripts/checkpatch.pl --strict --terse \
	--ignore UNKNOWN_COMMIT_ID
checkpatch: tree
	@cd $(LINUX) && $(CHECKPATCH) \
		$(addprefix $(CURDIR)/kernel/,$(shell grep -v '^#' kernel/series))

# Every prefix of every posting built both ways, checkpatch'd and booted
# for KUnit; at each posting's end, the suites it makes hold.
check-series: guest
	@KSFT_TARGETS="$(KSFT_TARGETS)" scripts/check-series.sh

# The postings, addressed and ready to mail, in build/postings/.
postings: tree
	@scripts/postings.sh

clean:
	rm -rf $(B)/kbuild $(B)/tests $(B)/initramfs* $(B)/*.log $(B)/bzImage
