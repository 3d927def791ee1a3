// Package fdt reads a flattened device tree (Devicetree Specification
// v0.4, chapter 5 "Flattened Devicetree (DTB) Format") in place, without
// allocating: nodes are offsets into the structure block.
package fdt

// Err is a parse error.
type Err uint8

const (
	OK Err = iota
	ErrTruncated
	ErrMagic
	ErrVersion
	ErrBounds
	ErrStructure
)

func (e Err) String() string {
	switch e {
	case OK:
		return "ok"
	case ErrTruncated:
		return "truncated device tree"
	case ErrMagic:
		return "bad device tree magic"
	case ErrVersion:
		return "unsupported device tree version"
	case ErrBounds:
		return "device tree block out of bounds"
	case ErrStructure:
		return "malformed device tree structure"
	}
	return "device tree error"
}

const (
	magic      = 0xd00dfeed
	headerSize = 40

	tokBeginNode = 1
	tokEndNode   = 2
	tokProp      = 3
	tokNop       = 4
	tokEnd       = 9

	maxDepth = 64
)

// Tree is a validated device tree blob.
type Tree struct {
	blob    []byte
	structs []byte
	strings []byte
	rsvmap  []byte
}

// Node is the offset of a node's FDT_BEGIN_NODE token in the structure
// block; -1 means none.
type Node int32

func be32(b []byte, off int) uint32 {
	return uint32(b[off])<<24 | uint32(b[off+1])<<16 | uint32(b[off+2])<<8 | uint32(b[off+3])
}

func be64(b []byte, off int) uint64 { return uint64(be32(b, off))<<32 | uint64(be32(b, off+4)) }

// TotalSize reads totalsize from the 40-byte header.
func TotalSize(hdr []byte) (uint32, Err) {
	if len(hdr) < headerSize {
		return 0, ErrTruncated
	}
	if be32(hdr, 0) != magic {
		return 0, ErrMagic
	}
	return be32(hdr, 4), OK
}

func sub(b []byte, off, size uint32) ([]byte, bool) {
	if uint64(off)+uint64(size) > uint64(len(b)) {
		return nil, false
	}
	return b[off : off+size], true
}

// Parse validates the header and block bounds.
func Parse(blob []byte) (Tree, Err) {
	total, err := TotalSize(blob)
	if err != OK {
		return Tree{}, err
	}
	if uint64(total) > uint64(len(blob)) || total < headerSize {
		return Tree{}, ErrTruncated
	}
	blob = blob[:total]
	if be32(blob, 20) < 16 || be32(blob, 24) > 17 {
		return Tree{}, ErrVersion
	}
	var t Tree
	var ok1, ok2, ok3 bool
	t.blob = blob
	t.structs, ok1 = sub(blob, be32(blob, 8), be32(blob, 36))
	t.strings, ok2 = sub(blob, be32(blob, 12), be32(blob, 32))
	rs := be32(blob, 16)
	t.rsvmap, ok3 = sub(blob, rs, total-rs)
	if !ok1 || !ok2 || !ok3 || rs > total {
		return Tree{}, ErrBounds
	}
	if len(t.structs) < 4 || be32(t.structs, 0) != tokBeginNode {
		return Tree{}, ErrStructure
	}
	return t, OK
}

// tok reads the token at off, or tokEnd when out of bounds.
func (t *Tree) tok(off int) uint32 {
	if off < 0 || off+4 > len(t.structs) {
		return tokEnd
	}
	return be32(t.structs, off)
}

// nameEnd returns the offset after a node's NUL-terminated, 4-aligned name.
func (t *Tree) nameAt(off int) ([]byte, int) {
	s := off + 4
	e := s
	for e < len(t.structs) && t.structs[e] != 0 {
		e++
	}
	if e >= len(t.structs) {
		return nil, len(t.structs)
	}
	return t.structs[s:e], (e + 1 + 3) &^ 3
}

// propAt returns the property at off (a tokProp) and the offset after it.
func (t *Tree) propAt(off int) (name, val []byte, next int) {
	if off+12 > len(t.structs) {
		return nil, nil, len(t.structs)
	}
	l := int(be32(t.structs, off+4))
	no := int(be32(t.structs, off+8))
	vs := off + 12
	if l < 0 || vs+l > len(t.structs) || l > len(t.structs) {
		return nil, nil, len(t.structs)
	}
	val = t.structs[vs : vs+l]
	if no >= 0 && no < len(t.strings) {
		e := no
		for e < len(t.strings) && t.strings[e] != 0 {
			e++
		}
		name = t.strings[no:e]
	}
	return name, val, (vs + l + 3) &^ 3
}

// Root is the root node.
func (t *Tree) Root() Node { return 0 }

// Name returns a node's full name (with @unit).
func (t *Tree) Name(n Node) []byte {
	if t.tok(int(n)) != tokBeginNode {
		return nil
	}
	name, _ := t.nameAt(int(n))
	return name
}

// skipProps returns the offset of the first child/end token of n.
func (t *Tree) bodyStart(n Node) int {
	_, off := t.nameAt(int(n))
	for {
		switch t.tok(off) {
		case tokProp:
			_, _, off = t.propAt(off)
		case tokNop:
			off += 4
		default:
			return off
		}
	}
}

// skipNode returns the offset just after n's FDT_END_NODE.
func (t *Tree) skipNode(n Node) int {
	depth := 0
	off := int(n)
	for off < len(t.structs) {
		switch t.tok(off) {
		case tokBeginNode:
			depth++
			_, off = t.nameAt(off)
		case tokEndNode:
			depth--
			off += 4
			if depth == 0 {
				return off
			}
		case tokProp:
			_, _, off = t.propAt(off)
		case tokNop:
			off += 4
		default:
			return len(t.structs)
		}
	}
	return len(t.structs)
}

// FirstChild returns n's first child.
func (t *Tree) FirstChild(n Node) Node {
	if t.tok(int(n)) != tokBeginNode {
		return -1
	}
	off := t.bodyStart(n)
	if t.tok(off) == tokBeginNode {
		return Node(off)
	}
	return -1
}

// NextSibling returns the node after n at the same level.
func (t *Tree) NextSibling(n Node) Node {
	if n <= 0 || t.tok(int(n)) != tokBeginNode {
		return -1
	}
	off := t.skipNode(n)
	for t.tok(off) == tokNop {
		off += 4
	}
	if t.tok(off) == tokBeginNode {
		return Node(off)
	}
	return -1
}

// Parent returns n's parent (a walk from the root).
func (t *Tree) Parent(n Node) Node {
	var stack [maxDepth]Node
	depth := 0
	off := 0
	for off < len(t.structs) {
		switch t.tok(off) {
		case tokBeginNode:
			if Node(off) == n {
				if depth == 0 {
					return -1
				}
				return stack[depth-1]
			}
			if depth == maxDepth {
				return -1
			}
			stack[depth] = Node(off)
			depth++
			_, off = t.nameAt(off)
		case tokEndNode:
			if depth > 0 {
				depth--
			}
			off += 4
		case tokProp:
			_, _, off = t.propAt(off)
		case tokNop:
			off += 4
		default:
			return -1
		}
	}
	return -1
}

// Prop returns property name of n.
func (t *Tree) Prop(n Node, name string) ([]byte, bool) {
	if t.tok(int(n)) != tokBeginNode {
		return nil, false
	}
	_, off := t.nameAt(int(n))
	for {
		switch t.tok(off) {
		case tokProp:
			pn, val, next := t.propAt(off)
			if string(pn) == name {
				return val, true
			}
			off = next
		case tokNop:
			off += 4
		default:
			return nil, false
		}
	}
}

// PropU32 reads a one-cell property.
func (t *Tree) PropU32(n Node, name string) (uint32, bool) {
	v, ok := t.Prop(n, name)
	if !ok || len(v) != 4 {
		return 0, false
	}
	return be32(v, 0), true
}

// PropCells reads a one- or two-cell value.
func (t *Tree) PropCells(n Node, name string) (uint64, bool) {
	v, ok := t.Prop(n, name)
	if !ok {
		return 0, false
	}
	switch len(v) {
	case 4:
		return uint64(be32(v, 0)), true
	case 8:
		return be64(v, 0), true
	}
	return 0, false
}

// StringProp returns a string property without its NUL.
func (t *Tree) StringProp(n Node, name string) ([]byte, bool) {
	v, ok := t.Prop(n, name)
	if !ok {
		return nil, false
	}
	for i, c := range v {
		if c == 0 {
			return v[:i], true
		}
	}
	return v, true
}

// IsCompatible reports whether compat is in n's compatible list.
func (t *Tree) IsCompatible(n Node, compat string) bool {
	v, ok := t.Prop(n, "compatible")
	if !ok {
		return false
	}
	for len(v) > 0 {
		i := 0
		for i < len(v) && v[i] != 0 {
			i++
		}
		if string(v[:i]) == compat {
			return true
		}
		if i == len(v) {
			break
		}
		v = v[i+1:]
	}
	return false
}

// nextNode returns the node after `after` in document order.
func (t *Tree) nextNode(after Node) Node {
	off := 0
	if after >= 0 {
		if t.tok(int(after)) != tokBeginNode {
			return -1
		}
		_, off = t.nameAt(int(after))
	}
	for off < len(t.structs) {
		switch t.tok(off) {
		case tokBeginNode:
			return Node(off)
		case tokEndNode, tokNop:
			off += 4
		case tokProp:
			_, _, off = t.propAt(off)
		default:
			return -1
		}
	}
	return -1
}

// FindCompatible returns the next node after `after` (-1: from the start)
// that is compatible with compat.
func (t *Tree) FindCompatible(after Node, compat string) Node {
	for n := t.nextNode(after); n >= 0; n = t.nextNode(n) {
		if t.IsCompatible(n, compat) {
			return n
		}
	}
	return -1
}

// FindDeviceType returns the next node with device_type typ.
func (t *Tree) FindDeviceType(after Node, typ string) Node {
	for n := t.nextNode(after); n >= 0; n = t.nextNode(n) {
		if v, ok := t.StringProp(n, "device_type"); ok && string(v) == typ {
			return n
		}
	}
	return -1
}

// Path finds a node by absolute path; a component may omit "@unit".
func (t *Tree) Path(path string) Node {
	n := t.Root()
	i := 0
	for i < len(path) {
		for i < len(path) && path[i] == '/' {
			i++
		}
		if i == len(path) {
			break
		}
		j := i
		for j < len(path) && path[j] != '/' {
			j++
		}
		comp := path[i:j]
		found := Node(-1)
		for c := t.FirstChild(n); c >= 0; c = t.NextSibling(c) {
			name := t.Name(c)
			if string(name) == comp || len(name) > len(comp) && string(name[:len(comp)]) == comp && name[len(comp)] == '@' {
				found = c
				break
			}
		}
		if found < 0 {
			return -1
		}
		n = found
		i = j
	}
	return n
}

// cells returns the #address-cells and #size-cells that n's reg is
// written in: its parent's.
func (t *Tree) cells(n Node) (addr, size int) {
	p := t.Parent(n)
	if p < 0 {
		return 2, 1
	}
	return t.busCells(p)
}

// busCells returns bus's own #address-cells and #size-cells, with the
// spec's defaults (2 and 1) for those it lacks.
func (t *Tree) busCells(bus Node) (addr, size int) {
	addr, size = 2, 1
	if v, ok := t.PropU32(bus, "#address-cells"); ok {
		addr = int(v)
	}
	if v, ok := t.PropU32(bus, "#size-cells"); ok {
		size = int(v)
	}
	return
}

func readCells(v []byte, cells int) uint64 {
	var r uint64
	for i := 0; i < cells; i++ {
		r = r<<32 | uint64(be32(v, 4*i))
	}
	return r
}

// Reg returns the i-th (address, size) pair of n's reg property.
func (t *Tree) Reg(n Node, i int) (addr, size uint64, ok bool) {
	v, found := t.Prop(n, "reg")
	if !found {
		return 0, 0, false
	}
	ac, sc := t.cells(n)
	if ac < 0 || ac > 2 || sc < 0 || sc > 2 {
		return 0, 0, false
	}
	stride := 4 * (ac + sc)
	if stride == 0 || i < 0 || (i+1)*stride > len(v) {
		return 0, 0, false
	}
	e := v[i*stride:]
	return readCells(e, ac), readCells(e[4*ac:], sc), true
}

// Interrupt returns the i-th 3-cell GIC interrupt specifier of n.
func (t *Tree) Interrupt(n Node, i int) (typ, num, flags uint32, ok bool) {
	v, found := t.Prop(n, "interrupts")
	if !found || i < 0 || (i+1)*12 > len(v) {
		return 0, 0, 0, false
	}
	return be32(v, 12*i), be32(v, 12*i+4), be32(v, 12*i+8), true
}

// MemReserve returns the i-th /memreserve/ entry.
func (t *Tree) MemReserve(i int) (addr, size uint64, ok bool) {
	if i < 0 || (i+1)*16 > len(t.rsvmap) {
		return 0, 0, false
	}
	a, s := be64(t.rsvmap, 16*i), be64(t.rsvmap, 16*i+8)
	if a == 0 && s == 0 {
		return 0, 0, false
	}
	return a, s, true
}

// maxBusDepth bounds the walk up the tree in Phys: deeper nesting than
// this is treated as untranslatable rather than walked.
const maxBusDepth = 16

// Phys returns the i-th region of n's reg property as a CPU physical
// address: the bus address translated through every parent's "ranges"
// (Devicetree Specification v0.4, §2.3.8). An empty "ranges" is an
// identity map; a bus with no "ranges" at all, or an address outside
// every range, cannot be reached from the CPU (ok is false). On QEMU
// virt every device sits at the root, where the two agree; the
// Raspberry Pi 4 puts its peripherals on buses at 0x7e000000 that appear
// at 0xfe000000.
func (t *Tree) Phys(n Node, i int) (addr, size uint64, ok bool) {
	addr, size, ok = t.Reg(n, i)
	if !ok {
		return 0, 0, false
	}
	bus := t.Parent(n)
	for depth := 0; bus > 0; depth++ { // the root (offset 0) needs no translation
		if depth == maxBusDepth {
			return 0, 0, false
		}
		up := t.Parent(bus)
		if addr, ok = t.translate(bus, up, addr); !ok {
			return 0, 0, false
		}
		bus = up
	}
	return addr, size, true
}

// translate maps addr from bus's address space into its parent's through
// bus's "ranges" entries (child address, parent address, length).
func (t *Tree) translate(bus, parent Node, addr uint64) (uint64, bool) {
	v, found := t.Prop(bus, "ranges")
	if !found {
		return 0, false
	}
	if len(v) == 0 {
		return addr, true
	}
	ca, cs := t.busCells(bus)
	pa, _ := t.busCells(parent)
	if ca < 1 || ca > 2 || cs < 1 || cs > 2 || pa < 1 || pa > 2 {
		return 0, false
	}
	stride := 4 * (ca + pa + cs)
	for off := 0; off+stride <= len(v); off += stride {
		child := readCells(v[off:], ca)
		par := readCells(v[off+4*ca:], pa)
		length := readCells(v[off+4*(ca+pa):], cs)
		if addr >= child && addr-child < length {
			return par + (addr - child), true
		}
	}
	return 0, false
}
