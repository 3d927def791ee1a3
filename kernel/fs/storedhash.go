package fs

// The stored inodes by number: a backed instance's file reached through
// two names is one inode of the tree, whichever directory was read
// first, as Linux finds an inode by its number in the inode hash
// (iget_locked, fs/inode.c) before it makes one. Two tree inodes for one
// file would keep two page caches and two sizes, and what one name
// wrote the other would not show (or, written through both, undo).
//
// Every stored inode but a directory (which has one name) is hashed by
// its instance and number while it is in the tree; MakeStored looks a
// file the store counts more than one link for up here before it makes
// an inode. Chains link through Inode.storeNext (slot+1; 0 ends one).

// storedBuckets is the hash's size: 8 inodes a chain at most on average
// with every slot of the table stored.
const storedBuckets = MaxInodes / 8

// storedHash holds slot+1 of each chain's first inode (0: empty).
var storedHash [storedBuckets]int32

func storedBucket(s uint8, ino uint64) *int32 {
	return &storedHash[uint32((ino*0x9e3779b97f4a7c15)>>40^uint64(s))%storedBuckets]
}

// findStored is the inode of instance s with number ino that still has
// a name in the tree (an unlinked one kept open is not it: its number
// may be a new file's now), or -1.
func findStored(s uint8, ino uint64) int32 {
	for k := *storedBucket(s, ino) - 1; k >= 0; k = Inodes[k].storeNext - 1 {
		if n := &Inodes[k]; n.Super == s && n.Ino == ino && n.Nlink > 0 {
			return k
		}
	}
	return -1
}

// hashStored adds stored inode i (its Super and Ino set) to the hash.
func hashStored(i int32) {
	n := &Inodes[i]
	b := storedBucket(n.Super, n.Ino)
	n.storeNext, *b = *b, i+1
}

// unhashStored takes inode i out of the hash, if it is there.
func unhashStored(i int32) {
	n := &Inodes[i]
	p := storedBucket(n.Super, n.Ino)
	for *p != 0 {
		if *p-1 == i {
			*p, n.storeNext = n.storeNext, 0
			return
		}
		p = &Inodes[*p-1].storeNext
	}
}
