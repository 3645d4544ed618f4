package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunCounts runs go test on a fixture module with one test of each
// outcome and checks the counts, the printed failures and the report.
func TestRunCounts(t *testing.T) {
	tests := []struct {
		name         string
		ci           bool
		wantFailed   int
		wantFailures []string
	}{
		{"outside CI skips pass", false, 1, []string{"sample TestFails"}},
		{"under CI a skip not listed fails", true, 3, []string{
			"sample TestFails", "sample TestSkipsRefused (skipped under CI=true)", "sample TestSubtests/skips (skipped under CI=true)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			r := &run{
				name:    "sample",
				ci:      tt.ci,
				allowed: map[string]string{"sample TestSkipsAllowed": "a reason"},
				dir:     filepath.Join("testdata", "sample"),
				timeout: timeoutOf([]string{"-timeout", "2m"}),
				out:     &out,
			}
			code := r.goTest([]string{"-count=1", "-timeout", "2m", "."})
			if code != 1 {
				t.Errorf("exit code %d, want 1\n%s", code, out.String())
			}
			rep := r.report
			if rep.Passed != 3 || rep.Skipped != 3 || rep.Failed != tt.wantFailed {
				t.Errorf("passed %d, skipped %d, failed %d; want 3, 3, %d\n%s", rep.Passed, rep.Skipped, rep.Failed, tt.wantFailed, out.String())
			}
			if !slices.Equal(rep.Failures, tt.wantFailures) {
				t.Errorf("failures %q, want %q", rep.Failures, tt.wantFailures)
			}
			text := out.String()
			for _, want := range []string{"the failure's own words", "FAIL sample", "sample: 3 passed, " + strconv.Itoa(tt.wantFailed) + " failed, 3 skipped\n"} {
				if !strings.Contains(text, want) {
					t.Errorf("output lacks %q:\n%s", want, text)
				}
			}
			if strings.Contains(text, "a subtest skip") != tt.ci {
				t.Errorf("a refused skip's reason shown: %v, want %v", !tt.ci, tt.ci)
			}

			dir := t.TempDir()
			if err := r.writeReport(dir); err != nil {
				t.Fatal(err)
			}
			var summary bytes.Buffer
			ok, err := printSummary(&summary, dir)
			if err != nil || ok {
				t.Errorf("summary: ok %v, err %v", ok, err)
			}
			if last := lastLine(summary.String()); last != "total: 3 passed, "+strconv.Itoa(tt.wantFailed)+" failed, 3 skipped" {
				t.Errorf("summary's last line %q", last)
			}
			b, _ := os.ReadFile(filepath.Join(dir, "sample.json"))
			var back Report
			if err := json.Unmarshal(b, &back); err != nil || back.Failed != tt.wantFailed || len(back.Packages) != 1 {
				t.Errorf("report: %+v, %v", back, err)
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestTimeoutOf(t *testing.T) {
	tests := []struct {
		args []string
		want time.Duration
	}{
		{nil, 10 * time.Minute},
		{[]string{"-race", "-timeout", "9m", "./..."}, 9 * time.Minute},
		{[]string{"-timeout=90s"}, 90 * time.Second},
		{[]string{"--timeout=2m"}, 2 * time.Minute},
	}
	for _, tt := range tests {
		if got := timeoutOf(tt.args); got != tt.want {
			t.Errorf("timeoutOf(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

func TestReadAllowedSkips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skips")
	os.WriteFile(path, []byte("# comment\n\npkg TestA needs pwsh\n"), 0o644)
	got, err := readAllowedSkips(path)
	if err != nil || got["pkg TestA"] != "needs pwsh" || len(got) != 1 {
		t.Errorf("got %v, %v", got, err)
	}
	os.WriteFile(path, []byte("pkg TestA\n"), 0o644)
	if _, err := readAllowedSkips(path); err == nil || !strings.Contains(err.Error(), ":1:") {
		t.Errorf("a line without a reason: %v", err)
	}
}
