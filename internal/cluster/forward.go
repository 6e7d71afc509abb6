// This file is the one transport by which a standby passes a
// command to the leader, for every channel: REST passes its write requests
// on as they came (a reverse proxy, Forwarder.Proxy), the FIX gateway
// passes its sessions' trading commands (Forwarder.Command), and the leader
// checks both with Verify. Each passed request is signed with the secret
// the instances share, over its request id, method, path and a hash of its
// body.

package cluster

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// Directory is what the transport needs to know of the instances: where
// the leader is, and the secret they share. Cluster is one.
type Directory interface {
	// LeaderURL is the URL of the instance that leads.
	LeaderURL(ctx context.Context) (string, error)
	// ForgetLeader drops a remembered leader URL that did not serve a
	// passed request, so that the next one looks the leader up again.
	ForgetLeader(url string)
	// ClusterSecret is the key passed requests are signed with.
	ClusterSecret(ctx context.Context) ([]byte, error)
}

// The headers of a passed request: the request id the instances share,
// the instance that passed it, and its signature.
const (
	HeaderRequestID   = "X-Request-Id"
	HeaderForwardedBy = "X-Bondvenue-Forwarded-By"
	HeaderSignature   = "X-Bondvenue-Forward-Signature"
)

// CommandsPath is the leader's endpoint for the trading commands other
// instances pass to it (POST, a JSON command; answered with a
// CommandAnswer).
const CommandsPath = "/internal/v1/commands"

// MaxBody bounds the body of a passed request, which is read whole to be
// signed and verified.
const MaxBody = 8 << 20

// Sign is the signature of a passed request: an HMAC with the instances'
// secret over its request id, method, path and the SHA-256 of its body.
func Sign(secret []byte, id, method, path string, body []byte) string {
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, secret)
	fmt.Fprintf(m, "%s\n%s\n%s\n%x", id, method, path, sum)
	return hex.EncodeToString(m.Sum(nil))
}

// Claims reports whether r says it was passed on by another instance.
func Claims(r *http.Request) bool {
	return r.Header.Get(HeaderSignature) != "" || r.Header.Get(HeaderForwardedBy) != ""
}

// Verify checks the signature of a request that Claims to be passed on and
// returns its request id. It reads r's body to hash it and leaves r with
// the same body to read again. A request whose signature does not verify
// is forbidden.
func Verify(ctx context.Context, dir Directory, r *http.Request) (string, error) {
	id := r.Header.Get(HeaderRequestID)
	secret, err := dir.ClusterSecret(ctx)
	if err != nil {
		return "", err
	}
	body, err := readBody(r)
	if err != nil {
		return "", err
	}
	want := Sign(secret, id, r.Method, r.URL.Path, body)
	if id == "" || !hmac.Equal([]byte(r.Header.Get(HeaderSignature)), []byte(want)) {
		return "", venue.Forbidden("the request claims to be passed on by another instance and is not signed by one")
	}
	return id, nil
}

// readBody reads r's body whole (at most MaxBody) and puts it back.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, &venue.Error{Kind: venue.KindTooLarge, Message: fmt.Sprintf("request body exceeds %d bytes", MaxBody)}
	}
	if err != nil {
		return nil, venue.Invalid("could not read request body")
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}

// RetryError marks a request the leader did not serve (none was found, or
// it did not answer): worth sending again in a moment.
type RetryError struct{ Err error }

func (e *RetryError) Error() string { return e.Err.Error() }

// Unwrap exposes the error, whose kind says how to answer it.
func (e *RetryError) Unwrap() error { return e.Err }

var (
	errNoAnswer = &venue.Error{Kind: venue.KindNotReady,
		Message: "the leader did not answer (a takeover may be under way); retry"}
	errNoCommandAnswer = &venue.Error{Kind: venue.KindNotReady,
		Message: "the leader did not answer (a takeover may be under way); send again"}
	errNotRun = &venue.Error{Kind: venue.KindNotReady,
		Message: "the leader did not run the command (a takeover may be under way); send again"}
	errCutOff = &venue.Error{Kind: venue.KindNotReady, Message: "the leader's answer was cut off; send again"}
)

// Forwarder passes a standby's requests to the leader, signed.
type Forwarder struct {
	dir    Directory
	from   string // this instance's id, in HeaderForwardedBy
	log    *slog.Logger
	client *http.Client // for commands; Proxy uses the default transport
}

// NewForwarder returns a forwarder for the instance with id instanceID,
// finding the leader and the secret in dir.
func NewForwarder(dir Directory, instanceID string, log *slog.Logger) *Forwarder {
	if log == nil {
		log = slog.Default()
	}
	return &Forwarder{dir: dir, from: instanceID, log: log, client: &http.Client{Timeout: 30 * time.Second}}
}

// Proxy passes r, whose request id is id, to the leader as it came
// (credentials, headers, body) and relays the leader's answer to w. An
// error before the leader answers goes to fail, as a *RetryError when the
// leader was not found or did not answer.
func (f *Forwarder) Proxy(w http.ResponseWriter, r *http.Request, id string, fail func(http.ResponseWriter, *http.Request, error)) {
	ctx := r.Context()
	leader, err := f.dir.LeaderURL(ctx)
	if err != nil {
		fail(w, r, &RetryError{err})
		return
	}
	secret, err := f.dir.ClusterSecret(ctx)
	if err != nil {
		fail(w, r, err)
		return
	}
	target, err := url.Parse(leader)
	if err != nil {
		fail(w, r, &RetryError{&venue.Error{Kind: venue.KindNotReady, Message: "the leader's address is not a URL"}})
		return
	}
	body, err := readBody(r)
	if err != nil {
		fail(w, r, err)
		return
	}
	sig := Sign(secret, id, r.Method, r.URL.Path, body)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.SetXForwarded()
			f.mark(pr.Out.Header, id, sig)
		},
		ModifyResponse: func(resp *http.Response) error {
			resp.Header.Del(HeaderRequestID) // the caller set its own, the same id
			if resp.StatusCode == http.StatusServiceUnavailable {
				f.dir.ForgetLeader(leader) // it may no longer lead: look it up again next time
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			f.dir.ForgetLeader(leader)
			f.log.WarnContext(r.Context(), "passing a request to the leader failed", "id", id, "leader", leader, "err", err.Error())
			fail(w, r, &RetryError{errNoAnswer})
		},
	}
	proxy.ServeHTTP(w, r)
}

// mark sets the headers of a passed request.
func (f *Forwarder) mark(h http.Header, id, sig string) {
	h.Set(HeaderRequestID, id)
	h.Set(HeaderForwardedBy, f.from)
	h.Set(HeaderSignature, sig)
}

// CommandAnswer is the leader's answer to a passed command, with status
// 200: the id of the record the command made or changed, or the venue's
// error.
type CommandAnswer struct {
	ID    string        `json:"id,omitempty"`
	Error *CommandError `json:"error,omitempty"`
}

// CommandError is a venue error as it crosses between instances.
type CommandError struct {
	Kind    venue.Kind         `json:"kind"`
	Message string             `json:"message"`
	Details []venue.FieldIssue `json:"details,omitempty"`
}

// AnswerOf is the answer to a command that returned id and err. An
// internal error's detail stays on the leader.
func AnswerOf(id string, err error) CommandAnswer {
	if err == nil {
		return CommandAnswer{ID: id}
	}
	var e *venue.Error
	if !errors.As(err, &e) || e.Kind == venue.KindInternal {
		e = &venue.Error{Kind: venue.KindInternal, Message: "internal error"}
	}
	return CommandAnswer{Error: &CommandError{Kind: e.Kind, Message: e.Message, Details: e.Details}}
}

// Command passes cmd, a trading command as JSON encodes it, to the
// leader's CommandsPath and returns the leader's answer: the id of the
// record the command made or changed, or the venue's error. A leader that
// did not answer, or no longer leads, is a venue.KindNotReady error: send
// again.
func (f *Forwarder) Command(ctx context.Context, cmd any) (string, error) {
	leader, err := f.dir.LeaderURL(ctx)
	if err != nil {
		return "", err
	}
	secret, err := f.dir.ClusterSecret(ctx)
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(cmd)
	if err != nil {
		return "", fmt.Errorf("pass a command to the leader: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, leader+CommandsPath, bytes.NewReader(body))
	if err != nil {
		return "", &RetryError{&venue.Error{Kind: venue.KindNotReady, Message: "the leader's address is not a URL"}}
	}
	id := uuid.NewString()
	req.Header.Set("Content-Type", "application/json")
	f.mark(req.Header, id, Sign(secret, id, req.Method, CommandsPath, body))
	resp, err := f.client.Do(req)
	if err != nil {
		f.dir.ForgetLeader(leader)
		return "", errNoCommandAnswer
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusServiceUnavailable:
		f.dir.ForgetLeader(leader)
		return "", errNotRun
	case http.StatusForbidden:
		return "", venue.Forbidden("the leader refused the command's signature")
	default:
		return "", fmt.Errorf("pass a command to the leader: it answered %d", resp.StatusCode)
	}
	var out CommandAnswer
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil {
		return "", errCutOff
	}
	if out.Error != nil {
		return "", &venue.Error{Kind: out.Error.Kind, Message: out.Error.Message, Details: out.Error.Details}
	}
	return out.ID, nil
}
