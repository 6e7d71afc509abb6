package socketio

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/testenv"
)

// TestHeldConn: a write goes out at once unless held; held writes go out
// in order, in one write, at the release; a write of the library's own
// while holding follows the held ones; a failed release reports the
// failure.
func TestHeldConn(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	h := &heldConn{Conn: a}
	read := func() string { // what one write of h's delivered
		t.Helper()
		deadline, _ := testenv.Deadline(t) // zero: none
		_ = b.SetReadDeadline(deadline)
		buf := make([]byte, 1024)
		n, err := b.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		return string(buf[:n])
	}
	go func() { _, _ = h.Write([]byte("one")) }()
	if got := read(); got != "one" {
		t.Errorf("a write not held: %q", got)
	}

	h.hold()
	for _, p := range []string{"two,", "three,", "pong"} {
		if n, err := h.Write([]byte(p)); err != nil || n != len(p) {
			t.Fatalf("held write %q: %d %v", p, n, err)
		}
	}
	_ = b.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, err := b.Read(make([]byte, 16)); !isTimeout(err) {
		t.Fatalf("held bytes reached the peer before the release: %d %v", n, err)
	}
	go func() {
		if err := h.release(); err != nil {
			t.Errorf("release: %v", err)
		}
	}()
	if got := read(); got != "two,three,pong" {
		t.Errorf("released in one write: %q, want %q", got, "two,three,pong")
	}
	go func() { _, _ = h.Write([]byte("after")) }()
	if got := read(); got != "after" {
		t.Errorf("a write after the release: %q", got)
	}

	h.hold()
	_, _ = h.Write([]byte("lost"))
	b.Close()
	if err := h.release(); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("release to a closed peer: %v, want %v", err, io.ErrClosedPipe)
	}
	if err := h.release(); err != nil {
		t.Errorf("a release with nothing held writes nothing: %v", err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
