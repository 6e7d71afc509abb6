package socketio_test

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/bondvenue/bondvenue/internal/socketio"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts under testdata/")

// transcript records the frames of one Engine.IO connection, one line
// each: the transport and direction ("GET <" a poll's answer, "POST >",
// "WS >", "WS <"), then the frame with what changes from run to run (ids,
// the token, times) replaced by placeholders.
type transcript struct {
	b strings.Builder
}

var (
	sidRE   = regexp.MustCompile(`"sid":"[^"]+"`)
	tokenRE = regexp.MustCompile(`"token":"[^"]+"`)
	recRE   = regexp.MustCompile(`^(42/\w+,\["[\w.]+"),.*\]$`)
)

func (tr *transcript) add(dir, frame string) {
	frame = sidRE.ReplaceAllString(frame, `"sid":"<sid>"`)
	frame = tokenRE.ReplaceAllString(frame, `"token":"<token>"`)
	frame = recRE.ReplaceAllString(frame, `$1,<record>,<meta>]`)
	frame = strings.ReplaceAll(frame, "\x1e", "<RS>")
	tr.b.WriteString(dir + " " + frame + "\n")
}

// check compares the transcript with testdata/<name>.sio (rewritten with
// -update).
func (tr *transcript) check(t *testing.T, name string) {
	t.Helper()
	path := filepath.Join("testdata", name+".sio")
	got := tr.b.String()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (go test ./internal/socketio -run %s -update writes it)", path, err, t.Name())
	}
	if got != string(want) {
		t.Errorf("transcript differs from %s:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestUpgradeAnswersPendingPoll plays the official client's upgrade on a
// quiet connection, frame by frame: a long-polling session with a
// namespace open, its poll pending, probes a WebSocket. The client sends
// "5" only once its poll has ended, so the server must end the pending
// poll with a noop when the probe arrives — and a poll that crossed the
// probe's answer too — with no ping to do it (the heartbeat is an hour
// away, so that none comes while the test runs, however slowly; a poll
// left to wait would end the test). After the upgrade, events come over
// the WebSocket, and the polling transport is refused.
func TestUpgradeAnswersPendingPoll(t *testing.T) {
	v := newVenue(t, store.SQLite, socketio.Config{PingInterval: time.Hour, PingTimeout: time.Hour})
	var tr transcript
	var sid string
	get := func() (int, string) {
		r, err := http.Get(v.http + "?EIO=4&transport=polling&sid=" + sid)
		if err != nil {
			return 0, err.Error()
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(b)
	}
	// pending starts a poll and returns its answer's channel.
	pending := func() <-chan string {
		ch := make(chan string, 1)
		go func() {
			_, b := get()
			ch <- b
		}()
		return ch
	}
	// ended waits for a poll's answer: the noop (a poll left to wait for
	// the ping would hold it past the test's time).
	ended := func(ch <-chan string, what string) string {
		t.Helper()
		select {
		case b := <-ch:
			return b
		case <-testenv.Expired(t):
			t.Fatalf("%s: the pending poll did not end (the client cannot send its upgrade)", what)
		}
		return ""
	}

	r, err := http.Get(v.http + "?EIO=4&transport=polling")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	var hs struct{ SID string }
	if !strings.HasPrefix(string(b), "0") || json.Unmarshal(b[1:], &hs) != nil || hs.SID == "" {
		t.Fatalf("polling handshake %q", b)
	}
	sid = hs.SID
	tr.add("GET <", string(b))

	connect := `40/news,{"token":"` + v.token(t, 0, venue.RoleTrader) + `"}`
	r, err = http.Post(v.http+"?EIO=4&transport=polling&sid="+sid, "text/plain;charset=UTF-8", strings.NewReader(connect))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(r.Body)
	r.Body.Close()
	tr.add("POST >", connect)
	tr.add("POST <", string(b))
	_, b2 := get() // the connect and the subscription, queued by the POST
	tr.add("GET <", b2)

	poll := pending()
	time.Sleep(100 * time.Millisecond) // the poll reaches the server and waits
	ctx := testenv.Context(t)
	ws, _, err := websocket.Dial(ctx, v.url+"&sid="+sid, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	wsSend := func(f string) {
		t.Helper()
		if err := ws.Write(ctx, websocket.MessageText, []byte(f)); err != nil {
			t.Fatal(err)
		}
		tr.add("WS >", f)
	}
	wsRead := func() {
		t.Helper()
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tr.add("WS <", string(b))
	}
	wsSend("2probe")
	wsRead() // 3probe
	tr.add("GET <", ended(poll, "after the probe"))
	// A poll that crossed the probe's answer on the wire also ends.
	tr.add("GET <", ended(pending(), "a poll after the probe"))
	wsSend("5")

	if _, err := v.svc.CreateNews(context.Background(), trading.System, trading.NewsInput{Title: "Upgraded", Body: "Over the WebSocket."}); err != nil {
		t.Fatal(err)
	}
	wsRead() // the news
	status, body := get()
	if status != http.StatusBadRequest {
		t.Errorf("a poll after the upgrade: %d, want 400", status)
	}
	tr.add("GET <", body)

	// A second WebSocket for the same session is refused.
	ws2, _, err := websocket.Dial(ctx, v.url+"&sid="+sid, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws2.CloseNow()
	_ = ws2.Write(ctx, websocket.MessageText, []byte("2probe"))
	if _, b, err := ws2.Read(ctx); err == nil {
		t.Errorf("a second upgrade of an upgraded session: answered %q, want it closed", b)
	}
	tr.check(t, "upgrade")
}
