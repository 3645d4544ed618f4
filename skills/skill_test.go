package skills

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Skill
		wantErr string
	}{
		{
			name: "minimal",
			in:   "---\nname: pdf\ndescription: Work with PDF files.\n---\n# PDF\nUse it.\n",
			want: Skill{Name: "pdf", Description: "Work with PDF files.", Body: "# PDF\nUse it.\n"},
		},
		{
			name: "BOM and CRLF",
			in:   "\ufeff---\r\nname: pdf\r\ndescription: Work with PDF files.\r\n---\r\n\r\nBody\r\n",
			want: Skill{Name: "pdf", Description: "Work with PDF files.", Body: "Body\n"},
		},
		{
			name: "all fields, tools as a string",
			in: "---\nname: x\ndescription: d\nlicense: MIT\nallowed-tools: Read, Grep Bash\n" +
				"metadata:\n  tool-group: docs\n  version: 2\n---\n",
			want: Skill{Name: "x", Description: "d", License: "MIT", AllowedTools: []string{"Read", "Grep", "Bash"},
				Metadata: map[string]any{"tool-group": "docs", "version": 2}, Activates: "docs"},
		},
		{
			name: "tools as a list, empty body",
			in:   "---\nname: x\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(git:*)\n---",
			want: Skill{Name: "x", Description: "d", AllowedTools: []string{"Read", "Bash(git:*)"}},
		},
		{name: "no front matter", in: "# Title\n", wantErr: "no front matter"},
		{name: "unclosed", in: "---\nname: x\ndescription: d\n", wantErr: "not closed"},
		{name: "no name", in: "---\ndescription: d\n---\n", wantErr: `"name" is required`},
		{name: "no description", in: "---\nname: x\n---\n", wantErr: `"description" is required`},
		{name: "blank description", in: "---\nname: x\ndescription: \"  \"\n---\n", wantErr: `"description" is required`},
		{name: "bad YAML", in: "---\nname: [x\ndescription: d\n---\n", wantErr: "front matter"},
		{name: "tools as a map", in: "---\nname: x\ndescription: d\nallowed-tools: {a: b}\n---\n", wantErr: "allowed-tools"},
		{
			name: "member of a group",
			in:   "---\nname: x\ndescription: d\nmetadata: {group: ops, tool-group: deploy}\n---\n",
			want: Skill{Name: "x", Description: "d", Metadata: map[string]any{"group": "ops", "tool-group": "deploy"}, Group: "ops", Activates: "deploy"},
		},
		{name: "group not a string", in: "---\nname: x\ndescription: d\nmetadata: {tool-group: [a]}\n---\n", wantErr: "tool-group"},
		{name: "empty header", in: "---\n---\nbody", wantErr: `"name" is required`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !sameSkill(got, tt.want) {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nname: pdf\ndescription: d\nallowed-tools: [a, b]\n---\nbody"))
	f.Add([]byte("\ufeff---\r\nname: x\r\n---\r\n"))
	f.Add([]byte("---\n---"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		if s.Name == "" || s.Description == "" {
			t.Fatalf("Parse accepted a skill without name or description: %+v", s)
		}
		if slices.Contains(s.AllowedTools, "") {
			t.Fatalf("empty tool name in %q", s.AllowedTools)
		}
	})
}
