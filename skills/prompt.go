package skills

import (
	"fmt"
	"strings"
)

// Prompt returns the system-prompt fragment that lists skills: name,
// description and where each lives, and how to read them. It returns ""
// when there are no skills, so callers can append it unconditionally.
func Prompt(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Skills\n\n")
	fmt.Fprintf(&b, "Skills are folders of instructions, scripts and resources for specific tasks. "+
		"They are not tools and cannot be called. When a task matches a skill's description, first read the skill "+
		"with the %s tool (input: the skill's name), then follow it; read the other files it mentions with the same "+
		"tool and their path.\n\n", ViewerName)
	for _, s := range skills {
		fmt.Fprintf(&b, "- **%s**: %s", s.Name, oneLine(s.Description))
		if s.Dir != "" {
			fmt.Fprintf(&b, " (folder: %s)", s.Dir)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
