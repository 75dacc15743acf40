#!/bin/bash
# Build the guest's second disk: an ext4 filesystem made with -O verity
# (fs-verity needs a filesystem that supports it; tmpfs does not), holding
# the EROFS images of tests/erofs_test.c and of the demo, owned by alice.
# Every image is made reproducibly (mkfs.erofs -T0 -U <uuid>) from a tree
# made here; the disk is made with mkfs.ext4 -d, so nothing is mounted on
# this machine.  QEMU opens it with snapshot=on: the guest's writes are
# thrown away.
#   disk.sh OUT PROBE     PROBE: a static program to put in the images
# With BENCH=1, the disk holds make bench's images instead, in /bench: a
# tree of about 3,000 small files and one of 64 MiB, as an EROFS image and
# as a squashfs image, both uncompressed.
set -eu

out=$1
probe=$2
stage=${out%.img}.stage
uuid=6e736361-7073-4e53-8000-0000000000
rm -rf "$stage"
mkdir -p "$stage"/{tree,other,meta,disk/images,disk/scratch}

if [ -n "${BENCH:-}" ]; then
	b=$stage/bench
	mkdir -p "$b" "$stage/disk/bench"
	for d in $(seq 0 59); do
		mkdir -p "$b/d$d"
		for f in $(seq 0 49); do
			head -c $((1024 + (d * 50 + f) * 97 % 7168)) /dev/urandom \
				>"$b/d$d/f$f"
		done
	done
	head -c 64M /dev/urandom >"$b/big"
	mkfs.erofs --quiet -T0 "$stage/disk/bench/bench.img" "$b"
	mksquashfs "$b" "$stage/disk/bench/bench.sqfs" -quiet -noappend \
		-noI -noD -noF -noX -no-xattrs >/dev/null
	rm -f "$out"
	mkfs.ext4 -q -F -O verity -b 4096 -d "$stage/disk" "$out" 512M
	rm -rf "$stage"
	exit 0
fi

# xattr FILE NAME VALUE
xattr() {
	python3 -c 'import os, sys; os.setxattr(sys.argv[1], sys.argv[2], sys.argv[3].encode())' "$@"
}

# erofs IMAGE TREE N [mkfs.erofs options]: image N of the set, reproducible.
erofs() {
	local img=$1 tree=$2 n=$3
	shift 3
	mkfs.erofs --quiet -T0 -U "$uuid$(printf %02d "$n")" "$@" "$img" "$tree"
}

# sb_patch IMAGE [OFFSET VALUE]: clear the superblock checksum feature, so
# that edits of the superblock reach the parser, and write VALUE as a
# 32-bit field at OFFSET of the superblock.
sb_patch() {
	python3 - "$@" <<'EOF'
import struct, sys
with open(sys.argv[1], 'r+b') as f:
    f.seek(1024 + 8)                    # feature_compat
    compat, = struct.unpack('<I', f.read(4))
    f.seek(1024 + 8)
    f.write(struct.pack('<I', compat & ~1))   # EROFS_FEATURE_COMPAT_SB_CHKSUM
    if len(sys.argv) > 3:
        f.seek(1024 + int(sys.argv[2]))
        f.write(struct.pack('<I', int(sys.argv[3])))
EOF
}

# The tree alice's image holds: the kinds of entries a walk meets, and the
# ones the kernel must defuse.
t=$stage/tree
echo "hello from an erofs image" >"$t/hello.txt"
xattr "$t/hello.txt" user.origin nscaps
mkdir -p "$t/dir/sub"
for i in 1 2 3; do echo "small file $i" >"$t/dir/f$i"; done
head -c 262144 /dev/zero | tr '\0' 'e' >"$t/dir/sub/big"
ln -s hello.txt "$t/link"
echo "owned by uid 0" >"$t/root-owned"
echo "owned by uid 1000" >"$t/alice-owned" && chown 1000:1000 "$t/alice-owned"
echo "owned by uid 5" >"$t/five-owned" && chown 5:5 "$t/five-owned"
# An ACL naming uid 5, set as its raw xattr (version 2, then tag, perm, id):
# user_obj rw-, user 5 r--, group_obj r--, mask r--, other r--.
echo "readable by uid 5 through an ACL" >"$t/acl.txt"
python3 - "$t/acl.txt" <<'EOF'
import os, struct, sys
acl = struct.pack('<I', 2)
for tag, perm, uid in [(1, 6, 0xffffffff), (2, 4, 5), (4, 4, 0xffffffff),
                       (0x10, 4, 0xffffffff), (0x20, 4, 0xffffffff)]:
    acl += struct.pack('<HHI', tag, perm, uid)
os.setxattr(sys.argv[1], 'system.posix_acl_access', acl)
EOF
cp "$probe" "$t/suid-probe" && chown 0:0 "$t/suid-probe" && chmod 4755 "$t/suid-probe"
cp "$probe" "$t/fcaps-probe" && setcap cap_net_raw+ep "$t/fcaps-probe"
mknod "$t/null" c 1 3
# Another image inside the image: the source of a mount may not be a file
# on an EROFS mount, which has no fs-verity.
o=$stage/other
echo "another image" >"$o/readme"
erofs "$t/inner.img" "$o" 1

d=$stage/disk/images
erofs "$d/alice.img" "$t" 2
# The same tree, one file changed: another digest.
cp -a "$t" "$stage/changed"
echo "hello from a changed image" >"$stage/changed/hello.txt"
erofs "$d/changed.img" "$stage/changed" 3
erofs "$d/other.img" "$o" 4
# Outside the core format: trusted, they must still be refused.
erofs "$d/lz4.img" "$t" 5 -zlz4
erofs "$d/chunk.img" "$t" 6 --chunksize=4096 2>/dev/null
erofs "$d/blob.img" "$t" 7 --chunksize=4096 --blobdev="$d/blob.blob" 2>/dev/null

# The core image with one field set that only a feature uses, and no
# feature bit: the superblock checksum cleared, the field written.
python3 - "$d/alice.img" "$d" <<'EOF'
import struct, sys
image = open(sys.argv[1], 'rb').read()
for name, offset, fmt, value in [('algs', 84, '<H', 1), ('devices', 86, '<H', 1),
                                 ('prefixes', 91, '<B', 1),
                                 ('packed', 96, '<Q', 36)]:
    b = bytearray(image)
    compat, = struct.unpack_from('<I', b, 1024 + 8)
    struct.pack_into('<I', b, 1024 + 8, compat & ~1)
    struct.pack_into(fmt, b, 1024 + offset, value)
    open('%s/field-%s.img' % (sys.argv[2], name), 'wb').write(b)
EOF

# A tree of many small entries, so that most bytes of its image are
# metadata the parser reads; the superblock checksum is cleared, so that
# flipped bytes of the superblock reach the parser too.
m=$stage/meta
for i in $(seq 0 39); do
	mkdir -p "$m/d$i"
	for j in $(seq 0 7); do
		printf 'entry %d.%d\n' "$i" "$j" >"$m/d$i/f$j"
		xattr "$m/d$i/f$j" user.n "$i.$j"
	done
	ln -s "f0" "$m/d$i/l"
done
cp "$t/acl.txt" "$m/"
erofs "$d/meta.img" "$m" 8
sb_patch "$d/meta.img"

# Metadata past the end of an image: three files share one xattr, which
# -x1 stores once, in the shared area; the superblock then moves that
# area past the end of the file, into the hole ext4 leaves before the
# fs-verity Merkle tree (at the next 64 KiB).  The checksum is cleared.
p=$stage/pasteof
mkdir -p "$p"
for f in a b c; do
	echo "$f" >"$p/$f"
	xattr "$p/$f" user.shared same
done
erofs "$d/past-eof.img" "$p" 9 -x1
blocks=$(( $(stat -c %s "$d/past-eof.img") / 4096 ))
[ $((blocks + 2)) -le 16 ] || { echo "disk: past-eof.img too big" >&2; exit 1; }
sb_patch "$d/past-eof.img" 44 $((blocks + 1))	# xattr_blkaddr

chown -R 1000:1000 "$d"
chmod 1777 "$stage/disk/scratch"
rm -f "$out"
mkfs.ext4 -q -F -O verity -b 4096 -E root_owner=0:0 -d "$stage/disk" "$out" 256M
rm -rf "$stage"
