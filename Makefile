# wasmtools — common tasks. `make help` lists them.

GO      ?= go
BIN     ?= bin/wasmtools
FUZZTIME ?= 20s

.PHONY: help build test test-long bench lint fuzz plugins plugins-clean clean

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

build: ## Build the CLI into bin/.
	$(GO) build -o $(BIN) ./cmd/wasmtools

# The guest SDK and the plugin contract are modules of their own: ./...
# of the root does not reach them.
SUBMODULES := abi sdk-guest

# Every test pass goes through internal/cmd/testrun: a line per package
# with its time, the output of failing tests only, a clear message for a
# package past its -timeout, the slowest tests, a closing count, and a
# report in build/test-report/ (.ci/run prints them all at the end).
# Under CI=true a skipped test fails unless .ci/allowed-skips lists it.
TESTRUN = $(GO) run ./internal/cmd/testrun -allowed-skips .ci/allowed-skips
# Tests that measure volume or resident memory: the race detector's
# shadow memory and tenfold slower Go code distort them and add nothing
# (one call at a time), so make test runs them without it.
NORACE_TESTS := ^(TestMemoryReturned|TestResourceCaps)$$
# Soak scenarios at full size (with -short they run smaller in make test).
LONG_TESTS := ^(TestFolderReplaceUnderLoad)$$
# Each pass's -timeout is over three times its slowest package on a busy
# 2-core machine (host: 100 s quiet, 243 s at load 6 with the test caches
# warm, 201 s on a fresh machine): past it, testrun names the tests
# still running.
RACE_TIMEOUT   ?= 15m
NORACE_TIMEOUT ?= 3m
LONG_TIMEOUT   ?= 6m

# The sub-modules' passes run beside the main one, their output held in
# a file until it ends: the main pass ends with one package (host) on one
# core, and the examples take a minute and a half to compile with the
# race detector on a fresh machine.
SUBMODULE_LOG := build/test-report/submodules.log

test: ## Run every test: with the race detector and -short, then the volume tests without it (the README's test command).
	@mkdir -p $(dir $(SUBMODULE_LOG))
	@{ $(TESTRUN) -name race-sdk-guest -C sdk-guest -- -race -short -timeout $(RACE_TIMEOUT) ./... && \
	   $(TESTRUN) -name race-examples -C examples -- -race -short -timeout $(RACE_TIMEOUT) ./...; } > $(SUBMODULE_LOG) 2>&1 & sub=$$!; \
	$(TESTRUN) -name race -- -race -short -timeout $(RACE_TIMEOUT) -skip '$(NORACE_TESTS)' ./...; main=$$?; \
	wait $$sub; subrc=$$?; echo; cat $(SUBMODULE_LOG); [ $$main = 0 ] && [ $$subrc = 0 ]
	$(TESTRUN) -name norace -- -short -count=1 -timeout $(NORACE_TIMEOUT) -run '$(NORACE_TESTS)' ./host

test-long: ## Run the soak scenarios at full size (CI runs this after make test).
	$(TESTRUN) -name long -- -count=1 -timeout $(LONG_TIMEOUT) -run '$(LONG_TESTS)' ./host

bench: ## Run the benchmarks (figures, not pass/fail).
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint: ## gofmt, go vet, staticcheck, go mod tidy, and cross-builds of the cgo-free packages.
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	for m in $(SUBMODULES); do (cd $$m && $(GO) vet ./... && GOOS=wasip1 GOARCH=wasm $(GO) vet ./...) || exit 1; done
	@command -v staticcheck >/dev/null || { echo "staticcheck is not installed: go install honnef.co/go/tools/cmd/staticcheck@v0.8.2 (the version .ci/run pins)"; exit 1; }
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
	scripts/fuzz.sh FuzzTrustRecord ./host $(FUZZTIME) $(GO)
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

plugins-clean: ## Remove built plugins and the tests' plugin and compiled-code caches (here and in ~/.cache/wasmtools-tests).
	rm -rf $(PLUGIN_OUT) build/test-plugins build/compile-cache build/precompile
	@# os.UserCacheDir on Linux; on macOS the folder is ~/Library/Caches/wasmtools-tests.
	rm -rf "$${WASMTOOLS_TEST_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/wasmtools-tests}"

clean: ## Remove build output.
	rm -rf bin
