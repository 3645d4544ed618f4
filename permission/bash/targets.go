package bash

import (
	"strings"
)

// PathTarget is a path a command reads or writes.
type PathTarget struct {
	Word    Word
	AfterCd bool
	// Recursive targets are folders whose every file is read or written
	// (grep -r, find, tar -x, git checkout), or listed (ls, find, tree).
	Recursive bool
	// FollowLinks: a recursive reader follows the links below the folder
	// (grep -R, rg -L, find -L), reaching wherever they point.
	FollowLinks bool
}

// ReadTargets returns what a script reads the contents (or, for
// listings, the names) of: the file operands of known readers, files of
// input redirects, git's rev:path, :N:path and pathspecs, the folders of
// recursive searches and listings, the folders below which find -exec
// runs its command on {}, and files of file names (find -files0-from,
// tree --fromfile). unknown reports a reader whose operands are not all
// known statically.
func ReadTargets(s *Script) (targets []PathTarget, unknown bool) {
	add := func(c *Command, w Word, recursive bool) {
		if !w.Literal() {
			unknown = true
		}
		targets = append(targets, PathTarget{Word: w, AfterCd: c.AfterCd, Recursive: recursive})
	}
	for _, c := range s.Commands {
		if c.MoreArgs && (readers[c.Name] || listers[c.Name]) {
			unknown = true
		}
		if len(c.FindRoots) > 0 && readers[c.Name] {
			// find DIR -exec cat {} +: {} is whatever lies below DIR.
			for _, r := range c.FindRoots {
				add(c, r, true)
			}
		}
		switch {
		case c.Name == "git":
			gitReadTargets(c, add)
		case listers[c.Name]:
			roots := listRoots(c)
			for _, w := range roots {
				add(c, w, true)
			}
			for _, f := range optionValues(c.Name, c.Values(), 0, "fromfile") {
				add(c, Word{Raw: f, Value: f}, false)
			}
			if c.Name == "find" {
				for i, a := range c.Args {
					if a.Value == "-files0-from" && i+1 < len(c.Args) {
						add(c, c.Args[i+1], false)
					}
				}
			}
		case c.Name == "dd":
			for _, w := range c.Args {
				if v, ok := strings.CutPrefix(w.Value, "if="); ok {
					w.Value = v
					add(c, w, false)
				}
			}
		case readers[c.Name]:
			opts, recursive := recursiveReaderOptions(c)
			// Archivers and copiers given a folder read all of it.
			recursive = recursive || copiesTrees(c)
			ops := pathCandidates(c)
			if !readOnly(c) {
				ops = operands(c)
			}
			if recursive && len(ops) == 0 {
				// A recursive search without a folder searches the
				// current one.
				ops = append(ops, Word{Raw: ".", Value: "."})
			}
			for _, w := range ops {
				if w.Value == "{}" && len(c.FindRoots) > 0 {
					continue
				}
				add(c, w, recursive)
				targets[len(targets)-1].FollowLinks = opts.FollowLinks
			}
		}
	}
	for _, r := range s.Redirects {
		if r.Input() {
			targets = append(targets, PathTarget{Word: r.Target, AfterCd: anyAfterCd(s)})
			if !r.Target.Literal() {
				unknown = true
			}
		}
	}
	return targets, unknown
}

// copiesTrees reports a command that reads whole folders it is given:
// tar creating an archive, zip -r, diff -r, rsync -r/-a, cp -r/-a.
func copiesTrees(c *Command) bool {
	fs := flagsOf(c.Name, c.Values())
	switch c.Name {
	case "tar":
		first := ""
		if len(c.Args) > 0 && !strings.HasPrefix(c.Args[0].Value, "-") {
			first = c.Args[0].Value
		}
		return fs.short['c'] || fs.short['r'] || fs.short['u'] || fs.long["create"] || fs.long["append"] || strings.ContainsAny(first, "cru")
	case "zip", "diff", "rsync", "cp", "scp":
		return fs.short['r'] || fs.short['R'] || fs.short['a'] || fs.long["recursive"] || fs.long["archive"]
	}
	return false
}

// listers list what is below their operands.
var listers = setOf("ls", "find", "tree", "du", "dir", "vdir")

// listRoots returns the folders a lister lists (its operands; none means
// the current folder).
func listRoots(c *Command) []Word {
	var out []Word
	switch c.Name {
	case "find":
		out = findRoots(c)
	default:
		out = operands(c)
	}
	if len(out) == 0 {
		out = []Word{{Raw: ".", Value: "."}}
	}
	return out
}

// gitReadTargets: files named by rev:path and :N:path, the pathspecs of
// subcommands that show contents, and the tree git grep searches.
func gitReadTargets(c *Command, add func(*Command, Word, bool)) {
	sub, rest, _ := gitSubcommand(c.Values())
	showsContent := false
	switch sub {
	case "diff", "blame", "show", "cat-file", "log", "grep", "shortlog", "whatchanged", "archive", "format-patch", "ls-files", "ls-tree":
		showsContent = true
	}
	start := len(c.Args) - len(rest)
	specs := 0
	dashdash := false
	for i, w := range c.Args {
		if i < start {
			continue
		}
		v := w.Value
		if v == "--" {
			dashdash = true
			continue
		}
		if strings.HasPrefix(v, "-") && !dashdash {
			continue
		}
		if rev, p, ok := strings.Cut(v, ":"); ok && !dashdash && !strings.HasPrefix(v, ":(") {
			if stage, p2, ok := strings.Cut(p, ":"); ok && rev == "" && len(stage) == 1 && stage[0] >= '0' && stage[0] <= '3' {
				p = p2 // :N:path, a stage of the index
			}
			if p != "" {
				w.Value = p
				add(c, w, false)
				specs++
				continue
			}
		}
		if showsContent {
			// Before --, an operand is a revision or a path: count it as
			// a path (a revision named like a protected path is rare; a
			// path read unnoticed is not).
			w.Glob = w.Glob || strings.ContainsAny(v, "*?[")
			add(c, w, true)
			specs++
		}
	}
	// Without a pathspec, showing contents reads the whole repository:
	// git log -p, git show, git diff, git cat-file --batch-all-objects
	// print every file's contents in history, Read-ruled ones included.
	if sub == "archive" || specs == 0 && showsContent && sub != "ls-files" && sub != "ls-tree" && (sub != "log" && sub != "shortlog" || logShowsPatches(rest)) {
		add(c, Word{Raw: ".", Value: "."}, true)
	}
}

// logShowsPatches reports git log options that print file contents.
func logShowsPatches(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case a == "-p" || a == "-u" || a == "--patch" || a == "--patch-with-stat" || a == "--patch-with-raw" || a == "--full-diff" ||
			strings.HasPrefix(a, "-G") || strings.HasPrefix(a, "-S") || strings.HasPrefix(a, "-L") || strings.HasPrefix(a, "--word-diff") ||
			a == "--cc" || a == "-c" || a == "-m" || a == "--textconv":
			return true
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "pu"):
			return true
		}
	}
	return false
}

// WriteTargets returns the paths a script may write, create, remove or
// change: output redirects, the operands of commands that change files
// (rm, mv, cp, touch, mkdir, ln, tee, chmod, sed -i, truncate, ...), dd's
// of=, download outputs, archive extractions and git commands that
// rewrite the work tree (whose targets are whole folders: Recursive).
// unknown reports a writer whose targets are not all known statically.
// Programs not known to write (make, a script) give no target: what they
// do is up to the OS sandbox.
func WriteTargets(s *Script) (targets []PathTarget, unknown bool) {
	add := func(c *Command, w Word, recursive bool) {
		if !w.Literal() {
			unknown = true
		}
		afterCd := false
		if c != nil {
			afterCd = c.AfterCd
		}
		targets = append(targets, PathTarget{Word: w, AfterCd: afterCd, Recursive: recursive})
	}
	cwd := Word{Raw: ".", Value: "."}
	for _, c := range s.Commands {
		if c.Name == "" {
			continue
		}
		if c.MoreArgs && fileWriters[c.Name] {
			unknown = true
		}
		args := c.Values()
		switch c.Name {
		case "rm", "rmdir", "unlink", "touch", "mkdir", "truncate", "shred", "tee", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd":
			for _, w := range operands(c) {
				add(c, w, c.Name == "rm")
			}
		case "chmod", "chown", "chgrp", "chattr", "setfacl":
			ops := operands(c)
			if len(ops) > 0 && !hasLong(args, "--reference") {
				ops = ops[1:] // the mode or owner
			}
			for _, w := range ops {
				add(c, w, flagsOf(c.Name, args).short['R'])
			}
		case "mv":
			for _, w := range operands(c) {
				add(c, w, true) // the source goes away, the destination appears
			}
			for _, v := range optionValues("mv", args, 't', "target-directory") {
				add(c, Word{Raw: v, Value: v}, true)
			}
		case "cp", "install", "ln", "rsync", "scp":
			ops := operands(c)
			dirs := optionValues(c.Name, args, 't', "target-directory")
			for _, v := range dirs {
				add(c, Word{Raw: v, Value: v}, true)
			}
			switch {
			case len(dirs) > 0:
				// cp -t DIR SRC...: DIR/basename(SRC), which may be a link.
				for _, d := range dirs {
					for _, src := range ops {
						add(c, intoDir(Word{Raw: d, Value: d}, src), false)
					}
				}
			case len(ops) == 1 && c.Name == "ln":
				add(c, cwd, true) // ln -s TARGET: a link in the current folder
			case len(ops) > 0:
				dst := ops[len(ops)-1]
				add(c, dst, true)
				// When DST is a folder, each source lands at DST/basename,
				// which may already be a link pointing elsewhere.
				for _, src := range ops[:len(ops)-1] {
					add(c, intoDir(dst, src), false)
				}
			}
		case "sed":
			if o := parseSed(c); o.inPlace {
				for _, w := range o.files {
					add(c, w, false)
				}
			}
		case "dd":
			for _, w := range c.Args {
				if v, ok := strings.CutPrefix(w.Value, "of="); ok {
					w.Value = v
					add(c, w, false)
				}
			}
		case "curl":
			for _, v := range optionValues("curl", args, 'o', "output") {
				add(c, Word{Raw: v, Value: v}, false)
			}
			if hasShortOrLong(args, "OJ", "--remote-name", "--remote-name-all", "--remote-header-name") {
				dir := optionValues("curl", args, 0, "output-dir")
				if len(dir) > 0 {
					add(c, Word{Raw: dir[0], Value: dir[0]}, true)
				} else {
					add(c, cwd, true)
				}
			}
		case "wget":
			outs := optionValues("wget", args, 'O', "output-document")
			for _, v := range outs {
				add(c, Word{Raw: v, Value: v}, false)
			}
			if len(outs) == 0 {
				dirs := optionValues("wget", args, 'P', "directory-prefix")
				if len(dirs) > 0 {
					add(c, Word{Raw: dirs[0], Value: dirs[0]}, true)
				} else {
					add(c, cwd, true)
				}
			}
		case "tar":
			fs := flagsOf("tar", args)
			first := ""
			if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
				first = args[0] // tar xf a.tar: old-style letters
			}
			switch {
			case fs.short['x'] || fs.long["extract"] || fs.long["get"] || strings.Contains(first, "x"):
				dirs := optionValues("tar", args, 'C', "directory")
				if len(dirs) == 0 {
					add(c, cwd, true)
				}
				for _, d := range dirs {
					add(c, Word{Raw: d, Value: d}, true)
				}
			case fs.short['c'] || fs.short['r'] || fs.short['u'] || fs.short['A'] || strings.ContainsAny(first, "cruA"):
				for _, v := range optionValues("tar", args, 'f', "file") {
					add(c, Word{Raw: v, Value: v}, false)
				}
			}
		case "unzip", "7z", "bsdtar", "cpio", "patch":
			dirs := optionValues(c.Name, args, 'd', "directory")
			if len(dirs) == 0 {
				add(c, cwd, true)
			}
			for _, d := range dirs {
				add(c, Word{Raw: d, Value: d}, true)
			}
		case "git":
			sub, rest, _ := gitSubcommand(args)
			switch sub {
			case "checkout", "switch", "restore", "reset", "merge", "pull", "rebase", "stash", "apply", "am",
				"cherry-pick", "revert", "clean", "rm", "mv", "worktree", "submodule", "init", "sparse-checkout":
				add(c, cwd, true)
			case "clone":
				ops := positionals(rest, nil)
				if len(ops) >= 2 {
					add(c, Word{Raw: ops[1], Value: ops[1]}, true)
				} else {
					add(c, cwd, true)
				}
			}
		}
	}
	for _, r := range s.Redirects {
		if r.Output() && !harmlessOutput(cleanAbs(r.Target.Value)) {
			add(nil, r.Target, false)
			if anyAfterCd(s) {
				targets[len(targets)-1].AfterCd = true
			}
		}
	}
	return targets, unknown
}

// fileWriters are the commands WriteTargets knows to write files.
var fileWriters = setOf("rm", "rmdir", "unlink", "touch", "mkdir", "truncate", "shred", "tee", "chmod", "chown", "chgrp",
	"chattr", "setfacl", "mv", "cp", "install", "ln", "rsync", "scp", "sed", "dd", "curl", "wget", "tar", "unzip", "7z",
	"bsdtar", "cpio", "patch", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd")

// intoDir is the path a source lands at when copied or moved into the
// folder dst: dst/basename(src).
func intoDir(dst, src Word) Word {
	base := src.Value
	if i := strings.LastIndex(strings.TrimRight(base, "/"), "/"); i >= 0 {
		base = strings.TrimRight(base, "/")[i+1:]
	}
	w := dst
	w.Value = strings.TrimSuffix(dst.Value, "/") + "/" + base
	w.Vars = append(append([]string(nil), dst.Vars...), src.Vars...)
	w.Dynamic = dst.Dynamic || src.Dynamic
	w.Glob = dst.Glob || src.Glob
	return w
}
