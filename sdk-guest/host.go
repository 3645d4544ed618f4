package guest

import (
	"errors"
	"fmt"
	"strings"
)

// Log levels, as the kernel's get_log_level numbers them.
const (
	levelTrace = 0
	levelDebug = 1
	levelInfo  = 2
	levelWarn  = 3
	levelError = 4
)

// Logger writes to the host's log (the kernel's log_* functions). Use the
// package's [Log] value.
type Logger struct{}

// Log is the plugin's logger: guest.Log.Info("loaded", n, "rules").
// Messages below the host's log level are dropped before they cross into
// the host.
var Log Logger

// Trace logs the operands formatted as by fmt.Sprint.
func (Logger) Trace(args ...any) { logMessage(levelTrace, args) }

// Debug logs the operands formatted as by fmt.Sprint.
func (Logger) Debug(args ...any) { logMessage(levelDebug, args) }

// Info logs the operands formatted as by fmt.Sprint.
func (Logger) Info(args ...any) { logMessage(levelInfo, args) }

// Warn logs the operands formatted as by fmt.Sprint.
func (Logger) Warn(args ...any) { logMessage(levelWarn, args) }

// Error logs the operands formatted as by fmt.Sprint.
func (Logger) Error(args ...any) { logMessage(levelError, args) }

// Debugf logs a message formatted as by fmt.Sprintf.
func (Logger) Debugf(format string, args ...any) { logFormat(levelDebug, format, args) }

// Infof logs a message formatted as by fmt.Sprintf.
func (Logger) Infof(format string, args ...any) { logFormat(levelInfo, format, args) }

// Warnf logs a message formatted as by fmt.Sprintf.
func (Logger) Warnf(format string, args ...any) { logFormat(levelWarn, format, args) }

// Errorf logs a message formatted as by fmt.Sprintf.
func (Logger) Errorf(format string, args ...any) { logFormat(levelError, format, args) }

func logMessage(level int32, args []any) {
	if level < hostLogLevel() {
		return
	}
	hostLog(level, fmt.Sprint(args...))
}

func logFormat(level int32, format string, args []any) {
	if level < hostLogLevel() {
		return
	}
	hostLog(level, fmt.Sprintf(format, args...))
}

// Config returns the value of a configuration key given to the plugin by
// the operator (grants.config), and whether it is set.
func Config(key string) (string, bool) { return hostConfig(key) }

// HTTPRequest is an HTTP request made through the host (see [HTTP]).
type HTTPRequest struct {
	// Method defaults to GET.
	Method string
	// URL must be http or https, on a host the operator granted.
	URL     string
	Headers map[string]string
	Body    []byte
}

// HTTPResponse is the host's answer to an [HTTPRequest].
type HTTPResponse struct {
	Status int
	// Headers have lower-case names; several values of one header are
	// joined with commas. Empty when the host does not report headers.
	Headers map[string]string
	Body    []byte
}

// ErrNoHost is returned by HTTP when the plugin runs natively, as in go
// test, where there is no host to send the request (Config then reports
// every key unset).
var ErrNoHost = errors.New("guest: not running inside a Wasm host")

// HTTP performs an HTTP request through the host's http_request kernel
// function. The host checks every request, and every redirect, against
// the hosts the operator granted the plugin (grants.http_hosts): a
// request to any other host ends the call with an error naming the host
// (a trap; HTTP does not return). The plugin's schema should ask for the
// hosts it needs with PluginInfo.Grants.
//
// HTTP returns an error for a request it refuses before sending it (a
// scheme other than http or https) and when the host gives no status.
func HTTP(req HTTPRequest) (HTTPResponse, error) {
	if req.Method == "" {
		req.Method = "GET"
	}
	req.Method = strings.ToUpper(req.Method)
	scheme, _, ok := strings.Cut(req.URL, "://")
	if !ok || (!strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https")) {
		return HTTPResponse{}, fmt.Errorf("guest.HTTP: %q is not an http or https URL", req.URL)
	}
	return hostHTTP(req)
}
