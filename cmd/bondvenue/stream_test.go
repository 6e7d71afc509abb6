package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// The official socket.io-client and its driver script (see
// internal/socketio/testdata/client).
const streamClientDir = "../../internal/socketio/testdata/client"

// TestStreamResumeAfterKill runs `bondvenue serve` and the official
// socket.io-client following /offers; kills the server with SIGKILL while
// offers are being entered, starts it again on the same address, and
// enters more (some before the client is back): the client reconnects by
// itself, resumes after the last sequence number it received, and ends
// with every acknowledged offer's offer.create exactly once, in sequence
// order. On both engines.
func TestStreamResumeAfterKill(t *testing.T) {
	needStreamClient(t)
	bin := buildBinary(t)
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			h := &crashHarness{t: t, bin: bin, dataDir: t.TempDir(), dbURL: testenv.DatabaseURL(t, e)}
			if e == store.SQLite {
				h.dbURL = ""
			}
			addr := freeAddr(t)
			h.startOn(addr, true)
			creds, err := demo.ReadCredentials(filepath.Join(h.dataDir, demo.CredentialsFile))
			if err != nil {
				t.Fatal(err)
			}
			h.setup()
			tr := h.traders[0] // a firm's trader: /offers shows it its own offers
			client := runStreamClient(t, "http://"+addr, tr.token, "/offers")
			client.await(t, "subscription", 1)

			var created []string
			offer := func(i int) {
				var o struct {
					ID string `json:"id"`
				}
				body := map[string]any{"instrument_id": h.instrument, "market_id": h.partial, "direction": "bid",
					"price_per_unit": fmt.Sprintf("%d", 80+i%10), "quantity": "1000",
					"account_id": creds.Participants[tr.firm].AccountIDs[0]}
				if code, err := h.call(tr.token, "POST", "/api/v1/participant/offers", body, &o); err != nil || code != http.StatusOK {
					t.Fatalf("create offer %d: %d %v", i, code, err)
				}
				created = append(created, o.ID)
			}
			for i := range 5 {
				offer(i)
			}
			client.await(t, "offer.create", 5)
			h.kill()
			h.startOn(addr, false)
			for i := 5; i < 10; i++ { // the first before the client is back, most likely
				offer(i)
			}
			client.await(t, "offer.create", 10)
			time.Sleep(200 * time.Millisecond) // a duplicate would arrive meanwhile

			evs := client.events("offer.create")
			if len(evs) != len(created) {
				t.Fatalf("%d offer.create events, want %d", len(evs), len(created))
			}
			for i, ev := range evs {
				if ev.id != created[i] || (i > 0 && ev.seq <= evs[i-1].seq) {
					t.Errorf("event %d: offer %s seq %d, want offer %s after seq %d", i, ev.id, ev.seq, created[i], evs[max(i-1, 0)].seq)
				}
			}
			if client.count("connect") < 2 {
				t.Errorf("the client connected %d times, want a reconnection after the kill", client.count("connect"))
			}
		})
	}
}

// needStreamClient compiles the official client, or skips the test
// without Node (fails with BONDVENUE_TEST_REQUIRE_NODE).
func needStreamClient(t *testing.T) {
	t.Helper()
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(streamClientDir, "node_modules", "socket.io-client"))
	if nodeErr != nil || modErr != nil {
		if os.Getenv("BONDVENUE_TEST_REQUIRE_NODE") != "" {
			t.Fatalf("the official client is required: node %v, node_modules %v", nodeErr, modErr)
		}
		t.Skip("node or the client's node_modules missing")
	}
	if out, err := exec.Command(filepath.Join(streamClientDir, "node_modules", ".bin", "tsc"), "-p", streamClientDir).CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}

// freeAddr returns a loopback address nothing listens on (the server is
// started on it twice).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// startOn is start on a fixed address.
func (h *crashHarness) startOn(addr string, demoData bool) {
	h.addr = addr
	h.start(demoData)
}

// streamClient is the official client's output.
type streamClient struct {
	mu    sync.Mutex
	lines []streamLine
}

type streamLine struct {
	Event string            `json:"event"`
	Args  []json.RawMessage `json:"args"`
}

type streamEvent struct {
	id  string
	seq int64
}

// env adds settings of the client (LAST_SEQ).
func runStreamClient(t *testing.T, url, token, namespaces string, env ...string) *streamClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "node", filepath.Join(streamClientDir, "dist", "client.js"))
	cmd.Env = append(os.Environ(), "URL="+url, "TOKEN="+token, "NAMESPACES="+namespaces, "TRANSPORTS=websocket")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &streamClient{}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var l streamLine
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Event != "" {
				c.mu.Lock()
				c.lines = append(c.lines, l)
				c.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	return c
}

func (c *streamClient) count(event string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, l := range c.lines {
		if l.Event == event {
			n++
		}
	}
	return n
}

// await waits until the client has printed n lines of event.
func (c *streamClient) await(t *testing.T, event string, n int) {
	t.Helper()
	for c.count(event) < n {
		if !stillTime(t) {
			got := c.count(event)
			c.mu.Lock()
			var seen []string
			for _, l := range c.lines {
				seen = append(seen, l.Event)
			}
			c.mu.Unlock()
			t.Fatalf("%d %s when the test's time ran out, want %d; the client printed %s", got, event, n, strings.Join(seen, " "))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// events are the (record id, seq) of every event of that type received.
func (c *streamClient) events(event string) []streamEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []streamEvent
	for _, l := range c.lines {
		if l.Event != event || len(l.Args) != 2 {
			continue
		}
		var rec struct {
			ID string `json:"id"`
		}
		var m struct {
			Seq int64 `json:"seq"`
		}
		_ = json.Unmarshal(l.Args[0], &rec)
		_ = json.Unmarshal(l.Args[1], &m)
		out = append(out, streamEvent{rec.ID, m.Seq})
	}
	return out
}

// seqs are the sequence numbers of every event received, in order.
func (c *streamClient) seqs() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int64
	for _, l := range c.lines {
		if len(l.Args) != 2 {
			continue
		}
		var m struct {
			Seq int64 `json:"seq"`
		}
		if json.Unmarshal(l.Args[1], &m) == nil && m.Seq > 0 {
			out = append(out, m.Seq)
		}
	}
	return out
}
