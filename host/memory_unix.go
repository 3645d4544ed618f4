//go:build unix

package host

import (
	"math"

	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
)

// linearMemory backs a plugin's linear memory with an anonymous mapping
// of its maximum size, reserved at once and filled by the kernel page by
// page as the guest touches it. Growing the memory then moves and copies
// nothing (wazero's default, a Go slice, copies the whole memory at each
// growth: a tenth of a 10 MiB hash call), and closing an instance gives
// its pages back to the system at once rather than at the Go heap's
// next scavenge.
type linearMemory struct {
	buf    []byte
	mapped bool   // buf is the mapping; else a Go slice of at most max bytes
	max    uint64 // for a Go slice
}

// memoryAllocator returns the allocator instances are started with; nil
// leaves wazero's own.
func memoryAllocator() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
		if max > 0 && max <= math.MaxInt {
			buf, err := unix.Mmap(-1, 0, int(max), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
			if err == nil {
				return &linearMemory{buf: buf, mapped: true}
			}
		}
		// No address space for it: a Go slice, grown by copying.
		return &linearMemory{max: max}
	})
}

// Reallocate implements experimental.LinearMemory.
func (m *linearMemory) Reallocate(size uint64) []byte {
	if m.mapped {
		if size > uint64(len(m.buf)) {
			return nil
		}
		return m.buf[:size:size]
	}
	if size > m.max {
		return nil
	}
	if size > uint64(cap(m.buf)) {
		grown := make([]byte, size, min(max(size, 2*uint64(cap(m.buf))), m.max))
		copy(grown, m.buf)
		m.buf = grown
	}
	m.buf = m.buf[:size]
	return m.buf
}

// Free implements experimental.LinearMemory.
func (m *linearMemory) Free() {
	if m.mapped && m.buf != nil {
		unix.Munmap(m.buf)
	}
	m.buf = nil
}
