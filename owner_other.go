//go:build !unix

package wasmtools

// othersMayHaveWritten: file ownership is not checked here; the working
// directories and writable paths still are.
func othersMayHaveWritten(string) bool { return false }
