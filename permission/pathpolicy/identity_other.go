//go:build !unix

package pathpolicy

import "io/fs"

// identity: file identities are compared on Unix only.
func identity(fs.FileInfo) (fileID, uint64, bool) { return fileID{}, 0, false }

// statID: no identities here.
func statID(string) (fileID, uint64, bool) { return fileID{}, 0, false }
