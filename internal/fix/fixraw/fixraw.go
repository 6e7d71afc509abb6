// Package fixraw is a FIX client on a bare TCP socket: it writes messages
// with their fields in the order given and reads raw messages. The venue's
// load command and the gateway's flow-control tests use it where a full
// engine would get in the way (pipelining thousands of orders, or a client
// that stops reading).
package fixraw

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Conn is one FIX session's connection, as the client side.
type Conn struct {
	c      net.Conn
	r      *bufio.Reader
	sender string
	target string

	mu  sync.Mutex // serialises writes
	seq int
	buf bytes.Buffer
}

// Dial connects to addr as sender, to the venue's target CompID.
func Dial(addr, sender, target string) (*Conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &Conn{c: c, r: bufio.NewReaderSize(c, 64<<10), sender: sender, target: target}, nil
}

// Net is the underlying connection.
func (c *Conn) Net() net.Conn { return c.c }

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

// Logon sends a Logon with a credential and reads the answer: the venue's
// Logon, or an error with the Logout's text.
func (c *Conn) Logon(clientID, secret string) error {
	if err := c.Send("A", "98", "0", "108", "30", "141", "Y", "553", clientID, "554", secret, "1137", "9"); err != nil {
		return err
	}
	m, err := c.Next(30 * time.Second)
	if err != nil {
		return err
	}
	if Field(m, 35) != "A" {
		return fmt.Errorf("logon refused: %s", Field(m, 58))
	}
	return nil
}

// Send writes a message of type typ with body fields as tag, value pairs
// in the order given.
func (c *Conn) Send(typ string, fields ...string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	c.buf.Reset()
	var body strings.Builder
	fmt.Fprintf(&body, "35=%s\x0149=%s\x0156=%s\x0134=%d\x0152=%s\x01", typ, c.sender, c.target, c.seq,
		time.Now().UTC().Format("20060102-15:04:05.000"))
	for i := 0; i+1 < len(fields); i += 2 {
		body.WriteString(fields[i])
		body.WriteByte('=')
		body.WriteString(fields[i+1])
		body.WriteByte(1)
	}
	c.buf.WriteString("8=FIXT.1.1\x019=")
	c.buf.WriteString(strconv.Itoa(body.Len()))
	c.buf.WriteByte(1)
	c.buf.WriteString(body.String())
	sum := 0
	for _, b := range c.buf.Bytes() {
		sum += int(b)
	}
	fmt.Fprintf(&c.buf, "10=%03d\x01", sum%256)
	_, err := c.c.Write(c.buf.Bytes())
	return err
}

// Next reads one message (SOH kept), waiting up to timeout.
func (c *Conn) Next(timeout time.Duration) ([]byte, error) {
	_ = c.c.SetReadDeadline(time.Now().Add(timeout))
	var out []byte
	for {
		part, err := c.r.ReadSlice(1)
		if err != nil {
			return out, err
		}
		out = append(out, part...)
		if bytes.HasPrefix(part, []byte("10=")) {
			return out, nil
		}
	}
}

// Field returns the first value of tag in a raw message ("" if absent).
func Field(m []byte, tag int) string {
	key := []byte("\x01" + strconv.Itoa(tag) + "=")
	i := bytes.Index(m, key)
	if i < 0 {
		return ""
	}
	v := m[i+len(key):]
	if j := bytes.IndexByte(v, 1); j >= 0 {
		v = v[:j]
	}
	return string(v)
}

// Text is a raw message with | for SOH.
func Text(m []byte) string { return string(bytes.ReplaceAll(m, []byte{1}, []byte{'|'})) }
