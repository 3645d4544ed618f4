module github.com/wasmtools/wasmtools/sdk-guest

go 1.24

require github.com/wasmtools/wasmtools/abi v0.0.0-00010101000000-000000000000

// Until the abi module is published, it comes from this checkout.
replace github.com/wasmtools/wasmtools/abi => ../abi
