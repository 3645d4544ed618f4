package host

// Limits every plugin runs under. abi/README.md states them for plugin
// authors (section "Limits"); these are the values the host enforces.
const (
	// MaxOutputBytes bounds an export's output (output_set), its error
	// message (error_set) and, together, the chunks one call streams.
	MaxOutputBytes = 32 << 20
	// MaxKernelMemory bounds the kernel memory (blocks) of one call.
	MaxKernelMemory = 256 << 20
	// MaxBlocks bounds the kernel blocks one call allocates (freed blocks
	// included; the kernel's reset starts the count again).
	MaxBlocks = 1 << 20
	// MaxVarBytes bounds an instance's Extism variables (values).
	MaxVarBytes = 1 << 20
	// MaxHTTPBody bounds an HTTP response body read for a plugin, and the
	// body it sends.
	MaxHTTPBody = 50 << 20
	// MaxChunks bounds the chunks one call streams with wasmtools_emit.
	MaxChunks = 10_000
	// MaxLogMessages and MaxLogBytes bound what one call (or one
	// instance's start) writes to the log, through the kernel's log_*
	// functions and standard output and error together; MaxLogMessage
	// bounds one message (longer ones are cut). Past either call limit
	// the rest is dropped, and one warning says how much.
	MaxLogMessages = 1000
	MaxLogBytes    = 1 << 20
	MaxLogMessage  = 4096
	// MaxSchemaBytes and MaxSchemaDepth bound a tool's input_schema: its
	// size as JSON, and how deeply its objects and arrays nest (the
	// schema itself is depth 1). A schema past either is refused before
	// it is compiled, and its plugin with it.
	MaxSchemaBytes = 256 << 10
	MaxSchemaDepth = 64
	// MaxToolsPerModule bounds the tools one module provides.
	MaxToolsPerModule = 256
	// MaxInstanceGrowth is how much an instance's linear memory may grow
	// past its size after start-up and still be reused: an instance that
	// grew more is closed after its call, so that a call that needed much
	// memory does not leave it held by an idle instance.
	MaxInstanceGrowth = 16 << 20
	// keepBuffer is the capacity of the kernel's arena and output buffer
	// kept between calls; larger ones are released.
	keepBuffer = 1 << 20
)
