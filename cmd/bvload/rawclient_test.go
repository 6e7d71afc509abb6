package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRawConn drives the lean client against net/http's server: bodies
// with a length and chunked, keep-alive and Connection: close, errors.
func TestRawConn(t *testing.T) {
	big := strings.Repeat("x", 10000) // past net/http's buffer: sent chunked
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
		case "token":
			_, _ = fmt.Fprint(w, r.Header.Get("Authorization")+" "+r.URL.RequestURI()+" "+r.Header.Get("Content-Type"))
		default:
			http.Error(w, "nope", http.StatusTeapot)
		}
	}))
	defer srv.Close()

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
