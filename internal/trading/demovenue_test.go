package trading_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/access"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// setLimit sets one of participant i's risk limits.
func setLimit(t *testing.T, v *testenv.DemoVenue, i int, name, value string) {
	t.Helper()
	if _, err := v.Svc.SetRiskLimit(context.Background(), trading.System, v.Creds.Participants[i].ID,
		trading.RiskLimitInput{Name: name, Value: ptrTo(udecimal.MustParse(value))}); err != nil {
		t.Fatalf("SetRiskLimit(%d, %s, %s) = %v", i, name, value, err)
	}
}

// offers reads every firm offer on v's instrument from the database.
func offersOf(t *testing.T, v *testenv.DemoVenue) []venue.Offer {
	t.Helper()
	var out []venue.Offer
	err := v.DB.View(context.Background(), func(tx *store.Tx) error {
		var err error
		out, _, err = tx.Offers(context.Background(), store.OfferFilter{Types: []string{venue.TypeOffer}, InstrumentID: v.Instrument}, venue.Page{})
		return err
	})
	if err != nil {
		t.Fatalf("read offers: %v", err)
	}
	return out
}

func dec(s string) udecimal.Decimal { return udecimal.MustParse(s) }

func ptrTo[T any](v T) *T { return &v }

// unstarted is a service on db whose sequencer never starts: what an
// admin command or another process writes through.
func unstarted(db *store.DB, cfg trading.Config) *trading.Service {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return trading.New(trading.Deps{Store: db, Sequencer: sequencer.New(db, slog.New(slog.DiscardHandler), now, 0),
		Tokens: access.New(db, access.Config{Hasher: cfg.Hasher, Now: now})}, cfg)
}
