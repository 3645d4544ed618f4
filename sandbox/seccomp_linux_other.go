//go:build linux && !amd64 && !arm64

package sandbox

// haveSocketFilter says the network-off socket filter exists here: not
// on this architecture, where only Landlock's TCP rules turn the
// network off.
const haveSocketFilter = false

var (
	nativeArch archTable
	compatArch *archTable
)
