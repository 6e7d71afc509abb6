// Package audit is the operator's audit trail (RTS 7 art. 19): one entry for
// every change an operator or a firm's admin makes to the venue — who made
// it (user, role, channel), when (UTC, to the microsecond), what (the
// entity, its state before and after) and why (the reason given). Entries
// are numbered 1..n without a gap and chained: each carries the hash of the
// entry before it and the hash of its own content, so that an entry changed
// or removed after it was written breaks the chain where it stands.
//
// The package is pure: the entries, their canonical form and hash, the state
// of a record as the trail keeps it, and the walk that verifies a chain. The
// store writes the entries in the transaction of the change they record,
// numbering and chaining them under a lock; nothing of the venue updates or
// deletes one.
//
// # The canonical form
//
// An entry's hash is the SHA-256 of its canonical form, written as 64
// lowercase hexadecimal digits. The canonical form is twelve lines, in this
// order, each ending in a line feed (0x0A):
//
//	prev=<n>:<the previous entry's hash; empty for entry 1>
//	seq=<n>:<the sequence number, in decimal>
//	at=<n>:<the time, YYYY-MM-DDThh:mm:ss.ffffffZ in UTC>
//	user=<n>:<the user id>
//	role=<n>:<the role>
//	channel=<n>:<rest, fix, cli or system>
//	action=<n>:<the action, e.g. market.update>
//	entity_type=<n>:<the entity type, e.g. market>
//	entity_id=<n>:<the entity id>
//	before=<n>:<the state before, as stored; null when there was none>
//	after=<n>:<the state after, as stored; null when there is none>
//	reason=<n>:<the reason; empty when none was given>
//
// where <n> is the length of the value in bytes (UTF-8), in decimal, so that
// no value can pass for another whatever characters it holds. The states are
// the JSON text exactly as the entry stores it, not re-encoded. Entry 1 has
// the line "prev=0:". An auditor recomputes a hash from the stored columns
// alone; see Canonical and Hash.
//
// A state is the record's fields as a JSON object with snake_case keys in
// sorted order (State); an entry's own time, not the record's, says when.
package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"
)

// TimeLayout is the canonical form's time: UTC, to the microsecond.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// Entry is one change in the trail.
type Entry struct {
	// Seq numbers the entries 1..n in the order they were written.
	Seq int64
	// At is when the change was made, in UTC to the microsecond.
	At time.Time
	// UserID, Role and Channel say who made the change and how: the
	// user's id and role, and rest, fix, cli or system.
	UserID, Role, Channel string
	// Action is what was done ("market.update", "instrument.halt",
	// "killswitch.set", ...), EntityType and EntityID to what.
	Action, EntityType, EntityID string
	// Before and After are the entity's state around the change (State):
	// nil before a create and after a delete.
	Before, After json.RawMessage
	// Reason is why, as the caller gave it ("" when none was).
	Reason string
	// PrevHash is the hash of entry Seq-1 ("" for entry 1), Hash this
	// entry's (the SHA-256 of its canonical form, in hex).
	PrevHash, Hash string
}

// Head is the first two lines of the canonical form of entry seq after an
// entry whose hash is prev: the part the store computes in the database
// when it numbers the entry there.
func Head(prev string, seq int64) []byte {
	b := field(nil, "prev", prev)
	return field(b, "seq", strconv.FormatInt(seq, 10))
}

// Body is the rest of e's canonical form after Head: every field of its
// content but its place in the chain.
func Body(e Entry) []byte {
	var b []byte
	b = field(b, "at", e.At.UTC().Format(TimeLayout))
	b = field(b, "user", e.UserID)
	b = field(b, "role", e.Role)
	b = field(b, "channel", e.Channel)
	b = field(b, "action", e.Action)
	b = field(b, "entity_type", e.EntityType)
	b = field(b, "entity_id", e.EntityID)
	b = field(b, "before", stateText(e.Before))
	b = field(b, "after", stateText(e.After))
	return field(b, "reason", e.Reason)
}

// Canonical is e's canonical form: Head then Body.
func Canonical(e Entry) []byte {
	return append(Head(e.PrevHash, e.Seq), Body(e)...)
}

// Hash is the hash e's content gives: the SHA-256 of Canonical(e), in
// lowercase hex. A stored entry whose Hash differs was changed.
func Hash(e Entry) string {
	sum := sha256.Sum256(Canonical(e))
	return hex.EncodeToString(sum[:])
}

// field appends one line of the canonical form.
func field(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, '=')
	b = strconv.AppendInt(b, int64(len(value)), 10)
	b = append(b, ':')
	b = append(b, value...)
	return append(b, '\n')
}

// stateText is a state as the canonical form writes it: its stored JSON, or
// null when there is none.
func stateText(s json.RawMessage) string {
	if s == nil {
		return "null"
	}
	return string(s)
}

// Truncate is t as an entry keeps it: UTC, to the microsecond.
func Truncate(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
