package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// TestRawConn drives the lean client against net/http's server: bodies
// with a length and chunked, keep-alive and Connection: close, errors.
func TestRawConn(t *testing.T) {
	big := strings.Repeat("x", 10000) // past net/http's buffer: sent chunked
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch string(body) {
		case "small":
			w.Header().Set("Content-Length", "2")
			_, _ = w.Write([]byte("ok"))
		case "big":
			_, _ = w.Write([]byte(big))
		case "close":
			w.Header().Set("Connection", "close")
			_, _ = w.Write([]byte("bye"))
		case "busy":
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case "slow":
			select {
			case <-r.Context().Done():
			case <-release:
			}
		case "token":
			_, _ = fmt.Fprint(w, r.Header.Get("Authorization")+" "+r.URL.RequestURI()+" "+r.Header.Get("Content-Type"))
		default:
			http.Error(w, "nope", http.StatusTeapot)
		}
	}))
	defer srv.Close()
	defer close(release) // first: Close waits for a handler still in "slow"

	c, err := newRawConn(srv.URL + "/p?q=1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	var resp bytes.Buffer
	for _, tt := range []struct {
		body, token string
		status      int
		want        string
	}{
		{"small", "", 200, "ok"},
		{"big", "", 200, big},
		{"token", "t0k", 200, "Bearer t0k /p?q=1 application/json"},
		{"close", "", 200, "bye"},
		{"small", "", 200, "ok"}, // after the server closed: a new connection
		{"other", "", 418, "nope\n"},
		{"big", "", 200, big},
	} {
		status, err := c.post([]byte(tt.body), tt.token, &resp)
		if err != nil || status != tt.status || resp.String() != tt.want {
			t.Errorf("post(%q) = %d, %.40q, %v; want %d, %.40q", tt.body, status, resp.String(), err, tt.status, tt.want)
		}
	}
	if status, err := c.post([]byte("busy"), "", &resp); err != nil || status != 503 || !c.retryAfter {
		t.Errorf("post(busy) = %d, %v, Retry-After seen %v; want 503 with Retry-After", status, err, c.retryAfter)
	}
	if _, err := c.post([]byte("small"), "", &resp); err != nil || c.retryAfter {
		t.Errorf("post(small) after a Retry-After: %v, Retry-After seen %v; want none", err, c.retryAfter)
	}
	if _, err := c.postBy(time.Now().Add(50*time.Millisecond), []byte("slow"), "", &resp); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("postBy(slow) past its deadline = %v, want os.ErrDeadlineExceeded", err)
	}
	if status, err := c.postBy(time.Now().Add(time.Minute), []byte("small"), "", &resp); err != nil || status != 200 {
		t.Errorf("postBy(small) after a time-out = %d, %v; want 200 on a new connection", status, err)
	}
	if _, err := newRawConn("https://example.test/"); err == nil {
		t.Error("newRawConn(https://…) succeeded, want an error: the client speaks plain HTTP")
	}
}

// TestRawConnMalformed: answers that are not HTTP are errors, not hangs.
func TestRawConnMalformed(t *testing.T) {
	for _, answer := range []string{
		"SSH-2.0-nope\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
	} {
		c := &rawConn{}
		c.r = bufioReader(answer)
		var resp bytes.Buffer
		if _, _, err := c.readResponse(&resp); err == nil {
			t.Errorf("readResponse(%q) succeeded, want an error", answer)
		}
	}
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }
