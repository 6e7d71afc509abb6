package socketio

import (
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/wire"
)

// Frames the session layer writes, for its golden frames (session_test.go).
var (
	ConnectFrame      = connectFrame
	ConnectErrorFrame = connectErrorFrame
	DisconnectFrame   = disconnectFrame
)

// EventFrame is the frame of an event: its record and its meta.
func EventFrame(nsp, name string, record any, seq int64, at time.Time) ([]byte, error) {
	return eventFrame(nsp, name, record, meta{Seq: seq, Type: name, OccurredAt: wire.Time(at)})
}

// ParsePacket is a client packet as the session reads it, or why not.
func ParsePacket(s string) string {
	p, err := parsePacket(s)
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("type %c nsp %s data %s", p.typ, p.nsp, p.data)
}
