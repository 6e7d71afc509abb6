package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"
)

// rawConn is the load generator's lean HTTP/1.1 client for one keep-alive
// connection, in the manner of wrk: a request is formatted into a reused
// buffer and written with one call, the response is parsed just enough to
// find its status and body (Content-Length or chunked). net/http's client
// costs several times as much CPU per request (two goroutines per
// connection, header maps, a body reader), and on a two-core machine
// whatever the generator spends, the server under test does not get.
type rawConn struct {
	host, path string
	conn       net.Conn
	r          *bufio.Reader
	req        []byte
	// retryAfter is whether the last response had a Retry-After header.
	retryAfter bool
}

func newRawConn(target string) (*rawConn, error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("target %q: want http://host:port/path", target)
	}
	path := u.RequestURI()
	return &rawConn{host: u.Host, path: path}, nil
}

// maxResponse bounds a response body the client keeps.
const maxResponse = 1 << 20

// post sends one POST with body and bearer token (none if empty) and
// reads the answer into resp (reset first). It reconnects if the server
// closed the connection since the last request.
func (c *rawConn) post(body []byte, token string, resp *bytes.Buffer) (status int, err error) {
	return c.postBy(time.Time{}, body, token, resp)
}

// postBy is post with a deadline for the whole exchange (none if zero):
// past it the request fails with an error that wraps
// os.ErrDeadlineExceeded and the connection is closed.
func (c *rawConn) postBy(deadline time.Time, body []byte, token string, resp *bytes.Buffer) (status int, err error) {
	if c.conn == nil {
		if err := c.dial(); err != nil {
			return 0, err
		}
	}
	if !deadline.IsZero() {
		if err := c.conn.SetDeadline(deadline); err != nil {
			c.close()
			return 0, err
		}
	}
	c.req = append(c.req[:0], "POST "...)
	c.req = append(c.req, c.path...)
	c.req = append(c.req, " HTTP/1.1\r\nHost: "...)
	c.req = append(c.req, c.host...)
	c.req = append(c.req, "\r\nContent-Type: application/json\r\n"...)
	if token != "" {
		c.req = append(c.req, "Authorization: Bearer "...)
		c.req = append(c.req, token...)
		c.req = append(c.req, "\r\n"...)
	}
	c.req = append(c.req, "Content-Length: "...)
	c.req = strconv.AppendInt(c.req, int64(len(body)), 10)
	c.req = append(c.req, "\r\n\r\n"...)
	c.req = append(c.req, body...)
	if _, err := c.conn.Write(c.req); err != nil {
		c.close()
		return 0, fmt.Errorf("write request: %w", err)
	}
	status, keep, err := c.readResponse(resp)
	if err != nil || !keep {
		c.close()
	}
	if err != nil {
		return 0, fmt.Errorf("read response: %w", err)
	}
	return status, nil
}

func (c *rawConn) dial() error {
	conn, err := net.DialTimeout("tcp", c.host, 5*time.Second)
	if err != nil {
		return err
	}
	c.conn = conn
	if c.r == nil {
		c.r = bufio.NewReaderSize(conn, 64<<10)
	} else {
		c.r.Reset(conn)
	}
	return nil
}

func (c *rawConn) close() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
}

var errMalformed = errors.New("malformed HTTP response")

// readResponse parses a status line, headers and a body.
func (c *rawConn) readResponse(resp *bytes.Buffer) (status int, keepAlive bool, err error) {
	resp.Reset()
	c.retryAfter = false
	line, err := c.line()
	if err != nil {
		return 0, false, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, false, errMalformed
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, false, errMalformed
	}
	keepAlive = true
	length, chunked := -1, false
	for {
		line, err := c.line()
		if err != nil {
			return 0, false, err
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, false, errMalformed
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil || length < 0 {
				return 0, false, errMalformed
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			keepAlive = !bytes.EqualFold(value, []byte("close"))
		case bytes.EqualFold(name, []byte("Retry-After")):
			c.retryAfter = len(value) > 0
		}
	}
	switch {
	case chunked:
		err = c.chunked(resp)
	case length >= 0:
		err = c.body(resp, length)
	default:
		// No length: the body runs to the end of the connection.
		_, err = io.Copy(resp, io.LimitReader(c.r, maxResponse))
		keepAlive = false
	}
	return status, keepAlive, err
}

// line reads one CRLF-terminated line without its terminator.
func (c *rawConn) line() ([]byte, error) {
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(line[:len(line)-1], []byte("\r")), nil
}

func (c *rawConn) body(resp *bytes.Buffer, n int) error {
	if n > maxResponse {
		return errMalformed
	}
	resp.Grow(n)
	_, err := io.CopyN(resp, c.r, int64(n))
	return err
}

func (c *rawConn) chunked(resp *bytes.Buffer) error {
	for {
		line, err := c.line()
		if err != nil {
			return err
		}
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		size, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 32)
		if err != nil || resp.Len()+int(size) > maxResponse {
			return errMalformed
		}
		if size == 0 {
			// Trailers, if any, end with an empty line.
			for {
				line, err := c.line()
				if err != nil {
					return err
				}
				if len(line) == 0 {
					return nil
				}
			}
		}
		if err := c.body(resp, int(size)); err != nil {
			return err
		}
		if line, err := c.line(); err != nil || len(line) != 0 {
			return errMalformed
		}
	}
}
