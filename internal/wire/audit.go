package wire

import (
	"encoding/json"

	"github.com/bondvenue/bondvenue/internal/audit"
)

// AuditEntry is an entry of the operator's audit trail (GET
// /api/v1/admin/audit-log): the fields its hash covers, as the canonical
// form (internal/audit) names them, with its time to the microsecond and
// the entity's states as the entry keeps them.
type AuditEntry struct {
	Seq        int64           `json:"seq"`
	At         string          `json:"at"`
	UserID     string          `json:"user_id"`
	Role       string          `json:"role"`
	Channel    string          `json:"channel"`
	Action     string          `json:"action"`
	EntityType string          `json:"entity_type"`
	EntityID   string          `json:"entity_id"`
	Before     json.RawMessage `json:"before"`
	After      json.RawMessage `json:"after"`
	Reason     string          `json:"reason"`
	PrevHash   string          `json:"prev_hash"`
	Hash       string          `json:"hash"`
}

// AuditEntryOf renders an entry. A state that is no longer JSON (a row
// changed in the database by hand) is shown as the text it holds.
func AuditEntryOf(e audit.Entry) AuditEntry {
	return AuditEntry{Seq: e.Seq, At: e.At.UTC().Format(audit.TimeLayout), UserID: e.UserID, Role: e.Role, Channel: e.Channel,
		Action: e.Action, EntityType: e.EntityType, EntityID: e.EntityID, Before: stateJSON(e.Before), After: stateJSON(e.After),
		Reason: e.Reason, PrevHash: e.PrevHash, Hash: e.Hash}
}

func stateJSON(s json.RawMessage) json.RawMessage {
	if s == nil || json.Valid(s) {
		return s
	}
	text, _ := json.Marshal(string(s))
	return text
}
