# wasmtools — common tasks. `make help` lists them.

GO      ?= go
BIN     ?= bin/wasmtools
FUZZTIME ?= 20s

.PHONY: help build test bench lint fuzz plugins clean

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-8s %s\n", $$1, $$2}'

build: ## Build the CLI into bin/.
	$(GO) build -o $(BIN) ./cmd/wasmtools

test: ## Run every test with the race detector (the README's test command).
	$(GO) test -race ./...

bench: ## Run the benchmarks (figures, not pass/fail).
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint: ## gofmt and go vet.
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

fuzz: ## Run each fuzz target for FUZZTIME (default 20s).
	$(GO) test -run '^$$' -fuzz '^FuzzParseRule$$' -fuzztime $(FUZZTIME) ./permission
	$(GO) test -run '^$$' -fuzz '^FuzzArguments$$' -fuzztime $(FUZZTIME) ./toolkit
	$(GO) test -run '^$$' -fuzz '^FuzzAnalyze$$' -fuzztime $(FUZZTIME) ./permission/bash

plugins: ## Build the first-party Wasm plugins (none yet).
	@echo "no plugins yet"

clean: ## Remove build output.
	rm -rf bin
