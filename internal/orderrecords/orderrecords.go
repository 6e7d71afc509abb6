// Package orderrecords holds the use cases over the venue's order records
// (internal/records) that the adapters call: a day's records exported for
// the regulator, and a book replayed at a past instant. Both are the
// venue operator's; neither ever changes a record.
package orderrecords

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Service reads the order records.
type Service struct {
	db  *store.DB
	now func() time.Time
}

// New returns the service on db; now is the venue's clock.
func New(db *store.DB, now func() time.Time) *Service { return &Service{db: db, now: now} }

// readers are the roles that may read the order records.
var readers = []venue.Role{venue.RoleOperator}

func authorize(p venue.Principal) error {
	for _, r := range readers {
		if p.Role == r {
			return nil
		}
	}
	return venue.Forbidden("role %s may not read the order records", p.Role)
}

// ExportQuery selects one day's records, optionally of one participant
// or instrument.
type ExportQuery struct {
	Date          string // YYYY-MM-DD, UTC: required
	ParticipantID string
	InstrumentID  string
}

// Check validates q before any record is written, so that a bad query is
// answered with an error rather than an empty export: a malformed id is
// invalid, an unknown participant or instrument not found.
func (s *Service) Check(ctx context.Context, p venue.Principal, q ExportQuery) error {
	if err := authorize(p); err != nil {
		return err
	}
	var v venue.Validator
	_, err := time.Parse(time.DateOnly, q.Date)
	v.Check(q.Date != "" && err == nil, "date", "is required: a day as YYYY-MM-DD (UTC)")
	v.Check(q.ParticipantID == "" || venue.ValidID(q.ParticipantID), "participant_id", "must be a participant's id")
	v.Check(q.InstrumentID == "" || venue.ValidID(q.InstrumentID), "instrument_id", "must be an instrument's id")
	if err := v.Err(); err != nil {
		return err
	}
	return s.db.View(ctx, func(tx *store.Tx) error {
		if q.ParticipantID != "" {
			if _, err := tx.Participant(ctx, q.ParticipantID); err != nil {
				return notFound(err, "participant")
			}
		}
		if q.InstrumentID != "" {
			if _, err := tx.Instrument(ctx, q.InstrumentID); err != nil {
				return notFound(err, "instrument")
			}
		}
		return nil
	})
}

// notFound names what a read did not find; other errors pass.
func notFound(err error, what string) error {
	var ve *venue.Error
	if errors.As(err, &ve) && ve.Kind == venue.KindNotFound {
		return venue.NotFound(what)
	}
	return err
}

// Export writes the records q selects to w in sequence order, a page at
// a time: memory stays bounded however large the day.
func (s *Service) Export(ctx context.Context, p venue.Principal, q ExportQuery, w records.Writer) (int, error) {
	if err := s.Check(ctx, p, q); err != nil {
		return 0, err
	}
	n := 0
	err := s.db.OrderRecords(ctx, store.RecordFilter{Day: q.Date, ParticipantID: q.ParticipantID, InstrumentID: q.InstrumentID},
		func(r records.Stored) error {
			n++
			return w.Write(r)
		})
	if err != nil {
		return n, fmt.Errorf("export order records: %w", err)
	}
	return n, w.Flush()
}

// Replayed is a book rebuilt from the records.
type Replayed struct {
	MarketID     string
	InstrumentID string
	At           time.Time
	// Records is how many records the replay read; Last the sequence
	// number of the last (0: none).
	Records int
	Last    int64
	Book    records.Book
}

// Replay rebuilds the book of instrumentID on marketID as it stood at at
// (the zero time: now) from the order records alone.
func (s *Service) Replay(ctx context.Context, p venue.Principal, marketID, instrumentID string, at time.Time) (Replayed, error) {
	if err := authorize(p); err != nil {
		return Replayed{}, err
	}
	if at.IsZero() {
		at = s.now()
	}
	at = at.UTC().Truncate(time.Microsecond)
	if !venue.ValidID(marketID) || !venue.ValidID(instrumentID) {
		return Replayed{}, venue.NotFound("market or instrument")
	}
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if _, err := tx.Market(ctx, marketID); err != nil {
			return notFound(err, "market")
		}
		_, err := tx.Instrument(ctx, instrumentID)
		return notFound(err, "instrument")
	})
	if err != nil {
		return Replayed{}, err
	}
	out := Replayed{MarketID: marketID, InstrumentID: instrumentID, At: at}
	rp := records.NewReplayer()
	err = s.db.OrderRecords(ctx, store.RecordFilter{MarketID: marketID, InstrumentID: instrumentID, Until: at}, func(r records.Stored) error {
		out.Records++
		out.Last = r.Seq
		return rp.Add(r)
	})
	if err != nil {
		return Replayed{}, fmt.Errorf("replay book: %w", err)
	}
	out.Book = rp.Book()
	return out, nil
}
