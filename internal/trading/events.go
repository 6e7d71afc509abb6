package trading

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Event is one entry of the event log as callers read it.
type Event struct {
	Seq        int64
	Type       string
	OccurredAt time.Time
	Data       json.RawMessage
}

// appendEvent records a change in the caller's transaction. participantID
// scopes who may read it; empty means every authenticated caller.
func appendEvent(ctx context.Context, tx *store.Tx, typ, participantID string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", typ, err)
	}
	_, err = tx.AppendEvents(ctx, []store.Event{{Type: typ, ParticipantID: participantID, Data: b}})
	return err
}

// Events returns up to limit events after seq that the caller may see.
func (s *Service) Events(ctx context.Context, p venue.Principal, after int64, limit int) ([]Event, error) {
	if after < 0 {
		return nil, venue.InvalidField("after", "must not be negative")
	}
	scope := p.ParticipantID
	var out []Event
	err := s.db.View(ctx, func(tx *store.Tx) error {
		out = out[:0] // View may run fn again
		evs, err := tx.Events(ctx, after, scope, limit)
		if err != nil {
			return err
		}
		var a *audience // loaded at the first indicative price event
		for _, e := range evs {
			data := json.RawMessage(e.Data)
			if strings.HasPrefix(e.Type, "indicative_price.") {
				if a == nil {
					aud, err := loadAudience(ctx, tx, p)
					if err != nil {
						return err
					}
					a = &aud
				}
				if data, err = a.redactEvent(data); err != nil {
					return err
				}
			}
			out = append(out, Event{Seq: e.Seq, Type: e.Type, OccurredAt: e.OccurredAt, Data: data})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	return out, nil
}
