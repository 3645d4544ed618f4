package wasmbin

import (
	"fmt"
	"math"
)

// Names of the exports Instrument adds.
const (
	// InterruptExport names the interrupt flag: a mutable i32 global,
	// zero while the guest may run. Any other value makes the guest trap
	// (unreachable) the next time its budget is spent.
	InterruptExport = "wasmtools:interrupt"
	// BudgetExport names the budget: a mutable i32 global the checks
	// count down (see Budget). A host that sets the flag sets the budget
	// to 0 too, so that the flag is read at the guest's next check; the
	// guest may overwrite that store with its own (both write the global
	// without a lock), so the host repeats it until the call ends, and
	// at worst the flag is read when the budget runs out by itself.
	BudgetExport = "wasmtools:budget"
	// StartExport names the module's start function when it had one.
	// Instrument removes the start section, so that instantiating runs no
	// guest code; the host calls this export right after instantiating,
	// with the flag armed, which is what the start section would have
	// done without a way to stop it.
	StartExport = "wasmtools:start"
)

// Instrumented is a module rewritten by Instrument.
type Instrumented struct {
	// Wasm is the rewritten binary.
	Wasm []byte
	// Checks counts the checks added: one per function body, one per
	// loop and one per bulk memory or table instruction.
	Checks int
	// Start reports that the module had a start function, now exported
	// as StartExport.
	Start bool
}

// Instrument returns the module with the interrupt flag and its checks
// added (see the package documentation). It fails, naming the cause, on a
// binary it cannot read or that uses features beyond WebAssembly 2.0; it
// does not validate what it copies, which the compiler does.
func Instrument(wasm []byte) (*Instrumented, error) {
	// Every section is checked as Check does, the code section by
	// instrumentCode's own walk through it.
	secs, err := split(wasm)
	if err != nil {
		return nil, err
	}
	for _, s := range secs {
		if s.id == secCode {
			continue
		}
		if err := checkSection(s.id, s.body); err != nil {
			return nil, err
		}
	}
	in := &Instrumented{}
	out := make([]byte, 0, len(wasm)+len(wasm)/8+64)
	out = append(out, wasm[:8]...)

	var (
		importGlobals uint32
		budget, flag  uint32 // the added globals' indices, once known
		flagKnown     bool
		exported      bool
		start         uint32
		hasStart      bool
	)
	// globalSection emits the global section with the flag appended;
	// defined is the body of the module's own global section, if any.
	globalSection := func(defined []byte) error {
		var n uint32
		var rest []byte
		if defined != nil {
			r := &reader{b: defined}
			var err error
			if n, err = r.u32(); err != nil {
				return fmt.Errorf("global section: %w", err)
			}
			rest = defined[r.pos:]
			// Read every global, so that the added ones follow the last
			// rather than bytes the compiler would read as something else.
			for i := uint32(0); i < n; i++ {
				if err := skipGlobal(r); err != nil {
					return fmt.Errorf("global %d: %w", i, err)
				}
			}
			if !r.done() {
				return fmt.Errorf("global section: %d bytes after the last global", len(defined)-r.pos)
			}
		}
		budget, flag, flagKnown = importGlobals+n, importGlobals+n+1, true
		body := appendU32(nil, n+2)
		body = append(body, rest...)
		body = append(body, 0x7f, 0x01, 0x41) // mut i32 = i32.const Budget
		body = appendS32(body, Budget)
		body = append(body, 0x0b)
		body = append(body, 0x7f, 0x01, 0x41, 0x00, 0x0b) // mut i32 = i32.const 0
		out = appendSection(out, secGlobal, body)
		return nil
	}
	exportSection := func(existing []byte) error {
		var n uint32
		var rest []byte
		if existing != nil {
			r := &reader{b: existing}
			var err error
			if n, err = r.u32(); err != nil {
				return fmt.Errorf("export section: %w", err)
			}
			rest = existing[r.pos:]
			for i := uint32(0); i < n; i++ {
				name, err := r.name()
				if err != nil {
					return fmt.Errorf("export %d: %w", i, err)
				}
				if name == InterruptExport || name == BudgetExport || name == StartExport {
					return fmt.Errorf("the module already exports %q, a name reserved for the host", name)
				}
				kind, err := r.byte()
				if err != nil {
					return fmt.Errorf("export %d: %w", i, err)
				}
				index, err := r.u32()
				if err != nil {
					return fmt.Errorf("export %d: %w", i, err)
				}
				if kind == 0x03 && index >= budget {
					return fmt.Errorf("export %q names global %d, which the module does not have", name, index)
				}
			}
			if !r.done() {
				return fmt.Errorf("export section: %d bytes after the last export", len(existing)-r.pos)
			}
		}
		extra := uint32(2)
		if hasStart {
			extra++
		}
		body := appendU32(nil, n+extra)
		body = append(body, rest...)
		body = appendName(body, InterruptExport)
		body = append(body, 0x03)
		body = appendU32(body, flag)
		body = appendName(body, BudgetExport)
		body = append(body, 0x03)
		body = appendU32(body, budget)
		if hasStart {
			body = appendName(body, StartExport)
			body = append(body, 0x00)
			body = appendU32(body, start)
		}
		out = appendSection(out, secExport, body)
		exported = true
		return nil
	}
	// The start section follows the export section, which must name the
	// start function: find it first.
	for _, s := range secs {
		if s.id == secStart {
			r := &reader{b: s.body}
			if start, err = r.u32(); err != nil {
				return nil, fmt.Errorf("start section: %w", err)
			}
			hasStart = true
		}
	}
	in.Start = hasStart
	if !hasMemory(secs) {
		return nil, fmt.Errorf("the module has no linear memory, which the checks use to let the Go runtime in")
	}

	for _, s := range secs {
		if s.id == secCustom {
			if !positional(customName(s.body)) {
				out = appendSection(out, s.id, s.body)
			}
			continue
		}
		// Sections the module lacks are emitted where they belong.
		if !flagKnown && order[s.id] > order[secGlobal] {
			if err := globalSection(nil); err != nil {
				return nil, err
			}
		}
		if !exported && order[s.id] > order[secExport] {
			if err := exportSection(nil); err != nil {
				return nil, err
			}
		}
		switch s.id {
		case secImport:
			im, err := readImports(s.body)
			if err != nil {
				return nil, fmt.Errorf("import section: %w", err)
			}
			importGlobals = im.globals
			out = appendSection(out, s.id, s.body)
		case secGlobal:
			if err := globalSection(s.body); err != nil {
				return nil, err
			}
		case secExport:
			if err := exportSection(s.body); err != nil {
				return nil, err
			}
		case secStart:
			// Dropped: exported as StartExport instead.
		case secCode:
			params, err := paramCounts(secs)
			if err != nil {
				return nil, err
			}
			body, checks, err := instrumentCode(s.body, budget, flag, params)
			if err != nil {
				return nil, fmt.Errorf("code section: %w", err)
			}
			in.Checks = checks
			out = appendSection(out, s.id, body)
		case secTable:
			body, err := capTableSection(s.body, importedTables(secs))
			if err != nil {
				return nil, err
			}
			out = appendSection(out, s.id, body)
		case secTag:
			return nil, fmt.Errorf("the module uses exception handling (a tag section), beyond WebAssembly 2.0")
		default:
			out = appendSection(out, s.id, s.body)
		}
	}
	if !flagKnown {
		if err := globalSection(nil); err != nil {
			return nil, err
		}
	}
	if !exported {
		if err := exportSection(nil); err != nil {
			return nil, err
		}
	}
	in.Wasm = out
	return in, nil
}

func appendSection(out []byte, id byte, body []byte) []byte {
	out = append(out, id)
	out = appendU32(out, uint32(len(body)))
	return append(out, body...)
}

// Budget is how many checks a guest passes between two visits to the Go
// runtime.
//
// The Go runtime cannot stop a goroutine while it runs compiled Wasm: a
// guest that never left its machine code would hold up every
// stop-the-world phase of the garbage collector, and with it the whole
// process, including the timer that is to interrupt it. So each check
// counts down a budget, and when it runs out the guest grows its memory
// by zero pages, which wazero does in Go, where the runtime can pause the
// goroutine; then it refills the budget and reads the interrupt flag,
// trapping if it is set. A check is a few instructions; the flag is read
// only with the budget spent, which the host forces when it sets the
// flag (see BudgetExport).
const Budget = 1 << 12

// BulkCost is what a bulk memory or table instruction (fill, copy, init)
// takes from the budget, checked before it runs: such an instruction may
// cover the whole memory in one go, in machine code the Go runtime
// cannot interrupt, so a few of them make a visit to Go due.
const BulkCost = Budget / 16

// LoopChunk is how many iterations a loop runs on its function's local
// countdown between two checks of the budget. A check at a loop head
// counts down a local of the function (a register in the compiled code)
// rather than the budget (a global, read and written through the module
// instance in memory); once LoopChunk iterations are counted it takes
// them from the budget at once, which a tight loop (the rounds of a
// hash, a scan over a string) otherwise pays for at every iteration.
//
// The countdown starts full at each call, so iterations a call counted
// without taking them from the budget are lost when it returns: between
// two visits to the Go runtime a guest runs at most Budget checks'
// worth of calls, each with fewer than LoopChunk iterations of its own
// (Budget·LoopChunk loop iterations at worst, against Budget without the
// countdown); a loop that runs on spends the budget as before. An
// interrupt is heard within LoopChunk iterations or at the next call,
// whichever comes first.
const LoopChunk = 16

// instrumentCode rewrites the bodies of a code section, adding a check at
// the entry of each, after the block type of each loop and before each
// bulk instruction. params holds the number of parameters of each
// function the section defines, the first local's index.
func instrumentCode(code []byte, budget, flag uint32, params []uint32) ([]byte, int, error) {
	checks := [2][]byte{checkCode(budget, flag, 1), checkCode(budget, flag, BulkCost)}

	r := &reader{b: code}
	n, err := r.u32()
	if err != nil {
		return nil, 0, err
	}
	if uint64(n) != uint64(len(params)) {
		return nil, 0, fmt.Errorf("%d bodies for %d functions", n, len(params))
	}
	out := make([]byte, 0, len(code)+len(code)/8)
	out = appendU32(out, n)
	total := 0
	var body []byte
	for i := uint32(0); i < n; i++ {
		size, err := r.u32()
		if err != nil {
			return nil, 0, fmt.Errorf("body %d: %w", i, err)
		}
		src, err := r.bytes(uint64(size))
		if err != nil {
			return nil, 0, fmt.Errorf("body %d: %w", i, err)
		}
		var added int
		body, added, err = instrumentBody(body[:0], src, checks, budget, flag, params[i])
		if err != nil {
			return nil, 0, fmt.Errorf("body %d: %w", i, err)
		}
		total += added
		out = appendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	if !r.done() {
		return nil, 0, fmt.Errorf("%d bytes after the last body", len(code)-r.pos)
	}
	return out, total, nil
}

// instrumentBody appends to out the function body src with checks[0]
// inserted after its local declarations, a loop check (see loopCheck)
// after the block type of every loop, and checks[1] before every bulk
// instruction; it returns how many checks it inserted. A body with loops
// gets one more local, the loops' countdown, set to LoopChunk at entry;
// params is the function's number of parameters, which the declared
// locals follow.
//
// globals is the number of globals the module has: an instruction naming
// a global beyond them (the added ones, which such a module would reach
// once instrumented) is refused, or a guest could clear the interrupt
// flag or refill its budget.
func instrumentBody(out, src []byte, checks [2][]byte, globals, flag, params uint32) ([]byte, int, error) {
	type insertion struct {
		at   int
		bulk bool
	}
	var ins []insertion
	loops := false
	start, locals, err := walkBody(src, globals, params, func(at int, bulk bool) {
		ins = append(ins, insertion{at, bulk})
		loops = loops || !bulk
	})
	if err != nil {
		return nil, 0, err
	}
	var loop []byte
	if loops {
		// The countdown is a new local after the declared ones: one more
		// group of one i32.
		r := &reader{b: src}
		groups, err := r.u32()
		if err != nil {
			return nil, 0, err
		}
		countdown := params + uint32(locals)
		if uint64(params)+locals >= 1<<32-1 {
			return nil, 0, fmt.Errorf("no index left for another local")
		}
		out = appendU32(out, groups+1)
		out = append(out, src[r.pos:start]...)
		out = append(out, 0x01, 0x7f)
		out = append(out, checks[0]...)
		out = appendS32(append(out, 0x41), LoopChunk) // i32.const LoopChunk
		out = appendU32(append(out, 0x21), countdown) // local.set countdown
		loop = loopCheck(globals, flag, countdown)
	} else {
		out = append(out, src[:start]...)
		out = append(out, checks[0]...)
	}
	added := len(ins) + 1
	copied := start
	for _, in := range ins {
		out = append(out, src[copied:in.at]...)
		if in.bulk {
			out = append(out, checks[1]...)
		} else {
			out = append(out, loop...)
		}
		copied = in.at
	}
	return append(out, src[copied:]...), added, nil
}

// walkBody reads a function body: its local declarations, at most
// MaxLocals locals, then its instructions, each of which must be of
// WebAssembly 2.0 and name no global at or beyond globals, nor a local
// at or beyond params plus the declared locals (unless params is
// anyParams): the instrumented function gets a local of its own there,
// the loops' countdown, which such a body would reach. It returns
// where the instructions start and the number of locals it declares,
// and calls insert (when not nil) with the offset just after each loop's
// block type, and with the offset of each bulk memory or table
// instruction (bulk true).
func walkBody(src []byte, globals, params uint32, insert func(at int, bulk bool)) (start int, locals uint64, err error) {
	r := &reader{b: src}
	err = vector(r, func() error {
		n, err := r.u32()
		if err != nil {
			return err
		}
		if locals += uint64(n); locals > MaxLocals {
			return fmt.Errorf("more than %d locals", MaxLocals)
		}
		return valueTypeAt(r)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("locals: %w", err)
	}
	start = r.pos
	for !r.done() {
		opAt := r.pos
		op, err := r.byte()
		if err != nil {
			return 0, 0, err
		}
		at := r.pos
		if err := skipImmediates(r, op); err != nil {
			return 0, 0, fmt.Errorf("opcode 0x%02x at offset %d: %w", op, at, err)
		}
		switch op {
		case 0x03: // loop
			if insert != nil {
				insert(r.pos, false)
			}
		case 0x20, 0x21, 0x22: // local.get, local.set, local.tee
			ir := &reader{b: src, pos: at}
			if i, err := ir.u32(); params != anyParams && (err != nil || uint64(i) >= uint64(params)+locals) {
				return 0, 0, fmt.Errorf("local.%s of local %d, which the function does not have", map[byte]string{0x20: "get", 0x21: "set", 0x22: "tee"}[op], i)
			}
		case 0x23, 0x24: // global.get, global.set
			ir := &reader{b: src, pos: at}
			if i, err := ir.u32(); err != nil || i >= globals {
				return 0, 0, fmt.Errorf("global.%s of global %d, which the module does not have", map[byte]string{0x23: "get", 0x24: "set"}[op], i)
			}
		case 0xfc:
			ir := &reader{b: src, pos: at}
			switch sub, _ := ir.u32(); sub {
			case 8, 10, 11, 12, 14, 17: // memory.init, .copy, .fill; table.init, .copy, .fill
				if insert != nil {
					insert(opAt, true)
				}
			}
		}
	}
	return start, locals, nil
}

// anyParams makes walkBody check no local index (its caller does not
// know the function's parameters).
const anyParams = math.MaxUint32

// checkCode is the instruction sequence of a check that costs cost: take
// cost from the budget; when it is spent, visit the Go runtime
// (memory.grow 0), refill the budget, and trap if the interrupt flag is
// set.
func checkCode(budget, flag uint32, cost int32) []byte {
	c := appendU32([]byte{0x23}, budget)         // global.get budget
	c = appendS32(append(c, 0x41), cost)         // i32.const cost
	c = appendU32(append(c, 0x6b, 0x24), budget) // i32.sub, global.set budget
	c = appendU32(append(c, 0x23), budget)       // global.get budget
	c = append(c, 0x41, 0x00, 0x4c, 0x04, 0x40)  // i32.const 0, i32.le_s, if
	c = append(c, 0x41, 0x00, 0x40, 0x00, 0x1a)  //   i32.const 0, memory.grow 0, drop
	c = appendS32(append(c, 0x41), Budget)       //   i32.const Budget
	c = appendU32(append(c, 0x24), budget)       //   global.set budget
	c = appendU32(append(c, 0x23), flag)         //   global.get flag
	c = append(c, 0x04, 0x40, 0x00, 0x0b)        //   if unreachable end
	return append(c, 0x0b)                       // end
}

// loopCheck is the check at a loop head: count the local countdown
// down; when it is spent, take LoopChunk from the budget (the check of
// checkCode) and fill the countdown again.
func loopCheck(budget, flag, countdown uint32) []byte {
	c := appendU32([]byte{0x20}, countdown)     // local.get countdown
	c = append(c, 0x41, 0x01, 0x6b, 0x22)       // i32.const 1, i32.sub, local.tee
	c = appendU32(c, countdown)                 //   countdown
	c = append(c, 0x41, 0x00, 0x4c, 0x04, 0x40) // i32.const 0, i32.le_s, if
	c = append(c, checkCode(budget, flag, LoopChunk)...)
	c = appendS32(append(c, 0x41), LoopChunk) //   i32.const LoopChunk
	c = appendU32(append(c, 0x21), countdown) //   local.set countdown
	return append(c, 0x0b)                    // end
}

// paramCounts returns the number of parameters of each function the
// module defines (its function section's order, the code section's).
func paramCounts(secs []section) ([]uint32, error) {
	var types, funcs []uint32
	for _, s := range secs {
		switch s.id {
		case 1:
			r := &reader{b: s.body}
			err := vector(r, func() error {
				if _, err := r.byte(); err != nil { // 0x60, which checkSection checked
					return err
				}
				n, err := r.u32()
				if err != nil {
					return err
				}
				types = append(types, n)
				for range n {
					if err := valueTypeAt(r); err != nil {
						return err
					}
				}
				return vector(r, func() error { return valueTypeAt(r) })
			})
			if err != nil {
				return nil, fmt.Errorf("type section: %w", err)
			}
		case 3:
			r := &reader{b: s.body}
			err := vector(r, func() error {
				t, err := r.u32()
				if err != nil {
					return err
				}
				if uint64(t) >= uint64(len(types)) {
					return fmt.Errorf("function %d has type %d, which the module does not have", len(funcs), t)
				}
				funcs = append(funcs, types[t])
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("function section: %w", err)
			}
		}
	}
	return funcs, nil
}

// hasMemory reports whether a module imports or defines a linear memory.
func hasMemory(secs []section) bool {
	for _, s := range secs {
		switch s.id {
		case secImport:
			if im, err := readImports(s.body); err == nil && im.memory {
				return true
			}
		case secMemory:
			r := &reader{b: s.body}
			if n, err := r.u32(); err == nil && n > 0 {
				return true
			}
		}
	}
	return false
}

// valueType reports whether t is a WebAssembly 2.0 value type.
func valueType(t byte) bool {
	switch t {
	case 0x7f, 0x7e, 0x7d, 0x7c, // i32 i64 f32 f64
		0x7b,       // v128
		0x70, 0x6f: // funcref externref
		return true
	}
	return false
}

// skipImmediates reads past the immediates of the instruction whose
// opcode op was just read.
func skipImmediates(r *reader, op byte) error {
	var err error
	switch {
	case op == 0x02 || op == 0x03 || op == 0x04: // block loop if
		err = skipBlockType(r)
	case op == 0x0c || op == 0x0d: // br br_if
		_, err = r.u32()
	case op == 0x0e: // br_table
		var n uint32
		if n, err = r.u32(); err != nil {
			return err
		}
		for i := uint64(0); i <= uint64(n) && err == nil; i++ { // n labels and the default
			_, err = r.u32()
		}
	case op == 0x10: // call
		_, err = r.u32()
	case op == 0x11: // call_indirect: type, table
		if _, err = r.u32(); err == nil {
			_, err = r.u32()
		}
	case op == 0x1c: // select t*
		var n uint32
		if n, err = r.u32(); err != nil {
			return err
		}
		for i := uint32(0); i < n && err == nil; i++ {
			var t byte
			if t, err = r.byte(); err == nil && !valueType(t) {
				err = fmt.Errorf("unknown value type 0x%02x", t)
			}
		}
	case op >= 0x20 && op <= 0x26: // local.*, global.*, table.get/set
		_, err = r.u32()
	case op >= 0x28 && op <= 0x3e: // loads and stores
		err = skipMemArg(r)
	case op == 0x3f || op == 0x40: // memory.size memory.grow
		err = zeroByte(r)
	case op == 0x41: // i32.const
		_, err = r.leb(32)
	case op == 0x42: // i64.const
		_, err = r.leb(64)
	case op == 0x43: // f32.const
		_, err = r.bytes(4)
	case op == 0x44: // f64.const
		_, err = r.bytes(8)
	case op == 0xd0: // ref.null
		var t byte
		if t, err = r.byte(); err == nil && t != 0x70 && t != 0x6f {
			err = fmt.Errorf("unknown heap type 0x%02x", t)
		}
	case op == 0xd2: // ref.func
		_, err = r.u32()
	case op == 0xfc:
		err = skipMisc(r)
	case op == 0xfd:
		err = skipVector(r)
	case op <= 0x01, op == 0x05, op == 0x0b, op == 0x0f, // unreachable nop else end return
		op == 0x1a, op == 0x1b, // drop select
		op >= 0x45 && op <= 0xc4, // numeric, sign extension
		op == 0xd1:               // ref.is_null
	default:
		err = fmt.Errorf("not a WebAssembly 2.0 instruction")
	}
	return err
}

func skipBlockType(r *reader) error {
	if r.pos >= len(r.b) {
		return errTruncated
	}
	if t := r.b[r.pos]; t == 0x40 || valueType(t) {
		r.pos++
		return nil
	}
	// A type index: a non-negative signed 33-bit number. A negative one
	// other than the types above (0x63 or 0x64, a typed reference, which
	// wazero reads with one byte more) is beyond WebAssembly 2.0, and
	// reading it otherwise than the compiler would shift every
	// instruction after it.
	neg, err := r.sleb33()
	if err == nil && neg {
		err = fmt.Errorf("block type 0x%02x is beyond WebAssembly 2.0", r.b[r.pos-1])
	}
	return err
}

func skipMemArg(r *reader) error {
	align, err := r.u32()
	if err != nil {
		return err
	}
	if align >= 64 {
		return fmt.Errorf("memory index in a memarg (multiple memories), beyond WebAssembly 2.0")
	}
	_, err = r.u32() // offset
	return err
}

func zeroByte(r *reader) error {
	b, err := r.byte()
	if err == nil && b != 0 {
		err = fmt.Errorf("memory index %d, beyond WebAssembly 2.0", b)
	}
	return err
}

// skipMisc skips a 0xfc-prefixed instruction: saturating truncation, bulk
// memory and table instructions.
func skipMisc(r *reader) error {
	sub, err := r.subOpcode()
	if err != nil {
		return err
	}
	switch {
	case sub <= 7: // trunc_sat
		return nil
	case sub == 8: // memory.init data memory
		if _, err := r.u32(); err != nil {
			return err
		}
		return zeroByte(r)
	case sub == 9: // data.drop
		_, err = r.u32()
	case sub == 10: // memory.copy memory memory
		if err := zeroByte(r); err != nil {
			return err
		}
		return zeroByte(r)
	case sub == 11: // memory.fill memory
		return zeroByte(r)
	case sub == 12 || sub == 14: // table.init elem table, table.copy table table
		if _, err := r.u32(); err != nil {
			return err
		}
		_, err = r.u32()
	case sub == 13 || (sub >= 15 && sub <= 17): // elem.drop, table.grow/size/fill
		_, err = r.u32()
	default:
		return fmt.Errorf("0xfc %d is not a WebAssembly 2.0 instruction", sub)
	}
	return err
}

// skipVector skips a 0xfd-prefixed (SIMD) instruction.
func skipVector(r *reader) error {
	sub, err := r.subOpcode()
	if err != nil {
		return err
	}
	switch {
	case sub <= 11, sub == 92, sub == 93: // loads, store, load_zero
		return skipMemArg(r)
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		_, err = r.bytes(16)
	case sub >= 21 && sub <= 34: // extract_lane, replace_lane
		_, err = r.byte()
	case sub >= 84 && sub <= 91: // load_lane, store_lane
		if err := skipMemArg(r); err != nil {
			return err
		}
		_, err = r.byte()
	case sub <= 255: // the rest: no immediates
	default:
		return fmt.Errorf("0xfd %d is not a WebAssembly 2.0 instruction", sub)
	}
	return err
}
