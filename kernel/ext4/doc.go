// Package ext4 owns ext4's on-disk format, read and write sides: the superblock and
// which features it can mount (read-write, read-only, not at all), the
// group descriptors (32 and 64 bytes), inodes (large inodes, 34-bit times
// with nanoseconds, 48-bit block counts), the extent tree, directory
// blocks (linear and htree index blocks) and symlinks, each checked as
// fs/ext4 checks it, with the metadata_csum checksums (crc32c seeded from
// the uuid, or s_checksum_seed with csum_seed).
//
// Everything is a pure function over block-sized byte slices a caller
// fills: no heap, no init work, no std package but encoding/binary, so the
// kernel can call it with its runtime never started. Reader composes them
// over a Source of blocks (the kernel's buffer cache; an image file in the
// tests): resolve a path, list a directory, read a file, stat. A block not
// in memory is EAGAIN with the block in Reader.Missing, for the kernel's
// "gather, then change" system calls; corruption is EUCLEAN (Linux's
// EFSCORRUPTED) or EBADMSG (EFSBADCRC), never a panic or an endless walk.
//
// An htree directory is looked up through its hash (hash.go: legacy,
// half_md4, tea) and listed linearly. The journal's format and a replay
// planner are journal.go (here, not in a jbd2 package, so that mount can
// replay without an import cycle), the blocks a commit logs commit.go
// (descriptors, escaped copies, commit blocks, the log's start: what
// jbd2's recovery and e2fsck replay); the write side's pieces are
// write.go (bitmaps, counts, checksums, directory entries),
// inodewrite.go, extentwrite.go and dirwrite.go, which kernel/ext4fs
// calls in a transaction's order. Not read: indirect block maps (ext2/3 files), inline data,
// meta_bg, bigalloc, encryption, casefold, extended attributes;
// Super.Support names the first such feature.
package ext4
