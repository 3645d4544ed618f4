// Package skills serves Agent Skills: folders holding a SKILL.md whose YAML
// front matter names and describes the skill and whose body tells a model
// how to do something.
//
// A [Library] holds the skills a host serves, loaded from folders
// ([Library.LoadDir]) or given in memory ([Library.Add]). A skill that does
// not parse is never fatal: it is recorded as [Broken] with the reason and
// the last good version, if any, keeps serving. Folders are layers: a
// skill of a folder loaded later overrides the skill of the same name of
// an earlier folder, and [Library.Overridden] reports it.
//
// Skills are not tools. The model reads them through the viewer tool
// ([NewViewer], named "Skill"), and [Prompt] writes the system-prompt
// fragment that lists them. [Attach] registers the viewer on a toolkit as
// soon as the library holds a skill. A skill may be bound to a tool group:
// reading it activates that group for the session, so the tools the skill
// talks about appear exactly when the model needs them.
//
// [Watch] keeps a library in step with its folders while the host runs.
package skills
