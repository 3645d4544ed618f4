//go:build !linux

package pathpolicy

// probeDir has no single-call answer outside Linux (openat2): the
// caller walks the path component by component.
func probeDir(string) probeResult { return probeUnknown }

// probePath has no single-call answer outside Linux either.
func probePath(string) probeResult { return probeUnknown }
