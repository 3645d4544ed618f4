# wasmtools — common tasks. `make help` lists them.

GO      ?= go
BIN     ?= bin/wasmtools
FUZZTIME ?= 20s

.PHONY: help build test bench lint fuzz plugins plugins-clean clean

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-8s %s\n", $$1, $$2}'

build: ## Build the CLI into bin/.
	$(GO) build -o $(BIN) ./cmd/wasmtools

# The guest SDK and the plugin contract are modules of their own: ./...
# of the root does not reach them.
SUBMODULES := abi sdk-guest

test: ## Run every test with the race detector (the README's test command).
	$(GO) test -race ./...
	cd sdk-guest && $(GO) test -race ./...
	cd examples && $(GO) test -race ./...
	@# Without the race detector: the hot-reload stress test at full size
	@# (the detector makes 100 replacements too slow) and the resident
	@# memory test (its shadow memory makes RSS meaningless).
	$(GO) test -count=1 -run '^(TestFolderReplaceUnderLoad|TestMemoryReturned)$$' ./host

bench: ## Run the benchmarks (figures, not pass/fail).
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint: ## gofmt, go vet, staticcheck, go mod tidy, and cross-builds of the cgo-free packages.
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	for m in $(SUBMODULES); do (cd $$m && $(GO) vet ./... && GOOS=wasip1 GOARCH=wasm $(GO) vet ./...) || exit 1; done
	@command -v staticcheck >/dev/null || { echo "staticcheck is not installed: go install honnef.co/go/tools/cmd/staticcheck@latest"; exit 1; }
	staticcheck ./...
	for m in $(SUBMODULES); do (cd $$m && staticcheck ./...) || exit 1; done
	$(GO) mod tidy -diff
	for m in $(SUBMODULES); do (cd $$m && $(GO) mod tidy -diff) || exit 1; done
	@# The examples are a module of their own (the OpenAI SDK stays out of
	@# the library's dependencies).
	cd examples && $(GO) vet ./... && staticcheck ./... && $(GO) mod tidy -diff
	@# What a Windows or macOS user gets: every package that needs no cgo
	@# builds (the shell analysis uses tree-sitter through cgo).
	for os in windows darwin; do CGO_ENABLED=0 GOOS=$$os $(GO) build $$($(GO) list -f '{{if .GoFiles}}{{.ImportPath}} {{join .Deps " "}}{{end}}' ./... | grep -v go-tree-sitter | cut -d' ' -f1) || exit 1; done

fuzz: ## Run each fuzz target for FUZZTIME (default 20s); see scripts/fuzz.sh.
	scripts/fuzz.sh FuzzParseRule ./permission $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzArguments ./toolkit $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzResumeTurn ./toolkit $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzFlatSchemaDoc ./toolkit $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzFlatSchema ./toolkit $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzDecodeFlatObject ./toolkit $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzAnalyze ./permission/bash $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzResolve ./permission/pathpolicy $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzSensitive ./permission/pathpolicy $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzPatternMaySensitive ./permission/pathpolicy $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzParse ./skills $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzCheckFrame ./toolkit/mcp $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzDepth ./internal/jsontext $(FUZZTIME) $(GO)
	scripts/fuzz.sh FuzzInstrument ./internal/wasmbin $(FUZZTIME) $(GO)
	cd sdk-guest && ../scripts/fuzz.sh FuzzDecodeInput . $(FUZZTIME) $(GO)

# Plugins: each plugins/NAME holding Go files is built with Go as a WASI
# reactor, each plugins/NAME holding a package.json with npm (its "build"
# script writes build/NAME.wasm); both land in build/plugins/NAME.wasm.
# Each plugin is its own target, so `make -j plugins` builds them in
# parallel; a plugin is rebuilt only when its sources, the SDK or the ABI
# change. (plugins/testdata is not built here: tests build those fixtures.)
PLUGIN_OUT    := build/plugins
NPM_PLUGINS   := $(patsubst plugins/%/package.json,%,$(wildcard plugins/*/package.json))
GO_PLUGINS    := $(filter-out $(NPM_PLUGINS),$(patsubst plugins/%/,%,$(sort $(dir $(wildcard plugins/*/*.go)))))
GO_WASM       := $(GO_PLUGINS:%=$(PLUGIN_OUT)/%.wasm)
NPM_WASM      := $(NPM_PLUGINS:%=$(PLUGIN_OUT)/%.wasm)
GUEST_SOURCES := $(wildcard sdk-guest/*.go abi/*.go) go.mod
# No symbol table (the Wasm name section, which only wazero's stack trace
# of a trap reads; the Go runtime's own traces keep their names) and no
# DWARF: about 85 KB less per module. The same flags as the tests' builds
# (internal/testplugins).
GO_PLUGIN_FLAGS := -ldflags='-s -w'

plugins: $(GO_WASM) $(NPM_WASM) ## Build every plugin into build/plugins/ (make -j plugins: in parallel).
	@for f in $^; do printf '  %-36s %9d bytes\n' "$$f" "$$(wc -c < "$$f")"; done

.SECONDEXPANSION:
$(GO_WASM): $(PLUGIN_OUT)/%.wasm: $$(wildcard plugins/$$*/*.go) $(GUEST_SOURCES)
	@mkdir -p $(@D)
	@echo "go   plugins/$* -> $@"
	@cd plugins/$* && GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared $(GO_PLUGIN_FLAGS) -o $(CURDIR)/$@.tmp . \
		&& mv $(CURDIR)/$@.tmp $(CURDIR)/$@

$(NPM_WASM): $(PLUGIN_OUT)/%.wasm: $$(shell find plugins/$$*/assembly plugins/$$*/package.json plugins/$$*/package-lock.json plugins/$$*/asconfig.json -type f 2>/dev/null)
	@command -v npm >/dev/null || { echo "npm is needed to build plugins/$*"; exit 1; }
	@mkdir -p $(@D)
	@echo "npm  plugins/$* -> $@"
	@cd plugins/$* && npm ci --no-audit --no-fund --loglevel=error >/dev/null && npm run --silent build
	@cp plugins/$*/build/$*.wasm $@

plugins-clean: ## Remove built plugins and the tests' plugin and compiled-code caches.
	rm -rf $(PLUGIN_OUT) build/test-plugins build/compile-cache build/precompile

clean: ## Remove build output.
	rm -rf bin
