// Package pathpolicy is the one path policy every tool's permission check
// goes through: Read, Write, Edit, Glob, Grep, the shell analysis, and
// anything else that takes a path.
//
// A path is judged by what the operating system would open, not by how it
// is spelled. [Policy.Resolve] makes a path absolute against the caller's
// directory and resolves it as the kernel would: symbolic links
// (component by component, as far as the path exists, dangling links
// included), ".." applied after the link it follows, and the /proc
// spellings of the file system's root and of a process's working
// directory (/proc/self/root, /proc/self/cwd, /proc/PID/...). Checks then
// apply to both the spelling and the resolution, so neither a link nor a
// detour through /proc hides a path.
//
// Three questions are answered here:
//
//   - Is a path sensitive? ([Policy.Sensitive]) Credential stores, shell
//     start-up files, version-control internals, a process's environment
//     and memory: reading them is never automatic, changing them is a
//     safety question.
//   - Is a path inside the working directories? ([Policy.Inside]) Both the
//     path and the directories are resolved.
//   - Does a path rule (the content of Read(...), Edit(...), Write(...))
//     name a path? ([Policy.Match]) Rules are doublestar globs written
//     "//abs/**" or "/abs/**" (absolute), "~/..." (home) or relative to
//     each working directory, and match the spelling or the resolution for
//     deny and ask rules, the resolution for allow rules.
//
// A Policy only reads the file system (lstat, readlink, directory
// listings for the bounded tree scan); it never changes it. It is safe for
// concurrent use.
package pathpolicy
