package wire

import (
	"github.com/bondvenue/bondvenue/internal/orderrecords"
	"github.com/bondvenue/bondvenue/internal/records"
)

// ReplayedBook is a book rebuilt from the order records at an instant.
type ReplayedBook struct {
	MarketID     string `json:"market_id"`
	InstrumentID string `json:"instrument_id"`
	// At is the instant, UTC to the microsecond.
	At string `json:"at"`
	// Records is how many order records the replay read; LastSequence the
	// sequence number of the last of them (0: none).
	Records      int             `json:"records"`
	LastSequence int64           `json:"last_sequence_number"`
	Bids         []RestingRecord `json:"bids"`
	Asks         []RestingRecord `json:"asks"`
}

// RestingRecord is one order resting in a replayed book.
type RestingRecord struct {
	OrderID       string `json:"order_id"`
	ParticipantID string `json:"participant_id"`
	Price         string `json:"price"`
	Remaining     string `json:"remaining_quantity"`
	PriorityTime  string `json:"priority_time"`
}

// ReplayedBookOf is b on the wire: prices and quantities as exact decimal
// strings, as the records keep them.
func ReplayedBookOf(b orderrecords.Replayed) ReplayedBook {
	side := func(rs []records.Resting) []RestingRecord {
		out := make([]RestingRecord, len(rs))
		for i, r := range rs {
			out[i] = RestingRecord{OrderID: r.OrderID, ParticipantID: r.ParticipantID, Price: r.Price.String(),
				Remaining: r.Remaining.String(), PriorityTime: r.PriorityTime}
		}
		return out
	}
	return ReplayedBook{MarketID: b.MarketID, InstrumentID: b.InstrumentID, At: b.At.UTC().Format(records.TimeLayout),
		Records: b.Records, LastSequence: b.Last, Bids: side(b.Book.Bids), Asks: side(b.Book.Asks)}
}
