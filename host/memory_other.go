//go:build !unix

package host

import "github.com/tetratelabs/wazero/experimental"

// memoryAllocator leaves wazero's own allocator (see memory_unix.go).
func memoryAllocator() experimental.MemoryAllocator { return nil }
