package skills_test

import (
	"context"
	"fmt"

	"github.com/wasmtools/wasmtools/skills"
	"github.com/wasmtools/wasmtools/toolkit"
)

// A library of one in-memory skill, served through the Skill viewer of a
// toolkit, and the prompt fragment that tells the model about it.
func Example() {
	lib := skills.NewLibrary(skills.Options{})
	_ = lib.Add(skills.Skill{
		Name:        "release-notes",
		Description: "Write release notes from the git log.",
		Body:        "Run git log --oneline since the last tag, group by area, ...",
	})
	tk := toolkit.New(toolkit.Options{})
	if _, err := skills.Attach(tk, lib); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(skills.Prompt(lib.Skills()))

	ctx := context.Background()
	turn, _ := tk.NewTurn(ctx, "session-1", []toolkit.Call{
		{Name: skills.ViewerName, Arguments: `{"skill": "release-notes"}`},
	}, toolkit.TurnOptions{})
	_ = turn.Run(ctx)
	fmt.Println(turn.Responses()[0].Text())
	// Output:
	// ## Skills
	//
	// Skills are folders of instructions, scripts and resources for specific tasks. They are not tools and cannot be called. When a task matches a skill's description, first read the skill with the Skill tool (input: the skill's name), then follow it; read the other files it mentions with the same tool and their path.
	//
	// - **release-notes**: Write release notes from the git log.
	// Run git log --oneline since the last tag, group by area, ...
}
