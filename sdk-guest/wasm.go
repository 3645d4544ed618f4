//go:build wasip1

package guest

import (
	"encoding/json"
	"errors"
	"runtime"
	"unsafe"

	"github.com/wasmtools/wasmtools/abi"
)

// This file is the SDK's Wasm side: the Extism kernel imports, moving
// bytes between the plugin's memory and kernel memory, and the six
// exports. It builds only for GOOS=wasip1, and the plugin must be built
// with -buildmode=c-shared (a WASI reactor): a plain `go build` makes a
// command whose _start runs main once and exits, which cannot serve
// calls.

//go:wasmimport extism:host/env input_length
func kInputLength() uint64

//go:wasmimport extism:host/env input_load_u64
func kInputLoadU64(i uint64) uint64

//go:wasmimport extism:host/env input_load_u8
func kInputLoadU8(i uint64) uint32

//go:wasmimport extism:host/env alloc
func kAlloc(n uint64) uint64

//go:wasmimport extism:host/env free
func kFree(offset uint64)

//go:wasmimport extism:host/env length
func kLength(offset uint64) uint64

//go:wasmimport extism:host/env load_u64
func kLoadU64(offset uint64) uint64

//go:wasmimport extism:host/env load_u8
func kLoadU8(offset uint64) uint32

//go:wasmimport extism:host/env store_u64
func kStoreU64(offset uint64, v uint64)

//go:wasmimport extism:host/env store_u8
func kStoreU8(offset uint64, v uint32)

//go:wasmimport extism:host/env output_set
func kOutputSet(offset uint64, n uint64)

//go:wasmimport extism:host/env error_set
func kErrorSet(offset uint64)

//go:wasmimport extism:host/env config_get
func kConfigGet(key uint64) uint64

//go:wasmimport extism:host/env http_request
func kHTTPRequest(req uint64, body uint64) uint64

//go:wasmimport extism:host/env http_status_code
func kHTTPStatusCode() int32

//go:wasmimport extism:host/env http_headers
func kHTTPHeaders() uint64

//go:wasmimport extism:host/env get_log_level
func kGetLogLevel() int32

//go:wasmimport extism:host/env log_trace
func kLogTrace(offset uint64)

//go:wasmimport extism:host/env log_debug
func kLogDebug(offset uint64)

//go:wasmimport extism:host/env log_info
func kLogInfo(offset uint64)

//go:wasmimport extism:host/env log_warn
func kLogWarn(offset uint64)

//go:wasmimport extism:host/env log_error
func kLogError(offset uint64)

//go:wasmimport extism:host/user wasmtools_emit
func kEmit(chunk uint64)

//go:wasmimport extism:host/env input_offset
func kInputOffset() uint64

// Moving bytes. Every kernel call crosses into the host and costs the
// same whatever it moves. A wasmtools host copies a whole block in one
// call (the bulk copies of abi.BulkTag, carried by length); on any other
// Extism host that call answers 0, and bytes go eight at a time with the
// u64 functions. The last n mod 8 bytes of a block of 8 bytes or more
// are moved with one more u64 call that overlaps the previous word; only
// blocks shorter than 8 bytes use the one-byte functions. Wasm is
// little-endian and allows unaligned access, as the kernel's u64
// functions assume.

func getU64(b []byte) uint64    { _ = b[7]; return *(*uint64)(unsafe.Pointer(&b[0])) }
func putU64(b []byte, v uint64) { _ = b[7]; *(*uint64)(unsafe.Pointer(&b[0])) = v }

// bulkMin is the smallest copy worth a bulk call: below it the u64 loop
// makes as few calls.
const bulkMin = 32

// bulk copies between the kernel block bytes at offset and b in one
// call (op is abi.BulkLoad or abi.BulkStore), and reports whether the
// host did it.
func bulk(op, offset uint64, b []byte) bool {
	if len(b) < bulkMin {
		return false
	}
	desc := [3]uint64{offset, uint64(uintptr(unsafe.Pointer(&b[0]))), uint64(len(b))}
	done := kLength(abi.BulkTag<<48|op<<32|uint64(uintptr(unsafe.Pointer(&desc[0])))) == uint64(len(b))
	// The host read desc and b through their addresses.
	runtime.KeepAlive(&desc)
	runtime.KeepAlive(b)
	return done
}

// readInput copies the current input out of kernel memory.
func readInput() []byte {
	n := kInputLength()
	buf := make([]byte, n)
	if bulk(abi.BulkLoad, kInputOffset(), buf) {
		return buf
	}
	if n < 8 {
		for i := uint64(0); i < n; i++ {
			buf[i] = byte(kInputLoadU8(i))
		}
		return buf
	}
	var i uint64
	for ; i+8 <= n; i += 8 {
		putU64(buf[i:], kInputLoadU64(i))
	}
	if i < n {
		putU64(buf[n-8:], kInputLoadU64(n-8))
	}
	return buf
}

// readBlock copies a kernel block; offset 0 gives nil.
func readBlock(offset uint64) []byte {
	if offset == 0 {
		return nil
	}
	n := kLength(offset)
	buf := make([]byte, n)
	if bulk(abi.BulkLoad, offset, buf) {
		return buf
	}
	if n < 8 {
		for i := uint64(0); i < n; i++ {
			buf[i] = byte(kLoadU8(offset + i))
		}
		return buf
	}
	var i uint64
	for ; i+8 <= n; i += 8 {
		putU64(buf[i:], kLoadU64(offset+i))
	}
	if i < n {
		putU64(buf[n-8:], kLoadU64(offset+n-8))
	}
	return buf
}

// writeBlock allocates a kernel block holding b and returns its offset
// (0 for an empty b).
func writeBlock(b []byte) uint64 {
	n := uint64(len(b))
	if n == 0 {
		return 0
	}
	offset := kAlloc(n)
	if bulk(abi.BulkStore, offset, b) {
		return offset
	}
	if n < 8 {
		for i := uint64(0); i < n; i++ {
			kStoreU8(offset+i, uint32(b[i]))
		}
		return offset
	}
	var i uint64
	for ; i+8 <= n; i += 8 {
		kStoreU64(offset+i, getU64(b[i:]))
	}
	if i < n {
		kStoreU64(offset+n-8, getU64(b[n-8:]))
	}
	return offset
}

func writeString(s string) uint64 { return writeBlock(unsafe.Slice(unsafe.StringData(s), len(s))) }

// passthroughOutput is check_permissions' answer for a tool without Check.
var passthroughOutput = []byte(`{"behavior":"passthrough"}`)

// headBytes is how much of a check_permissions request is read first, to
// see whether it can be answered without its input (registry.passthrough).
const headBytes = 256

// collectAfter is the size of input and output past which a call ends
// with a garbage collection.
const collectAfter = 1 << 20

// serve runs one export: it reads the request, dispatches it, and sets
// the output or the error.
func serve(export string) int32 {
	if export == abi.ExportCheckPermissions {
		if n := kInputLength(); n > 2*headBytes {
			head := make([]byte, headBytes)
			if bulk(abi.BulkLoad, kInputOffset(), head) && defaultRegistry.passthrough(head) {
				kOutputSet(writeBlock(passthroughOutput), uint64(len(passthroughOutput)))
				return 0
			}
		}
	}
	// readInput returns a fresh buffer that nothing writes again.
	in := readInput()
	out, err := defaultRegistry.handleInput(export, in, true, nil)
	var rc int32
	if err != nil {
		msg := err.Error()
		if msg == "" {
			msg = export + " failed"
		}
		kErrorSet(writeString(msg))
		rc = 1
	} else {
		kOutputSet(writeBlock(out), uint64(len(out)))
	}
	// Let the runtime's other goroutines run, the garbage collector's
	// workers among them: once an export returns, the Go scheduler gets
	// no other chance to run them, and the heap would only grow. After a
	// large input, collect at once instead: the next large call then
	// reuses this one's memory rather than growing linear memory again
	// (which never shrinks, and which the host copies as it grows) while
	// a collection is still under way.
	if len(in)+len(out) >= collectAfter {
		runtime.GC()
	} else {
		runtime.Gosched()
	}
	return rc
}

//go:wasmexport schema
func exportSchema() int32 { return serve(abi.ExportSchema) }

//go:wasmexport check_permissions
func exportCheckPermissions() int32 { return serve(abi.ExportCheckPermissions) }

//go:wasmexport call
func exportCall() int32 { return serve(abi.ExportCall) }

//go:wasmexport check_read_only
func exportCheckReadOnly() int32 { return serve(abi.ExportCheckReadOnly) }

//go:wasmexport match_rule
func exportMatchRule() int32 { return serve(abi.ExportMatchRule) }

//go:wasmexport generate_suggestions
func exportGenerateSuggestions() int32 { return serve(abi.ExportGenerateSuggestions) }

func hostEmit(c abi.Chunk) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	kEmit(writeBlock(b)) // the host frees the block
	return nil
}

func hostLogLevel() int32 { return kGetLogLevel() }

func hostLog(level int32, msg string) {
	if msg == "" {
		return
	}
	offset := writeString(msg) // the host frees the block
	switch level {
	case levelTrace:
		kLogTrace(offset)
	case levelDebug:
		kLogDebug(offset)
	case levelInfo:
		kLogInfo(offset)
	case levelWarn:
		kLogWarn(offset)
	default:
		kLogError(offset)
	}
}

func hostConfig(key string) (string, bool) {
	if key == "" {
		return "", false
	}
	k := writeString(key)
	v := kConfigGet(k)
	kFree(k)
	if v == 0 {
		return "", false
	}
	val := readBlock(v)
	kFree(v)
	return string(val), true
}

func hostHTTP(req HTTPRequest) (HTTPResponse, error) {
	meta, err := json.Marshal(abi.HTTPRequest{URL: req.URL, Method: req.Method, Headers: req.Headers})
	if err != nil {
		return HTTPResponse{}, err
	}
	// The host frees the request and body blocks (as the Extism kernel
	// does); freeing them here could free a block the host has reused
	// for the response.
	reqOffset := writeBlock(meta)
	bodyOffset := writeBlock(req.Body)
	respOffset := kHTTPRequest(reqOffset, bodyOffset)
	resp := HTTPResponse{Status: int(kHTTPStatusCode())}
	resp.Body = readBlock(respOffset)
	if respOffset != 0 {
		kFree(respOffset)
	}
	if h := kHTTPHeaders(); h != 0 {
		raw := readBlock(h)
		kFree(h)
		if err := json.Unmarshal(raw, &resp.Headers); err != nil {
			Log.Warn("guest.HTTP: the host's headers are not a JSON object: ", err)
		}
	}
	if resp.Status == 0 {
		return resp, errNoStatus
	}
	return resp, nil
}

var errNoStatus = errors.New("guest.HTTP: the host returned no status code")
