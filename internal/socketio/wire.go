package socketio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// This file is the wire format of the two protocols, in one place:
// Engine.IO v4 packets (one per WebSocket text frame: a type digit, then
// the data) carrying Socket.IO v5 packets (a type digit, the namespace
// unless it is "/", an optional ack id, a JSON payload).

// Engine.IO packet types.
const (
	eioOpen    = '0'
	eioClose   = '1'
	eioPing    = '2'
	eioPong    = '3'
	eioMessage = '4'
	eioUpgrade = '5'
	eioNoop    = '6'
)

// Socket.IO packet types.
const (
	sioConnect      = '0'
	sioDisconnect   = '1'
	sioEvent        = '2'
	sioAck          = '3'
	sioConnectError = '4'
)

// packet is a decoded Socket.IO packet.
type packet struct {
	typ  byte
	nsp  string
	data json.RawMessage // the JSON payload, if any
}

// parsePacket decodes a Socket.IO packet (an Engine.IO message's data).
// Binary packets (attachments) are refused: nothing of the venue's takes
// binary data.
func parsePacket(s string) (packet, error) {
	if s == "" {
		return packet{}, fmt.Errorf("empty packet")
	}
	p := packet{typ: s[0], nsp: "/"}
	switch p.typ {
	case sioConnect, sioDisconnect, sioEvent, sioAck:
	default:
		return p, fmt.Errorf("packet type %q not accepted from a client", p.typ)
	}
	rest := s[1:]
	if strings.HasPrefix(rest, "/") {
		end := strings.IndexByte(rest, ',')
		if end < 0 {
			p.nsp, rest = rest, ""
		} else {
			p.nsp, rest = rest[:end], rest[end+1:]
		}
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' { // an ack id: the venue sends no acks
		i++
	}
	rest = rest[i:]
	if rest != "" {
		if !json.Valid([]byte(rest)) {
			return p, fmt.Errorf("payload is not JSON")
		}
		p.data = json.RawMessage(rest)
	}
	return p, nil
}

// prefix is the start of a packet of type typ on namespace nsp.
func prefix(typ byte, nsp string) []byte {
	b := []byte{eioMessage, typ}
	if nsp != "/" {
		b = append(b, nsp...)
		b = append(b, ',')
	}
	return b
}

// connectFrame answers a namespace CONNECT.
func connectFrame(nsp, sid string) []byte {
	return append(prefix(sioConnect, nsp), `{"sid":`+strconv.Quote(sid)+`}`...)
}

// connectErrorFrame refuses a namespace CONNECT: {"message", "data"}.
func connectErrorFrame(nsp, message string, data any) []byte {
	b, _ := json.Marshal(struct {
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}{message, data})
	return append(prefix(sioConnectError, nsp), b...)
}

// disconnectFrame ends a namespace socket from the server's side.
func disconnectFrame(nsp string) []byte { return prefix(sioDisconnect, nsp) }

// eventFrame is an EVENT of name with its arguments.
func eventFrame(nsp, name string, args ...any) ([]byte, error) {
	var buf bytes.Buffer
	buf.Write(prefix(sioEvent, nsp))
	buf.WriteByte('[')
	n, _ := json.Marshal(name)
	buf.Write(n)
	for _, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", name, err)
		}
		buf.WriteByte(',')
		buf.Write(b)
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

// recordSeparator joins the packets of a long-polling payload.
const recordSeparator = 0x1e

// openFrame is the Engine.IO handshake; upgrades lists the transports a
// polling session may move to.
func openFrame(sid string, upgrades []string, pingInterval, pingTimeout, maxPayload int64) []byte {
	b, _ := json.Marshal(struct {
		SID          string   `json:"sid"`
		Upgrades     []string `json:"upgrades"`
		PingInterval int64    `json:"pingInterval"`
		PingTimeout  int64    `json:"pingTimeout"`
		MaxPayload   int64    `json:"maxPayload"`
	}{sid, upgrades, pingInterval, pingTimeout, maxPayload})
	return append([]byte{eioOpen}, b...)
}
