package cluster_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// directory is a fixed leader and secret; it counts ForgetLeader calls.
type directory struct {
	url    string
	secret []byte
	mu     sync.Mutex
	forgot int
}

func (d *directory) LeaderURL(context.Context) (string, error)     { return d.url, nil }
func (d *directory) ClusterSecret(context.Context) ([]byte, error) { return d.secret, nil }
func (d *directory) ForgetLeader(string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.forgot++
}

// TestVerify: a passed request verifies only with its own id, method, path
// and body, signed with the instances' secret; Verify leaves the body to
// read again.
func TestVerify(t *testing.T) {
	dir := &directory{secret: []byte("shared")}
	sign := func(secret, id, method, path, body string) string {
		return cluster.Sign([]byte(secret), id, method, path, []byte(body))
	}
	tests := []struct {
		name, id, sig string
		wantErr       bool
	}{
		{"signed", "r1", sign("shared", "r1", "POST", "/p", "{}"), false},
		{"another id", "r2", sign("shared", "r1", "POST", "/p", "{}"), true},
		{"another method", "r1", sign("shared", "r1", "PUT", "/p", "{}"), true},
		{"another path", "r1", sign("shared", "r1", "POST", "/q", "{}"), true},
		{"another body", "r1", sign("shared", "r1", "POST", "/p", "{ }"), true},
		{"another secret", "r1", sign("other", "r1", "POST", "/p", "{}"), true},
		{"no id", "", sign("shared", "", "POST", "/p", "{}"), true},
		{"no signature", "r1", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/p", strings.NewReader("{}"))
			r.Header.Set(cluster.HeaderRequestID, tt.id)
			r.Header.Set(cluster.HeaderForwardedBy, "standby")
			r.Header.Set(cluster.HeaderSignature, tt.sig)
			if !cluster.Claims(r) {
				t.Fatal("Claims = false for a request with the headers")
			}
			id, err := cluster.Verify(context.Background(), dir, r)
			if tt.wantErr {
				if venue.KindOf(err) != venue.KindForbidden {
					t.Errorf("Verify = %q, %v, want a forbidden error", id, err)
				}
				return
			}
			if err != nil || id != tt.id {
				t.Fatalf("Verify = %q, %v, want %q", id, err, tt.id)
			}
			if b, _ := io.ReadAll(r.Body); string(b) != "{}" {
				t.Errorf("body after Verify = %q, want {}", b)
			}
		})
	}
	if cluster.Claims(httptest.NewRequest("GET", "/", nil)) {
		t.Error("Claims = true for a request without the headers")
	}
}

// TestCommand: a command reaches the leader signed, and its answer — an
// id, the venue's error, a refusal, a leader that no longer leads — comes
// back as the sender's result.
func TestCommand(t *testing.T) {
	dir := &directory{secret: []byte("shared")}
	var status int
	var answer cluster.CommandAnswer
	leader := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != cluster.CommandsPath || !cluster.Claims(r) {
			t.Errorf("%s %s: not a passed command", r.Method, r.URL.Path)
		}
		if _, err := cluster.Verify(r.Context(), dir, r); err != nil {
			t.Errorf("Verify = %v", err)
		}
		var cmd map[string]string
		if err := json.NewDecoder(r.Body).Decode(&cmd); err != nil || cmd["op"] != "cancel" {
			t.Errorf("command %v, %v", cmd, err)
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(answer)
	}))
	defer leader.Close()
	dir.url = leader.URL
	f := cluster.NewForwarder(dir, "standby", nil)
	tests := []struct {
		name     string
		status   int
		answer   cluster.CommandAnswer
		wantID   string
		wantKind venue.Kind
	}{
		{"applied", 200, cluster.AnswerOf("o1", nil), "o1", -1},
		{"refused", 200, cluster.AnswerOf("", venue.NotFound("offer")), "", venue.KindNotFound},
		{"internal", 200, cluster.AnswerOf("", errors.New("secret detail")), "", venue.KindInternal},
		{"not the leader", 503, cluster.CommandAnswer{}, "", venue.KindNotReady},
		{"unsigned", 403, cluster.CommandAnswer{}, "", venue.KindForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, answer = tt.status, tt.answer
			id, err := f.Command(context.Background(), map[string]string{"op": "cancel"})
			if tt.wantKind < 0 {
				if err != nil || id != tt.wantID {
					t.Errorf("Command = %q, %v, want %q", id, err, tt.wantID)
				}
				return
			}
			if venue.KindOf(err) != tt.wantKind {
				t.Errorf("Command = %q, %v, want kind %v", id, err, tt.wantKind)
			}
			if err != nil && strings.Contains(err.Error(), "secret detail") {
				t.Errorf("Command = %v: an internal error's detail left the leader", err)
			}
		})
	}
	if dir.forgot != 1 {
		t.Errorf("ForgetLeader called %d times, want once (after the 503)", dir.forgot)
	}
}
