// SPDX-License-Identifier: GPL-2.0
/*
 * File-backed EROFS mounts as real root makes them, in the initial
 * namespace: the image given as a file descriptor, and no metadata read
 * past the end of the backing file.  Nothing here needs a user namespace,
 * so it holds on a kernel with the EROFS fixes alone.
 *
 *   init: real root     mounts the images of /disk/images on /tmp/erofs-file
 *   /disk               ext4 made with -O verity
 */

#include <linux/fsverity.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "kselftest_harness.h"
#include "nscaps_test.h"

#define IMAGES		"/disk/images"
#define SCRATCH		"/disk/scratch"
#define MP		"/tmp/erofs-file"
#define HELLO		"hello from an erofs image\n"

/* fsopen("erofs") with @fd as its source: 0 or the errno of the step. */
static int erofs_context(int fd, int *fs)
{
	*fs = fsopen("erofs", FSOPEN_CLOEXEC);
	if (*fs < 0)
		return errno;
	if (fsconfig(*fs, FSCONFIG_SET_FD, "source", NULL, fd))
		return errno;
	return 0;
}

/* Mount @fs's superblock on MP. */
static int attach(int fs)
{
	int mnt, err = 0;

	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		return errno;
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY);
	if (mnt < 0)
		return errno;
	if (move_mount(mnt, "", AT_FDCWD, MP, MOVE_MOUNT_F_EMPTY_PATH))
		err = errno;
	close(mnt);
	return err;
}

/* Does /proc/self/mountinfo show an erofs mount of @source on MP? */
static bool mounted_from(const char *source)
{
	char line[1024], want[256];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		return false;
	snprintf(want, sizeof(want), " - erofs %s ", source);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " " MP " ") && strstr(line, want);
	fclose(f);
	return found;
}

TEST(source_as_fd)
{
	char buf[64] = "";
	int img, fs, fd;

	mkdir(MP, 0755);
	img = open(IMAGES "/alice.img", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, img);
	ASSERT_EQ(0, erofs_context(img, &fs));
	/* The context holds the file: closing ours changes nothing. */
	close(img);
	ASSERT_EQ(0, attach(fs));
	close(fs);

	EXPECT_TRUE(mounted_from(IMAGES "/alice.img"));
	fd = open(MP "/hello.txt", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ((ssize_t)strlen(HELLO), read(fd, buf, sizeof(buf) - 1));
	EXPECT_STREQ(HELLO, buf);
	close(fd);
	EXPECT_EQ(0, umount2(MP, 0));
}

/*
 * Sources refused when they are given, with EINVAL, before anything is
 * read: what is not a regular file open read-only, a file that cannot be
 * read through its page cache (shmem has no read_folio, so a memfd
 * reopened read-only), and a second source.
 */
enum source { DIRECTORY, FIFO, WRITE_ONLY, READ_WRITE, MEMFD, TWICE };

/* A memfd holding a valid image, opened again read-only: or -1. */
static int memfd_reopened_read_only(void)
{
	char buf[4096], path[64];
	int img, mem, fd = -1;
	ssize_t n;

	img = open(IMAGES "/alice.img", O_RDONLY | O_CLOEXEC);
	mem = memfd_create("erofs-image", MFD_CLOEXEC);
	if (img < 0 || mem < 0)
		goto out;
	while ((n = read(img, buf, sizeof(buf))) > 0)
		if (write(mem, buf, n) != n)
			goto out;
	if (n == 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", mem);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
out:
	if (img >= 0)
		close(img);
	if (mem >= 0)
		close(mem);
	return fd;
}

FIXTURE(refused) {
	int fd;
};

FIXTURE_VARIANT(refused) {
	enum source source;
};

FIXTURE_VARIANT_ADD(refused, directory) { .source = DIRECTORY };
FIXTURE_VARIANT_ADD(refused, fifo) { .source = FIFO };
FIXTURE_VARIANT_ADD(refused, write_only) { .source = WRITE_ONLY };
FIXTURE_VARIANT_ADD(refused, read_write) { .source = READ_WRITE };
FIXTURE_VARIANT_ADD(refused, memfd_read_only) { .source = MEMFD };
FIXTURE_VARIANT_ADD(refused, second_source) { .source = TWICE };

FIXTURE_SETUP(refused)
{
	mkdir(SCRATCH, 0755);
	switch (variant->source) {
	case DIRECTORY:
		self->fd = open(IMAGES, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		break;
	case FIFO:
		unlink(SCRATCH "/fd-fifo");
		ASSERT_EQ(0, mkfifo(SCRATCH "/fd-fifo", 0600));
		self->fd = open(SCRATCH "/fd-fifo", O_RDWR | O_CLOEXEC);
		break;
	case WRITE_ONLY:
		self->fd = open(SCRATCH "/fd-write-only",
				O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		break;
	case READ_WRITE:
		self->fd = open(SCRATCH "/fd-read-write",
				O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		break;
	case MEMFD:
		self->fd = memfd_reopened_read_only();
		break;
	case TWICE:
		self->fd = open(IMAGES "/alice.img", O_RDONLY | O_CLOEXEC);
		break;
	}
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(refused)
{
	close(self->fd);
	unlink(SCRATCH "/fd-fifo");
	unlink(SCRATCH "/fd-write-only");
	unlink(SCRATCH "/fd-read-write");
}

TEST_F(refused, source)
{
	int fs = fsopen("erofs", FSOPEN_CLOEXEC);

	ASSERT_LE(0, fs);
	if (variant->source == TWICE)
		ASSERT_EQ(0, fsconfig(fs, FSCONFIG_SET_STRING, "source",
				      IMAGES "/other.img", 0));
	EXPECT_EQ(-1, fsconfig(fs, FSCONFIG_SET_FD, "source", NULL,
			       self->fd));
	EXPECT_EQ(EINVAL, errno);
	close(fs);
}

/*
 * past-eof.img's files share an xattr block that its superblock places
 * after the end of the image.  With fs-verity on, the page cache there
 * holds the file's Merkle tree, which is not the image's: reading the
 * xattrs fails as corruption (EFSCORRUPTED, that is EUCLEAN), where it
 * used to parse the tree and find no xattr at all.
 */
TEST(no_metadata_past_the_end)
{
	struct fsverity_enable_arg arg = {
		.version = 1, .hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
		.block_size = 4096,
	};
	char names[256];
	int fd;

	fd = open(IMAGES "/past-eof.img", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_TRUE(!ioctl(fd, FS_IOC_ENABLE_VERITY, &arg) || errno == EEXIST);
	close(fd);

	mkdir(MP, 0755);
	ASSERT_EQ(0, mount(IMAGES "/past-eof.img", MP, "erofs", MS_RDONLY,
			   NULL));
	EXPECT_EQ(-1, llistxattr(MP "/a", names, sizeof(names)));
	EXPECT_EQ(EUCLEAN, errno);
	EXPECT_EQ(0, umount2(MP, 0));
}

TEST_HARNESS_MAIN
