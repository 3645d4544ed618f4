package main

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"text/template"
)

const newHelp = `Usage: wasmtools new plugin NAME [--lang go|assemblyscript] [--dir DIR] [--sdk-path DIR]

New writes a ready-to-build wasmtools plugin into DIR (default ./NAME): a
working tool, also called NAME, that reverses a text, the files that build
it, and a README with the next steps. Replace the tool with your own.

NAME is a lower-case letter followed by lower-case letters, digits and
dashes, at most 64 characters; it names the folder, the .wasm file and the
tool. DIR must not exist or be empty: new never overwrites anything.

Languages (--lang):

  go              main.go on the wasmtools Go SDK (package guest), go.mod,
                  Makefile, README. Build with Go 1.24 or later: make
                  (GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared).
  assemblyscript  assembly/index.ts on @extism/as-pdk, package.json and
                  package-lock.json (pinned versions), asconfig.json,
                  README. Build with Node.js and npm: npm install, then
                  npm run build (writes build/NAME.wasm). Also: as.

Where the Go SDK comes from (go only). go.mod requires the module
github.com/wasmtools/wasmtools, which holds the SDK; the first of these
that applies decides which copy:

  1. --sdk-path DIR: the wasmtools checkout at DIR (a replace directive);
  2. the wasmtools checkout that the new plugin's folder is inside of (a
     relative replace, so the two move together);
  3. the published module at this binary's version, when it is a release
     (fetched by go build like any dependency);
  4. the wasmtools checkout this binary was built from, when it is still
     on disk (a development build: go build or go run in a checkout).

If none applies, new stops and asks for --sdk-path. With a replace, the
build needs no network: the SDK uses the standard library only.

Examples:

  # A Go plugin in ./shout; build it and call its tool.
  wasmtools new plugin shout
  cd shout && make && wasmtools call shout '{"text":"hi"}' --plugins .

  # An AssemblyScript plugin: a module of about 12 KB (a Go one is 2-4 MB).
  wasmtools new plugin text-tools --lang assemblyscript
  cd text-tools && npm install && npm run build

  # Somewhere else, with the SDK from a given checkout.
  wasmtools new plugin shout --dir ~/src/shout --sdk-path ~/src/wasmtools
`

// templates holds one folder per language; a file's path below it is its
// path in the new plugin, less the ".tmpl" every name carries (so that
// the Go tool neither compiles main.go nor sees go.mod as a module
// boundary) and with "gitignore" standing for ".gitignore" (embed skips
// dot files).
//
//go:embed templates
var templates embed.FS

// pluginName is what NAME may be: usable as a folder, a file, an npm
// package, a Go module path and a tool name.
var pluginName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// languages maps --lang values to template folders.
var languages = map[string]string{
	"go":             "go",
	"assemblyscript": "assemblyscript",
	"as":             "assemblyscript",
}

var (
	semver        = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}`)
	goRelease     = regexp.MustCompile(`^go(\d+\.\d+(\.\d+)?)`)
)

// hostModule is the module of a wasmtools checkout; sdkModule the Go
// module of the guest SDK inside it (with the abi module beside it),
// tagged sdk-guest/vX.Y.Z.
const (
	hostModule = "github.com/wasmtools/wasmtools"
	sdkModule  = "github.com/wasmtools/wasmtools/sdk-guest"
)

// templateData is what the templates are executed with.
type templateData struct {
	Name string
	// Go only.
	Module     string // the plugin's module path
	GoVersion  string // its go directive
	SDKVersion string // the version of sdkModule (and the abi module) it requires
	Replace    string // the checkout replace directives point into, or ""
	ReplaceABI string // Replace's abi folder, as go.mod spells it
	ReplaceSDK string // Replace's sdk-guest folder, as go.mod spells it
}

func runNew(_ context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "new", newHelp)
	lang := fs.String("lang", "go", "the plugin's `language`: go or assemblyscript")
	dir := fs.String("dir", "", "write the plugin into `DIR` (default ./NAME)")
	sdkPath := fs.String("sdk-path", "", "take the Go SDK from the wasmtools checkout at `DIR` (go only)")
	pos, err := parseArgs(e, fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return usageErrorf("say what to create: wasmtools new plugin NAME")
	case pos[0] != "plugin":
		return usageErrorf("cannot create a %q: the only kind is plugin (wasmtools new plugin NAME)", pos[0])
	case len(pos) == 1:
		return usageErrorf("name the plugin: wasmtools new plugin NAME")
	case len(pos) > 2:
		return usageErrorf("too many arguments: %q (new takes plugin NAME)", pos[2:])
	}
	name := pos[1]
	if !pluginName.MatchString(name) || len(name) > 64 {
		return usageErrorf("invalid plugin name %q: use a lower-case letter, then lower-case letters, digits and dashes (at most 64), e.g. text-tools", name)
	}
	folder, ok := languages[strings.ToLower(*lang)]
	if !ok {
		return usageErrorf("unknown language %q: use go or assemblyscript", *lang)
	}
	if *sdkPath != "" && folder != "go" {
		return usageErrorf("--sdk-path is for Go plugins; an AssemblyScript plugin gets its PDK from npm")
	}
	if *dir == "" {
		*dir = name
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	if err := checkEmpty(abs, *dir); err != nil {
		return err
	}

	data := templateData{Name: name}
	var sdkNote string
	if folder == "go" {
		sdk, err := findSDK(*sdkPath, abs)
		if err != nil {
			return err
		}
		data.Module, data.GoVersion, data.SDKVersion, data.Replace = name, sdk.goVersion, sdk.version, sdk.replace
		if sdk.replace != "" {
			data.ReplaceABI, data.ReplaceSDK = modPath(sdk.replace+"/abi"), modPath(sdk.replace+"/sdk-guest")
		}
		sdkNote = sdk.note
	}
	files, err := render(folder, data)
	if err != nil {
		return err
	}
	if err := writeFiles(abs, files); err != nil {
		return err
	}
	printNext(e, name, folder, *dir, files, sdkNote)
	return nil
}

// checkEmpty refuses a target that exists and is not an empty directory.
func checkEmpty(abs, shown string) error {
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return usageErrorf("%s exists and is not a directory: choose another --dir", shown)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return usageErrorf("%s already exists and is not empty; new never overwrites files: choose another --dir, or remove it first", shown)
	}
	return nil
}

// file is one rendered file of a new plugin.
type file struct {
	path string // slash-separated, relative to the plugin folder
	data []byte
}

// render executes the templates of one language folder.
func render(folder string, data templateData) ([]file, error) {
	root := "templates/" + folder
	var files []file
	err := fs.WalkDir(templates, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		text, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, root+"/"), ".tmpl")
		if path.Base(rel) == "gitignore" {
			rel = path.Join(path.Dir(rel), ".gitignore")
		}
		t, err := template.New(rel).Option("missingkey=error").Parse(string(text))
		if err != nil {
			return fmt.Errorf("template %s: %w", p, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return fmt.Errorf("template %s: %w", p, err)
		}
		files = append(files, file{path: rel, data: b.Bytes()})
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return files, err
}

// writeFiles writes the files under dir. A file that already exists
// (something created it since checkEmpty) is an error, not overwritten.
func writeFiles(dir string, files []file) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		w, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = w.Write(f.data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// printNext says what was written and what to run next.
func printNext(e *env, name, folder, dir string, files []file, sdkNote string) {
	w := e.stdout
	langName := map[string]string{"go": "Go", "assemblyscript": "AssemblyScript"}[folder]
	fmt.Fprintf(w, "Created the %s plugin %s in %s:\n\n", langName, name, dir)
	for _, f := range files {
		fmt.Fprintf(w, "\t%s\n", filepath.Join(dir, filepath.FromSlash(f.path)))
	}
	if sdkNote != "" {
		fmt.Fprintf(w, "\n%s\n", sdkNote)
	}
	fmt.Fprintf(w, "\nNext:\n\n\tcd %s\n", shellQuote(dir))
	if folder == "go" {
		fmt.Fprintf(w, "\tmake                 # builds %s.wasm\n", name)
		fmt.Fprintf(w, "\twasmtools call %s '{\"text\":\"hello\"}' --plugins .\n", name)
	} else {
		fmt.Fprintf(w, "\tnpm install\n")
		fmt.Fprintf(w, "\tnpm run build        # builds build/%s.wasm\n", name)
		fmt.Fprintf(w, "\twasmtools call %s '{\"text\":\"hello\"}' --plugins build\n", name)
	}
	fmt.Fprintf(w, "\nThe README in %s tells the rest.\n", dir)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./~") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sdkSource is where a new Go plugin's go.mod takes the SDK from.
type sdkSource struct {
	version   string // the version of sdkModule to require
	replace   string // the replace directive's target, or ""
	goVersion string // the go directive
	note      string // one line for the user
}

// unversioned is the version go.mod requires a module at when a replace
// directive supplies it (what `go mod edit -replace` writes).
const unversioned = "v0.0.0-00010101000000-000000000000"

// findSDK decides where the SDK comes from; runNew's help lists the
// order. pluginDir is the new plugin's absolute folder.
func findSDK(sdkPath, pluginDir string) (sdkSource, error) {
	if sdkPath != "" {
		root, err := filepath.Abs(sdkPath)
		if err != nil {
			return sdkSource{}, err
		}
		gv, err := checkout(root)
		if err != nil {
			return sdkSource{}, usageErrorf("--sdk-path %s: %v", sdkPath, err)
		}
		return replaceSDK(root, gv, pluginDir, "--sdk-path"), nil
	}
	for d := filepath.Dir(pluginDir); ; d = filepath.Dir(d) {
		if gv, err := checkout(d); err == nil {
			return replaceSDK(d, gv, pluginDir, "the enclosing checkout"), nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if v := releaseVersion(); v != "" {
		return sdkSource{
			version:   v,
			goVersion: goVersionOf(runtime.Version()),
			note:      fmt.Sprintf("go.mod requires %s %s, the version of this wasmtools; go build downloads it.", sdkModule, v),
		}, nil
	}
	if root := builtFrom(); root != "" {
		if gv, err := checkout(root); err == nil {
			return replaceSDK(root, gv, pluginDir, "the checkout this wasmtools was built from"), nil
		}
	}
	return sdkSource{}, usageErrorf("cannot find the wasmtools Go SDK: this wasmtools is a development build whose checkout is gone, and %s is not inside a checkout; pass --sdk-path DIR, DIR being a wasmtools checkout (git clone https://%s)", pluginDir, hostModule)
}

// replaceSDK takes the SDK from the checkout at root, through a path
// relative to the plugin when the plugin is inside the checkout.
func replaceSDK(root, goVersion, pluginDir, why string) sdkSource {
	target := root
	if strings.HasPrefix(pluginDir, root+string(filepath.Separator)) {
		if rel, err := filepath.Rel(pluginDir, root); err == nil {
			target = filepath.ToSlash(rel) // "../..": go.mod wants ./ or ../ first, and Rel gives that here
		}
	}
	return sdkSource{
		version:   unversioned,
		replace:   target,
		goVersion: goVersion,
		note:      fmt.Sprintf("go.mod takes the Go SDK from %s (%s), with a replace directive.", root, why),
	}
}

// modPath spells a path for a go.mod replace directive: quoted when it
// holds a blank or a quote (go.mod reads it as a Go string).
func modPath(p string) string {
	if strings.ContainsAny(p, " \t\"'`\\") {
		return strconv.Quote(p)
	}
	return p
}

// checkout reports whether dir is a wasmtools checkout with the Go SDK,
// and returns the go directive of its go.mod.
func checkout(dir string) (goVersion string, err error) {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("no go.mod: not a wasmtools checkout")
	}
	module := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "module" {
			module = strings.Trim(f[1], `"`)
		}
		if len(f) == 2 && f[0] == "go" {
			goVersion = f[1]
		}
	}
	if module != hostModule {
		return "", fmt.Errorf("its go.mod is module %q, not %s", module, hostModule)
	}
	if fi, err := os.Stat(filepath.Join(dir, "sdk-guest")); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("it has no sdk-guest folder: a wasmtools checkout too old for Go plugins")
	}
	// A plugin needs the Go the SDK needs, not the host's.
	if b, err := os.ReadFile(filepath.Join(dir, "sdk-guest", "go.mod")); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "go" {
				goVersion = f[1]
			}
		}
	}
	if goVersion == "" {
		goVersion = goVersionOf(runtime.Version())
	}
	return goVersion, nil
}

// builtFrom returns the checkout this binary was compiled from: the
// compiler records this file's absolute path unless the build used
// -trimpath. "" when unknown.
func builtFrom() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file))) // …/cmd/wasmtools/new.go
}

// releaseVersion returns this binary's module version when it is a
// release that the module proxy can serve: a tag, not "(devel)", a
// pseudo-version stamped from a local commit, or a dirty tree.
func releaseVersion() string {
	v := version
	if v == "" {
		if info, ok := debug.ReadBuildInfo(); ok {
			v = info.Main.Version
		}
	}
	if !isRelease(v) {
		return ""
	}
	return v
}

// isRelease reports whether v is a module version the proxy can serve
// for a released wasmtools: vX.Y.Z with an optional pre-release, not a
// pseudo-version (a commit stamped by go build) nor "+dirty".
func isRelease(v string) bool {
	return semver.MatchString(v) && !strings.Contains(v, "+") && !pseudoVersion.MatchString(v)
}

// goVersionOf turns runtime.Version() ("go1.26.8") into a go directive
// ("1.26.8"); a development toolchain gives the oldest Go the SDK builds
// with.
func goVersionOf(v string) string {
	if m := goRelease.FindStringSubmatch(v); m != nil {
		return m[1]
	}
	return "1.24"
}
