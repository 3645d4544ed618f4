// Command approvals is an HTTP service that runs an agent's tool calls
// and parks a turn that needs the user's approval: the waiting turn is
// saved as a snapshot in a folder, and the approval, which may come
// minutes later to another replica or after a restart, resumes it there.
//
//	approvals -addr 127.0.0.1:8080 -store ./turns -config wasmtools.yaml
//
// The API:
//
//	POST /sessions/{session}/turns   {"calls": [{"id", "name", "arguments"}]}
//	  200 {"responses": [...]}                      every call done
//	  202 {"turn_id", "confirmations": [...]}       parked, waiting
//	POST /turns/{id}/answers         {"answers": {CALL_ID: {"approve": true}}}
//	  200 / 202 as above; 409 when no replica holds that waiting turn
//	  (unknown, or already answered)
//
// External results (AskUser's answer, a tool the caller runs) go in the
// same request: {"results": {CALL_ID: {"state": "success", "content":
// [{"type": "text", "text": "..."}]}}}.
//
// Each waiting call runs at most once: answering claims the snapshot by
// renaming its file, which only one replica can do, and done calls are
// never run again. A request whose answers do not all apply leaves
// the turn as it was. What this example leaves out, and a service would add: final
// responses are only in the HTTP reply (keep them under the turn ID if a
// client may miss them), a replica that dies between claiming and saving
// loses the turn (a claim with a lease would hand it on), and session
// state (rules granted "always", active groups) stays in each process's
// memory.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"github.com/wasmtools/wasmtools"
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/toolkit"
)

func main() {
	// Started as the OS sandbox's helper for a shell command, become it.
	sandbox.Main()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "approvals:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("approvals", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `host:port`")
	store := fs.String("store", "turns", "keep waiting turns in this `folder`")
	configPath := fs.String("config", "wasmtools.yaml", "the host's configuration `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := os.MkdirAll(*store, 0o700); err != nil {
		return err
	}
	cfg, err := wasmtools.LoadConfig(*configPath)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	cfg.Logger = log
	host, err := wasmtools.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer host.Close()

	s := &service{tk: host.Toolkit(), store: *store, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /sessions/{session}/turns", s.newTurn)
	mux.HandleFunc("POST /turns/{id}/answers", s.answer)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdown)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// service answers the API.
type service struct {
	tk    *toolkit.Toolkit
	store string
	log   *slog.Logger
}

// turnReply is the body of 200 and 202 answers.
type turnReply struct {
	TurnID        string                    `json:"turn_id,omitempty"`
	Responses     []*toolkit.Response       `json:"responses,omitempty"`
	Confirmations []toolkit.Confirmation    `json:"confirmations,omitempty"`
	External      []toolkit.ExternalRequest `json:"external,omitempty"`
}

func (s *service) newTurn(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Calls []toolkit.Call `json:"calls"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Calls) == 0 {
		http.Error(w, `want {"calls": [{"id", "name", "arguments"}]}`, http.StatusBadRequest)
		return
	}
	turn, err := s.tk.NewTurn(r.Context(), r.PathValue("session"), body.Calls, toolkit.TurnOptions{})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.runAndReply(w, r.Context(), turn)
}

func (s *service) answer(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !validID.MatchString(id) {
		http.Error(w, "bad turn id", http.StatusBadRequest)
		return
	}
	var body struct {
		Answers map[string]toolkit.Approval  `json:"answers"`
		Results map[string]*toolkit.Response `json:"results"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `want {"answers": {CALL_ID: {"approve": true}}, "results": {CALL_ID: RESPONSE}}`, http.StatusBadRequest)
		return
	}
	snap, release, err := s.claim(id)
	if errors.Is(err, os.ErrNotExist) {
		http.Error(w, "no turn "+id+" is waiting (unknown, or already answered)", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	turn, err := s.tk.ResumeTurn(r.Context(), snap, toolkit.TurnOptions{})
	if err != nil {
		release(snap) // give it back: nothing ran
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for callID, a := range body.Answers {
		if err := turn.Confirm(callID, a); err != nil {
			release(snap) // as it was: none of this request's answers holds
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	for callID, res := range body.Results {
		if err := turn.SubmitResult(callID, res); err != nil {
			release(snap)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	release(nil)
	s.runAndReply(w, r.Context(), turn)
}

// runAndReply runs a turn; a turn that waits is parked in the store.
func (s *service) runAndReply(w http.ResponseWriter, ctx context.Context, turn *toolkit.Turn) {
	err := turn.Run(ctx)
	var waiting *toolkit.WaitingError
	switch {
	case errors.As(err, &waiting):
		if err := s.park(turn.Snapshot()); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, http.StatusAccepted, turnReply{TurnID: turn.ID(), Confirmations: waiting.Confirmations, External: waiting.External})
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	default:
		writeJSON(w, http.StatusOK, turnReply{TurnID: turn.ID(), Responses: turn.Responses()})
	}
}

// validID is what a turn ID looks like; nothing else names a file.
var validID = regexp.MustCompile(`^turn_[0-9a-f]{1,64}$`)

func (s *service) path(id string) string { return filepath.Join(s.store, id+".json") }

// park saves a waiting turn: written aside, then renamed into place, so
// no reader sees half a snapshot.
func (s *service) park(snap *toolkit.TurnSnapshot) error {
	data, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	tmp := s.path(snap.ID) + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.path(snap.ID))
}

// claim takes a waiting turn out of the store: renaming is atomic, so of
// two replicas answering at once one gets it and the other
// os.ErrNotExist. release puts a snapshot back (when nothing ran) or,
// given nil, drops the claimed file.
func (s *service) claim(id string) (*toolkit.TurnSnapshot, func(*toolkit.TurnSnapshot), error) {
	claimed := s.path(id) + ".claimed" + strconv.Itoa(os.Getpid())
	if err := os.Rename(s.path(id), claimed); err != nil {
		return nil, nil, err
	}
	release := func(back *toolkit.TurnSnapshot) {
		if back != nil {
			if err := s.park(back); err != nil {
				s.log.Error("turn lost", "turn", id, "err", err)
			}
		}
		_ = os.Remove(claimed)
	}
	data, err := os.ReadFile(claimed)
	if err != nil {
		_ = os.Rename(claimed, s.path(id)) // give it back
		return nil, nil, fmt.Errorf("turn %s: %w", id, err)
	}
	var snap toolkit.TurnSnapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		release(nil)
		return nil, nil, fmt.Errorf("turn %s: %w", id, err)
	}
	return &snap, release, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
