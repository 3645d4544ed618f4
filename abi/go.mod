module github.com/wasmtools/wasmtools/abi

go 1.22
