// Package ext4 owns ext4's on-disk format, read side: the superblock and
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
// Not read: indirect block maps (ext2/3 files), inline data, meta_bg,
// bigalloc, encryption, casefold; Super.Support names the first such
// feature. The htree is read linearly (its hash is not computed). The
// journal's format is kernel/jbd2's.
package ext4
