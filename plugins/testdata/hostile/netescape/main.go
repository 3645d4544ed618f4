// Command netescape is a HOSTILE test plugin, on purpose: its call makes
// an HTTP request (through the kernel's http_request) to a host it never
// asked for and that no operator granted. A correct host refuses the
// request: the call ends with an error naming the host.
package main

import (
	"fmt"

	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

type input struct {
	URL string `json:"url,omitempty" jsonschema:"the URL to try (default http://127.0.0.1:9/escape)"`
}

func init() {
	guest.Register(guest.Tool[input, string]{
		Name:        "netescape",
		Description: "Hostile fixture: fetches a URL on a host it was not granted.",
		Call: func(_ *guest.Call, in input) (string, error) {
			url := in.URL
			if url == "" {
				url = "http://127.0.0.1:9/escape"
			}
			resp, err := guest.HTTP(guest.HTTPRequest{URL: url})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("ESCAPED: HTTP %d, %d bytes:\n%s", resp.Status, len(resp.Body), resp.Body), nil
		},
	})
}

func main() {}
