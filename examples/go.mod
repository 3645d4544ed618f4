module github.com/wasmtools/wasmtools/examples

go 1.26.8

require (
	github.com/openai/openai-go/v3 v3.98.0
	github.com/wasmtools/wasmtools v0.0.0-00010101000000-000000000000
)

require (
	github.com/aymanbagabas/go-udiff v0.4.1 // indirect
	github.com/bmatcuk/doublestar/v4 v4.10.4 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/fsnotify/fsnotify v1.10.1 // indirect
	github.com/go-json-experiment/json v0.0.0-20260601182631-00ed12fed2a6 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/kaptinlin/jsonrepair v0.4.8 // indirect
	github.com/landlock-lsm/go-landlock v0.11.2 // indirect
	github.com/ledongthuc/pdf v0.0.0-20260907135840-6c8c28e0e8a0 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	github.com/redis/go-redis/v9 v9.23.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/smacker/go-tree-sitter v0.0.0-20240827094217-dd81d9e9be82 // indirect
	github.com/tetratelabs/wazero v1.12.0 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	github.com/wasmtools/wasmtools/abi v0.0.0-00010101000000-000000000000 // indirect
	github.com/wasmtools/wasmtools/sdk-guest v0.0.0-00010101000000-000000000000 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
)

// The examples build against this checkout.
replace (
	github.com/wasmtools/wasmtools => ../
	github.com/wasmtools/wasmtools/abi => ../abi
	github.com/wasmtools/wasmtools/sdk-guest => ../sdk-guest
)
