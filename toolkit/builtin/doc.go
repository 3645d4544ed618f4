// Package builtin holds the native tools every agent needs (Bash,
// PowerShell on Windows, Read, Write, Edit, Glob, Grep, the task tools
// TaskCreate, TaskGet, TaskList, TaskUpdate and TodoWrite, and AskUser)
// and the Backend they run on.
//
// Tools never touch the operating system directly: they go through a
// [Backend], so the same tools work against the local machine
// ([LocalBackend]) or a container or remote host.
package builtin
