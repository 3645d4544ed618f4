//go:build !unix

package host

import "io/fs"

// oDirectory is 0 where the platform has no such open flag: the opened
// file's type is checked after the open instead (grantFS.OpenFile).
const oDirectory = 0

// inode returns 0 where stat has no inode number: size and modification
// time alone describe a module there.
func inode(fs.FileInfo) uint64 { return 0 }

// oNonblock is 0 where opens do not block on special files.
const oNonblock = 0
