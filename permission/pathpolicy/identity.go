package pathpolicy

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// maxCredentialFiles bounds the files whose identity a policy records.
const maxCredentialFiles = 20_000

// fileID is a file's identity: its device and inode.
type fileID struct{ dev, ino uint64 }

// identities are the identities of the files in the user's credential
// stores (Credentials), taken the first time a file with more than one
// name is judged: a hard link to a private key is the key, whatever it
// is called. Shared by a policy and its scoped copies.
type identities struct {
	once sync.Once
	home string
	set  map[fileID]string // identity -> the credential's path
}

func (ids *identities) load() {
	ids.set = map[fileID]string{}
	n := 0
	add := func(p string, info fs.FileInfo) {
		if id, links, ok := identity(info); ok && links > 0 && info.Mode().IsRegular() {
			if _, seen := ids.set[id]; !seen {
				ids.set[id] = p
			}
		}
		n++
	}
	for _, c := range Credentials(ids.home) {
		info, err := os.Stat(c)
		if err != nil {
			continue
		}
		if !info.IsDir() {
			add(c, info)
			continue
		}
		_ = filepath.WalkDir(c, func(p string, d fs.DirEntry, err error) error {
			if err != nil || n >= maxCredentialFiles {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() {
				if info, err := d.Info(); err == nil {
					add(p, info)
				}
			}
			return nil
		})
	}
}

// linkedCredential reports whether the file at real (resolved) is one of
// the user's credential files under another name (a hard link), and
// returns the credential's path. Only a file with more than one name is
// compared, so the credential stores are read only when one is met.
func (p *Policy) linkedCredential(real string) (string, bool) {
	if p.idents == nil {
		return "", false
	}
	id, links, regular := statID(real)
	if !regular || links < 2 {
		return "", false
	}
	p.idents.once.Do(p.idents.load)
	c, found := p.idents.set[id]
	return c, found && c != real
}

// LinksToCredentials walks the folders of roots for hard links to the
// user's credential files (regular files with more than one name whose
// identity is a credential's), visiting at most maxEntries entries in
// all. complete is false when it stopped at that bound or could not read
// a folder. Links do not lead the walk out of the roots.
func (p *Policy) LinksToCredentials(roots []string, maxEntries int) (links []string, complete bool) {
	complete = true
	n := 0
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				complete = false
				if d != nil && d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if n++; n > maxEntries {
				complete = false
				return filepath.SkipAll
			}
			if !d.Type().IsRegular() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if _, nlink, ok := identity(info); !ok || nlink < 2 {
				return nil
			}
			if _, ok := p.linkedCredential(path); ok {
				links = append(links, path)
			}
			return nil
		})
		if err != nil {
			complete = false
		}
	}
	return links, complete
}
