package socketio_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/bondvenue/bondvenue/internal/socketio"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// TestEngineIOFrames holds the Engine.IO layer's frames to
// testdata/engineio.sio, with no namespace opened (so nothing of
// Socket.IO or of the venue's streams takes part): the refusals of a bad
// request, by code; a long-polling session's handshake, heartbeat (the
// server pings, the client's pong goes in a POST) and the client's close;
// and a WebSocket session's handshake, heartbeat, a message the server
// cannot read (closing the connection), then a fresh session's close.
func TestEngineIOFrames(t *testing.T) {
	v := newVenue(t, store.SQLite, socketio.Config{PingInterval: time.Second, PingTimeout: time.Hour})
	var tr transcript
	do := func(method, query, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, v.http+query, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, strings.TrimSpace(string(b))
	}
	refuse := func(method, query string, want int) {
		t.Helper()
		status, body := do(method, query, "")
		if status != want {
			t.Errorf("%s %s: status %d, want %d", method, query, status, want)
		}
		tr.add(method+" "+query+" <", body)
	}
	refuse(http.MethodGet, "?EIO=3&transport=polling", http.StatusBadRequest)
	refuse(http.MethodGet, "?EIO=4&transport=carrier-pigeon", http.StatusBadRequest)
	refuse(http.MethodGet, "?EIO=4&transport=polling&sid=no-such-session", http.StatusBadRequest)
	refuse(http.MethodPost, "?EIO=4&transport=polling", http.StatusBadRequest)

	// Long-polling: handshake, a ping the client answers, its close.
	_, open := do(http.MethodGet, "?EIO=4&transport=polling", "")
	sid := sidOf(t, open)
	tr.add("GET <", open)
	q := "?EIO=4&transport=polling&sid=" + sid
	_, ping := do(http.MethodGet, q, "") // waits for the heartbeat
	tr.add("GET <", ping)
	post := func(frame string) {
		t.Helper()
		status, body := do(http.MethodPost, q, frame)
		if status != http.StatusOK {
			t.Errorf("POST %q: status %d (%s)", frame, status, body)
		}
		tr.add("POST >", frame)
		tr.add("POST <", body)
	}
	post("3")
	post("1")
	status, body := do(http.MethodGet, q, "")
	if status != http.StatusBadRequest {
		t.Errorf("a poll after the client's close: status %d, want 400", status)
	}
	tr.add("GET <", body)

	// WebSocket: handshake, a ping the client answers, a frame the server
	// cannot read.
	ctx := testenv.Context(t)
	dial := func() *websocket.Conn {
		t.Helper()
		ws, _, err := websocket.Dial(ctx, v.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.CloseNow() })
		return ws
	}
	read := func(ws *websocket.Conn) string {
		t.Helper()
		_, b, err := ws.Read(ctx)
		if err != nil {
			return "(closed)"
		}
		tr.add("WS <", string(b))
		return string(b)
	}
	// readPast reads the next frame other than a ping: a heartbeat comes
	// every second, and whether one falls before the server's answer is
	// the machine's timing, not the transcript's.
	readPast := func(ws *websocket.Conn) string {
		t.Helper()
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				return "(closed)"
			}
			if string(b) != "2" {
				tr.add("WS <", string(b))
				return string(b)
			}
		}
	}
	send := func(ws *websocket.Conn, frame string) {
		t.Helper()
		if err := ws.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		tr.add("WS >", frame)
	}
	ws := dial()
	sidOf(t, read(ws))
	read(ws) // the heartbeat's ping
	send(ws, "3")
	send(ws, "9garbage")
	if got := readPast(ws); got != "(closed)" {
		t.Errorf("after an unreadable frame the server sent %q, want the connection closed", got)
	}
	tr.add("WS <", "(closed)")

	ws = dial()
	sidOf(t, read(ws))
	send(ws, "1")
	if got := readPast(ws); got != "(closed)" {
		t.Errorf("after the client's close the server sent %q, want the connection closed", got)
	}
	tr.add("WS <", "(closed)")
	tr.check(t, "engineio")
}

// sidOf is the session id of an Engine.IO open frame.
func sidOf(t *testing.T, open string) string {
	t.Helper()
	_, rest, ok := strings.Cut(open, `"sid":"`)
	sid, _, ok2 := strings.Cut(rest, `"`)
	if !strings.HasPrefix(open, "0{") || !ok || !ok2 || sid == "" {
		t.Fatalf("not an open frame: %q", open)
	}
	return sid
}
