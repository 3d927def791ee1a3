// Package mm owns memory: the physical page allocator, the kernel's direct
// map of physical memory and its windows (pages mapped page by page
// above it), and the app's address space (VMA list plus
// 4-level, 4 KiB-granule page tables for TTBR0) with demand paging.
//
// Page-table formats follow ARM ARM D8.3 "Translation table descriptor
// formats" (VMSAv8-64, 4 KiB granule, 48-bit VA). The logic here is pure Go
// over physical pages reached through PhysOffset, so host tests run it over
// ordinary Go memory.
package mm
