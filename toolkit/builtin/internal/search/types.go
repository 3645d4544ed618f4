package search

import (
	"slices"
	"strings"
)

// File types

// Types maps Grep's type filter names to file-name globs. The names
// and globs follow ripgrep's built-in table (rg --type-list) for the
// common languages; both engines use this table, so they agree.
var Types = map[string][]string{
	"asm":        {"*.S", "*.asm", "*.s"},
	"c":          {"*.c", "*.h", "*.H", "*.cats"},
	"clojure":    {"*.clj", "*.cljc", "*.cljs", "*.cljx"},
	"cmake":      {"*.cmake", "CMakeLists.txt"},
	"config":     {"*.cfg", "*.conf", "*.config", "*.ini"},
	"cpp":        {"*.C", "*.cc", "*.cpp", "*.cxx", "*.c++", "*.h", "*.H", "*.hh", "*.hpp", "*.hxx", "*.inl"},
	"cs":         {"*.cs"},
	"csharp":     {"*.cs"},
	"css":        {"*.css", "*.scss"},
	"csv":        {"*.csv"},
	"dart":       {"*.dart"},
	"docker":     {"*Dockerfile*"},
	"elixir":     {"*.eex", "*.ex", "*.exs"},
	"erlang":     {"*.erl", "*.hrl"},
	"go":         {"*.go"},
	"gradle":     {"*.gradle"},
	"graphql":    {"*.graphql", "*.graphqls"},
	"groovy":     {"*.gradle", "*.groovy"},
	"h":          {"*.h", "*.hpp"},
	"haskell":    {"*.hs", "*.lhs"},
	"html":       {"*.ejs", "*.htm", "*.html"},
	"java":       {"*.java", "*.jsp", "*.jspx", "*.properties"},
	"js":         {"*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"},
	"json":       {"*.json", "composer.lock"},
	"jsonl":      {"*.jsonl"},
	"julia":      {"*.jl"},
	"kotlin":     {"*.kt", "*.kts"},
	"less":       {"*.less"},
	"lua":        {"*.lua"},
	"make":       {"*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"},
	"markdown":   {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
	"md":         {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
	"nix":        {"*.nix"},
	"objc":       {"*.h", "*.m"},
	"ocaml":      {"*.ml", "*.mli", "*.mll", "*.mly"},
	"perl":       {"*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"},
	"php":        {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
	"protobuf":   {"*.proto"},
	"ps":         {"*.cdxml", "*.ps1", "*.ps1xml", "*.psd1", "*.psm1"},
	"py":         {"*.py", "*.pyi"},
	"r":          {"*.R", "*.Rmd", "*.Rnw", "*.r"},
	"rst":        {"*.rst"},
	"ruby":       {"*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"},
	"rust":       {"*.rs"},
	"sass":       {"*.sass", "*.scss"},
	"scala":      {"*.sbt", "*.scala"},
	"sh":         {"*.bash", "*.bashrc", "*.csh", "*.ksh", "*.sh", "*.tcsh", "*.zsh", ".bash_profile", ".bashrc", ".profile", ".zshrc"},
	"sql":        {"*.psql", "*.sql"},
	"svelte":     {"*.svelte"},
	"swift":      {"*.swift"},
	"tex":        {"*.bib", "*.cls", "*.ltx", "*.sty", "*.tex"},
	"tf":         {"*.tf", "*.tfvars"},
	"toml":       {"*.toml", "Cargo.lock"},
	"ts":         {"*.ts", "*.tsx", "*.mts", "*.cts"},
	"txt":        {"*.txt"},
	"vim":        {"*.vim"},
	"vue":        {"*.vue"},
	"xml":        {"*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xml", "*.xsd", "*.xsl", "*.xslt"},
	"yaml":       {"*.yaml", "*.yml"},
	"zig":        {"*.zig"},
	"javascript": {"*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"},
	"typescript": {"*.ts", "*.tsx", "*.mts", "*.cts"},
	"python":     {"*.py", "*.pyi"},
	"golang":     {"*.go"},
}

// TypeNames lists the known type names, for error messages.
func TypeNames() string {
	names := make([]string, 0, len(Types))
	for n := range Types {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
