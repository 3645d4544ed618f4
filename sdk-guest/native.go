//go:build !wasip1

package guest

import (
	"errors"
	"fmt"
	"os"

	"github.com/wasmtools/wasmtools/abi"
)

// Outside Wasm (go test on the developer's machine) there is no kernel:
// logs go to standard error, configuration is empty and HTTP fails with
// ErrNoHost; a chunk emitted outside Invoke has nowhere to go.

var levelNames = [...]string{"TRACE", "DEBUG", "INFO", "WARN", "ERROR"}

func hostLogLevel() int32 { return levelInfo }

func hostLog(level int32, msg string) {
	fmt.Fprintf(os.Stderr, "guest %s: %s\n", levelNames[level], msg)
}

func hostConfig(string) (string, bool) { return "", false }

func hostHTTP(HTTPRequest) (HTTPResponse, error) { return HTTPResponse{}, ErrNoHost }

func hostEmit(abi.Chunk) error {
	return errors.New("guest: no host to stream to (use Invoke with an emit function)")
}
