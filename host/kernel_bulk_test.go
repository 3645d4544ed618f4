package host

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/wasmtools/wasmtools/abi"
)

// memoryModule is a module that only exports one page of memory.
var memoryModule = []byte{
	0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00,
	0x05, 0x03, 0x01, 0x00, 0x01, // memory section: one memory, min 1 page
	0x07, 0x0a, 0x01, 0x06, 'm', 'e', 'm', 'o', 'r', 'y', 0x02, 0x00, // export "memory"
}

// TestKernelBulk: length with the bulk tag copies a whole range between
// a kernel block and linear memory in one call, and traps on any range
// that is not inside one live block and inside the module's memory; an
// ordinary length is unchanged.
func TestKernelBulk(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	mod, err := rt.Instantiate(ctx, memoryModule)
	if err != nil {
		t.Fatal(err)
	}
	const descAt = 16 // the descriptor's address in linear memory
	bulkArg := func(op uint64) uint64 { return abi.BulkTag<<48 | op<<32 | descAt }
	setDesc := func(off, addr, n uint64) {
		d := binary.LittleEndian.AppendUint64(nil, off)
		d = binary.LittleEndian.AppendUint64(d, addr)
		d = binary.LittleEndian.AppendUint64(d, n)
		mod.Memory().Write(descAt, d)
	}
	// run calls length(arg) and returns its result, or the trap's text.
	run := func(k *kernel, arg uint64) (n uint64, trapped string) {
		defer func() {
			if p := recover(); p != nil {
				trapped = fmt.Sprint(p)
			}
		}()
		s := []uint64{arg}
		k.importLength(mod, s)
		return s[0], ""
	}
	content := bytes.Repeat([]byte("0123456789abcdef"), 7) // 112 bytes
	cases := []struct {
		name          string
		op            uint64
		off, addr, n  func(block uint64) uint64
		want          uint64
		trap          string
		guestGetsData bool
		kernelGets    bool
	}{
		{name: "load a whole block", op: abi.BulkLoad, off: func(b uint64) uint64 { return b }, addr: func(uint64) uint64 { return 1024 }, n: func(uint64) uint64 { return 112 }, want: 112, guestGetsData: true},
		{name: "store a whole block", op: abi.BulkStore, off: func(b uint64) uint64 { return b }, addr: func(uint64) uint64 { return 2048 }, n: func(uint64) uint64 { return 112 }, want: 112, kernelGets: true},
		{name: "nothing to copy", op: abi.BulkLoad, off: func(b uint64) uint64 { return b }, addr: func(uint64) uint64 { return 1024 }, n: func(uint64) uint64 { return 0 }, want: 0},
		{name: "load past the block's end", op: abi.BulkLoad, off: func(b uint64) uint64 { return b + 8 }, addr: func(uint64) uint64 { return 1024 }, n: func(uint64) uint64 { return 112 }, trap: "run past the end of the block"},
		{name: "store outside every block", op: abi.BulkStore, off: func(b uint64) uint64 { return b + 4096 }, addr: func(uint64) uint64 { return 1024 }, n: func(uint64) uint64 { return 8 }, trap: "outside every kernel memory block"},
		{name: "load past the end of linear memory", op: abi.BulkLoad, off: func(b uint64) uint64 { return b }, addr: func(uint64) uint64 { return 65536 - 8 }, n: func(uint64) uint64 { return 112 }, trap: "outside the module's memory"},
		{name: "a guest address past 4 GiB", op: abi.BulkLoad, off: func(b uint64) uint64 { return b }, addr: func(uint64) uint64 { return 1 << 40 }, n: func(uint64) uint64 { return 8 }, trap: "outside the module's memory"},
		{name: "an unknown operation", op: 9, off: func(b uint64) uint64 { return b }, addr: func(uint64) uint64 { return 1024 }, n: func(uint64) uint64 { return 8 }, trap: "unknown operation"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := newKernel()
			block, err := k.allocBytes(content)
			if err != nil {
				t.Fatal(err)
			}
			mod.Memory().Write(0, make([]byte, 65536))
			if c.kernelGets {
				mod.Memory().Write(uint32(c.addr(block)), bytes.ToUpper(content))
			}
			setDesc(c.off(block), c.addr(block), c.n(block))
			n, trapped := run(k, bulkArg(c.op))
			if c.trap != "" {
				if !strings.Contains(trapped, c.trap) {
					t.Fatalf("trap %q, want one saying %q", trapped, c.trap)
				}
				return
			}
			if trapped != "" || n != c.want {
				t.Fatalf("length = %d (trap %q), want %d", n, trapped, c.want)
			}
			if c.guestGetsData {
				if got, _ := mod.Memory().Read(uint32(c.addr(block)), 112); !bytes.Equal(got, content) {
					t.Errorf("linear memory holds %q", got)
				}
			}
			if c.kernelGets {
				if got, _ := k.block(block); !bytes.Equal(got, bytes.ToUpper(content)) {
					t.Errorf("the block holds %q", got)
				}
			}
		})
	}
	t.Run("an ordinary length", func(t *testing.T) {
		k := newKernel()
		block, _ := k.allocBytes(content)
		if n, _ := run(k, block); n != 112 {
			t.Errorf("length of the block = %d", n)
		}
		if n, _ := run(k, block+8); n != 0 {
			t.Errorf("length inside the block = %d", n)
		}
	})
	t.Run("no memory", func(t *testing.T) {
		empty, err := rt.Instantiate(ctx, memoryModule[:8])
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "exports no memory") {
				t.Errorf("trap %v", p)
			}
		}()
		newKernel().importLength(empty, []uint64{bulkArg(abi.BulkLoad)})
	})
}
