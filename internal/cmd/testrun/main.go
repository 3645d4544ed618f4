// Command testrun runs `go test -json` and reports it the way a person
// reads a CI log: one line per package with its time, the whole output of
// every failing test (and nothing of the passing ones), a clear line for
// a package that ran past its -timeout, the slowest tests, and a closing
// count.
//
// Usage:
//
//	testrun [-name NAME] [-report DIR] [-allowed-skips FILE] -- GO-TEST-ARGS...
//	testrun -summary DIR
//
// The first form runs `go test -json GO-TEST-ARGS...` in the current
// folder and writes DIR/NAME.json (default build/test-report/test.json).
// With CI=true in the environment a skipped test is a failure unless
// FILE lists it: CI must not pass on tests that did not run.
//
// The second form reads every report in DIR and prints one table of the
// passes, their times and counts, closing with the totals.
//
// The closing line of both forms is "NAME: N passed, N failed, N skipped".
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

func main() {
	name := flag.String("name", "test", "the pass's `name` in the log and the report")
	reportDir := flag.String("report", filepath.Join("build", "test-report"), "`folder` of the reports")
	allowedSkips := flag.String("allowed-skips", "", "`file` of the tests that may skip under CI=true, one \"PACKAGE TEST reason\" a line")
	summary := flag.String("summary", "", "print the reports in `folder` and exit")
	chdir := flag.String("C", "", "run go test in `folder` (another module)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: testrun [flags] -- GO-TEST-ARGS...\n       testrun -summary DIR\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *summary != "" {
		ok, err := printSummary(os.Stdout, *summary)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testrun:", err)
			os.Exit(2)
		}
		if !ok {
			os.Exit(1)
		}
		return
	}
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	allowed, err := readAllowedSkips(*allowedSkips)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testrun:", err)
		os.Exit(2)
	}
	r := &run{
		name:    *name,
		ci:      os.Getenv("CI") == "true",
		allowed: allowed,
		timeout: timeoutOf(flag.Args()),
		dir:     *chdir,
		out:     os.Stdout,
	}
	code := r.goTest(flag.Args())
	if err := r.writeReport(*reportDir); err != nil {
		fmt.Fprintln(os.Stderr, "testrun:", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

// event is one line of `go test -json` (cmd/test2json), with the build
// events of Go 1.24 and later.
type event struct {
	Time       time.Time
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string
}

// Report is what one pass leaves in the report folder.
type Report struct {
	Name     string          `json:"name"`
	Command  string          `json:"command"`
	Seconds  float64         `json:"seconds"`
	Passed   int             `json:"passed"`
	Failed   int             `json:"failed"`
	Skipped  int             `json:"skipped"`
	Packages []PackageResult `json:"packages"`
	// Failures names each failed test, package (a build failure, a
	// timeout, a crash outside any test) and refused skip.
	Failures []string     `json:"failures,omitempty"`
	Slowest  []TestResult `json:"slowest"`
	// GoTestExit is go test's exit code.
	GoTestExit int `json:"go_test_exit"`
}

// PackageResult is one package's outcome and wall time.
type PackageResult struct {
	Package string  `json:"package"`
	Result  string  `json:"result"`
	Seconds float64 `json:"seconds"`
}

// TestResult is one top-level test's outcome and time.
type TestResult struct {
	Package string  `json:"package"`
	Test    string  `json:"test"`
	Seconds float64 `json:"seconds"`
}

type run struct {
	name    string
	ci      bool
	allowed map[string]string // "package test" -> reason
	timeout time.Duration
	dir     string // go test's -C
	out     io.Writer

	report   Report
	output   map[string][]string // "package\x00test" (test "" for the package) -> lines
	timedOut map[string]bool
	tests    []TestResult
}

func (r *run) goTest(args []string) int {
	start := time.Now()
	r.report = Report{Name: r.name}
	r.output = map[string][]string{}
	r.timedOut = map[string]bool{}
	goArgs := []string{"test", "-json"}
	if r.dir != "" {
		goArgs = []string{"test", "-C", r.dir, "-json"} // -C must come first
	}
	goArgs = append(goArgs, args...)
	r.report.Command = "go " + strings.Join(goArgs, " ")
	fmt.Fprintf(r.out, "%s: %s\n", r.name, r.report.Command)

	cmd := exec.Command("go", goArgs...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testrun:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testrun:", err)
		return 2
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			fmt.Fprintf(r.out, "%s\n", line) // not test2json: pass it on
			continue
		}
		r.handle(ev)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.report.GoTestExit = exit.ExitCode()
	default:
		fmt.Fprintln(os.Stderr, "testrun:", err)
		r.report.GoTestExit = 2
	}
	r.report.Seconds = time.Since(start).Seconds()
	sort.Slice(r.tests, func(i, j int) bool { return r.tests[i].Seconds > r.tests[j].Seconds })
	r.report.Slowest = r.tests[:min(len(r.tests), 15)]
	r.finish()
	if r.report.GoTestExit != 0 || r.report.Failed > 0 {
		return 1
	}
	return 0
}

func (r *run) handle(ev event) {
	switch ev.Action {
	case "build-output":
		r.output[ev.ImportPath+"\x00build"] = append(r.output[ev.ImportPath+"\x00build"], ev.Output)
		return
	case "build-fail":
		r.fail(ev.ImportPath + " (build failed)")
		fmt.Fprintf(r.out, "FAIL %s [build failed]\n", ev.ImportPath)
		r.printLines(r.output[ev.ImportPath+"\x00build"])
		return
	}
	key := ev.Package + "\x00" + ev.Test
	switch ev.Action {
	case "output":
		r.output[key] = append(r.output[key], ev.Output)
		if strings.HasPrefix(ev.Output, "panic: test timed out after ") {
			r.timedOut[ev.Package] = true
		}
	case "pass", "fail", "skip":
		if ev.Test == "" {
			r.packageDone(ev)
			return
		}
		r.testDone(ev, key)
	}
}

func (r *run) testDone(ev event, key string) {
	switch ev.Action {
	case "pass":
		r.report.Passed++
		delete(r.output, key)
	case "fail":
		r.fail(ev.Package + " " + ev.Test)
		fmt.Fprintf(r.out, "--- FAIL: %s %s (%.2fs)\n", short(ev.Package), ev.Test, ev.Elapsed)
		r.printLines(r.output[key])
		delete(r.output, key)
	case "skip":
		r.report.Skipped++
		if r.ci && !r.skipAllowed(ev.Package, ev.Test) {
			r.fail(ev.Package + " " + ev.Test + " (skipped under CI=true)")
			fmt.Fprintf(r.out, "--- SKIP refused under CI=true: %s %s\n", short(ev.Package), ev.Test)
			r.printLines(r.output[key])
			fmt.Fprintf(r.out, "    install what it needs in .ci/run, or list it with the reason in the allowed-skips file\n")
		}
		delete(r.output, key)
	}
	if !strings.Contains(ev.Test, "/") {
		r.tests = append(r.tests, TestResult{Package: short(ev.Package), Test: ev.Test, Seconds: ev.Elapsed})
	}
}

func (r *run) packageDone(ev event) {
	key := ev.Package + "\x00"
	lines := r.output[key]
	delete(r.output, key)
	if ev.Action == "skip" { // no test files
		return
	}
	r.report.Packages = append(r.report.Packages, PackageResult{Package: ev.Package, Result: ev.Action, Seconds: ev.Elapsed})
	status := "ok  "
	if ev.Action == "fail" {
		status = "FAIL"
	}
	note := ""
	if slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "(cached)") }) {
		note = "  (cached: go test's cache had this result)"
	}
	if r.timeout > 0 && ev.Elapsed > r.timeout.Seconds()/3 {
		note = fmt.Sprintf("  (over a third of its %s timeout)", r.timeout)
	}
	fmt.Fprintf(r.out, "%s %-52s %7.1fs%s\n", status, short(ev.Package), ev.Elapsed, note)
	if ev.Action != "fail" {
		return
	}
	if r.timedOut[ev.Package] {
		r.fail(ev.Package + " (timed out)")
		fmt.Fprintf(r.out, "     %s ran past go test's -timeout %s. The tests still running are named under \"running tests:\" below; "+
			"make them cheaper or move them to make test-long, rather than raising the timeout.\n", short(ev.Package), r.timeout)
	} else if !slices.ContainsFunc(r.report.Failures, func(f string) bool { return strings.HasPrefix(f, ev.Package+" ") }) {
		r.fail(ev.Package + " (failed outside any test)")
	}
	// What the package printed outside its tests: a panic, TestMain's
	// output, the timeout's goroutine dump (cut: its head names the tests).
	if len(lines) > 200 {
		lines = append(lines[:200:200], fmt.Sprintf("     … %d more lines\n", len(lines)-200))
	}
	r.printLines(lines)
}

func (r *run) fail(what string) {
	r.report.Failed++
	r.report.Failures = append(r.report.Failures, what)
}

func (r *run) skipAllowed(pkg, test string) bool {
	top, _, _ := strings.Cut(test, "/")
	_, ok := r.allowed[pkg+" "+test]
	_, okTop := r.allowed[pkg+" "+top]
	return ok || okTop
}

func (r *run) printLines(lines []string) {
	for _, l := range lines {
		fmt.Fprint(r.out, "    "+l)
		if !strings.HasSuffix(l, "\n") {
			fmt.Fprintln(r.out)
		}
	}
}

func (r *run) finish() {
	rep := &r.report
	if len(rep.Slowest) > 0 {
		fmt.Fprintf(r.out, "\n%s: slowest tests\n", r.name)
		for _, t := range rep.Slowest[:min(len(rep.Slowest), 10)] {
			fmt.Fprintf(r.out, "  %7.1fs  %s %s\n", t.Seconds, t.Package, t.Test)
		}
	}
	if len(rep.Failures) > 0 {
		fmt.Fprintf(r.out, "\n%s: failed\n", r.name)
		for _, f := range rep.Failures {
			fmt.Fprintf(r.out, "  %s\n", short(f))
		}
	}
	if rep.GoTestExit != 0 && rep.Failed == 0 {
		// go test failed without a failing test or package in its JSON: a
		// vet error or a bad flag, printed on its standard error above.
		rep.Failed++
		rep.Failures = append(rep.Failures, fmt.Sprintf("go test exited %d (see its errors above)", rep.GoTestExit))
	}
	fmt.Fprintf(r.out, "\n%s took %s\n", r.name, time.Duration(rep.Seconds*float64(time.Second)).Round(time.Second))
	fmt.Fprintf(r.out, "%s: %d passed, %d failed, %d skipped\n", r.name, rep.Passed, rep.Failed, rep.Skipped)
}

func (r *run) writeReport(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r.report, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, r.name+".json"), append(b, '\n'), 0o644)
}

// printSummary prints each report in dir and the totals; ok is false if
// any pass failed.
func printSummary(w io.Writer, dir string) (ok bool, err error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return false, err
	}
	if len(files) == 0 {
		return false, fmt.Errorf("no test reports in %s: run make test first", dir)
	}
	var reps []Report
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return false, err
		}
		var rep Report
		if err := json.Unmarshal(b, &rep); err != nil {
			return false, fmt.Errorf("%s: %w", f, err)
		}
		reps = append(reps, rep)
	}
	sort.Slice(reps, func(i, j int) bool { return reps[i].Name < reps[j].Name })
	var total Report
	ok = true
	fmt.Fprintf(w, "%-12s %9s %7s %7s %7s  %s\n", "test pass", "time", "passed", "failed", "skipped", "slowest package")
	for _, rep := range reps {
		slowest := ""
		if len(rep.Packages) > 0 {
			p := slices.MaxFunc(rep.Packages, func(a, b PackageResult) int { return int(a.Seconds*1000) - int(b.Seconds*1000) })
			slowest = fmt.Sprintf("%s %.0fs", short(p.Package), p.Seconds)
		}
		fmt.Fprintf(w, "%-12s %8.0fs %7d %7d %7d  %s\n", rep.Name, rep.Seconds, rep.Passed, rep.Failed, rep.Skipped, slowest)
		for _, f := range rep.Failures {
			fmt.Fprintf(w, "    failed: %s\n", short(f))
		}
		total.Passed += rep.Passed
		total.Failed += rep.Failed
		total.Skipped += rep.Skipped
		ok = ok && rep.Failed == 0 && rep.GoTestExit == 0
	}
	fmt.Fprintf(w, "total: %d passed, %d failed, %d skipped\n", total.Passed, total.Failed, total.Skipped)
	return ok, nil
}

// readAllowedSkips reads "PACKAGE TEST reason…" lines; # starts a comment.
func readAllowedSkips(path string) (map[string]string, error) {
	allowed := map[string]string{}
	if path == "" {
		return allowed, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			return nil, fmt.Errorf("%s:%d: want \"PACKAGE TEST reason\", got %q", path, i+1, line)
		}
		allowed[f[0]+" "+f[1]] = strings.Join(f[2:], " ")
	}
	return allowed, nil
}

// timeoutOf returns the -timeout among go test's arguments (go test's
// default, 10m, if none).
func timeoutOf(args []string) time.Duration {
	d := 10 * time.Minute
	for i, a := range args {
		v, found := "", false
		switch {
		case strings.HasPrefix(a, "-timeout="), strings.HasPrefix(a, "--timeout="):
			_, v, found = strings.Cut(a, "=")
		case (a == "-timeout" || a == "--timeout") && i+1 < len(args):
			v, found = args[i+1], true
		}
		if found {
			if t, err := time.ParseDuration(v); err == nil {
				d = t
			}
		}
	}
	return d
}

// short drops the module path from a package path.
func short(pkg string) string {
	if rest, ok := strings.CutPrefix(pkg, "github.com/wasmtools/wasmtools/"); ok {
		return rest
	}
	if pkg == "github.com/wasmtools/wasmtools" {
		return "(root)"
	}
	return pkg
}
