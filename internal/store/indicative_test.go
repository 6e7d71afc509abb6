package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// indicativeDiff is diff with bondmath dates compared as values.
func indicativeDiff(want, got any) string {
	return cmp.Diff(want, got, append(cmpOpts, cmp.Comparer(func(a, b bondmath.Date) bool { return a == b }))...)
}

// TestIndicativePrices is the indicative price round trip on both engines:
// create, get, list with its filters and pages, update, delete.
func TestIndicativePrices(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		h := openHarness(t, e)
		p1, p2 := seedParticipant(t, h.db), seedParticipant(t, h.db)
		acc1, acc2 := newAccount(t, p1.ID, t0), newAccount(t, p2.ID, t0)
		u1, u2 := newUser(t, p1.ID, venue.RoleTrader, t0), newUser(t, p2.ID, venue.RoleTrader, t0)
		m := newMarket(t, t0)
		in1, in2 := newInstrument(t, t0, m.ID), newInstrument(t, t0, m.ID)
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
			for _, a := range []*venue.Account{&acc1, &acc2} {
				if err := tx.CreateAccount(ctx, a); err != nil {
					return err
				}
			}
			for _, u := range []*venue.User{&u1, &u2} {
				if err := tx.CreateUser(ctx, u); err != nil {
					return err
				}
			}
			if err := tx.CreateMarket(ctx, &m); err != nil {
				return err
			}
			for _, in := range []*venue.Instrument{&in1, &in2} {
				if err := tx.CreateInstrument(ctx, in); err != nil {
					return err
				}
			}
			return nil
		})

		settle := bondmath.MustDate(2026, time.November, 24)
		twoWay := venue.IndicativePrice{ID: newID(t), ParticipantID: p1.ID, AccountID: acc1.ID, UserID: u1.ID,
			InstrumentID: in1.ID, BidPrice: ptr(dec("99.125")), AskPrice: ptr(dec("99.5")),
			BidQuantity: ptr(dec("1000000")), AskQuantity: ptr(dec("500000")),
			BidYield: ptr(dec("2.8712345678901234")), AskYield: ptr(dec("2.8234")), SettlementDate: settle,
			ValidUntil: ptr(at(30)), CreatedAt: at(1), UpdatedAt: at(1)}
		askOnly := venue.IndicativePrice{ID: newID(t), ParticipantID: p2.ID, AccountID: acc2.ID, UserID: u2.ID,
			InstrumentID: in1.ID, AskPrice: ptr(dec("101")), AskYield: ptr(dec("-0.25")), SettlementDate: settle,
			CreatedAt: at(2), UpdatedAt: at(2)}
		otherInstrument := venue.IndicativePrice{ID: newID(t), ParticipantID: p1.ID, AccountID: acc1.ID, UserID: u1.ID,
			InstrumentID: in2.ID, BidPrice: ptr(dec("98")), BidYield: ptr(dec("3.1")), SettlementDate: settle,
			ValidUntil: ptr(at(5)), CreatedAt: at(3), UpdatedAt: at(3)}

		for _, ip := range []venue.IndicativePrice{twoWay, askOnly, otherInstrument} {
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateIndicativePrice(ctx, &ip) })
			got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.IndicativePrice, error) {
				return tx.IndicativePrice(ctx, ip.ID)
			})
			if d := indicativeDiff(ip, got); d != "" {
				t.Errorf("IndicativePrice(%s) (-want +got):\n%s", ip.ID, d)
			}
		}

		lists := []struct {
			name string
			f    store.IndicativeFilter
			want []venue.IndicativePrice
		}{
			{"by instrument", store.IndicativeFilter{InstrumentID: in1.ID}, []venue.IndicativePrice{askOnly, twoWay}},
			{"by instrument and participant", store.IndicativeFilter{InstrumentID: in1.ID, ParticipantID: p1.ID}, []venue.IndicativePrice{twoWay}},
			{"by participant", store.IndicativeFilter{ParticipantID: p1.ID}, []venue.IndicativePrice{otherInstrument, twoWay}},
			{"live at valid_until", store.IndicativeFilter{ParticipantID: p1.ID, LiveAt: ptr(at(5))}, []venue.IndicativePrice{twoWay}},
			{"live before valid_until", store.IndicativeFilter{ParticipantID: p1.ID, LiveAt: ptr(at(4))}, []venue.IndicativePrice{otherInstrument, twoWay}},
			{"live later", store.IndicativeFilter{InstrumentID: in1.ID, LiveAt: ptr(at(60))}, []venue.IndicativePrice{askOnly}},
		}
		for _, tt := range lists {
			t.Run(tt.name, func(t *testing.T) {
				got := list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.IndicativePrice, string, error) {
					return tx.IndicativePrices(ctx, tt.f, store.Page{})
				})
				if d := indicativeDiff(tt.want, got); d != "" {
					t.Errorf("IndicativePrices(%+v) (-want +got):\n%s", tt.f, d)
				}
			})
		}

		t.Run("pages", func(t *testing.T) {
			f := store.IndicativeFilter{InstrumentID: in1.ID}
			var got []string
			page := store.Page{Limit: 1}
			for range 3 {
				var items []venue.IndicativePrice
				var next string
				err := h.db.View(t.Context(), func(tx *store.Tx) error {
					var err error
					items, next, err = tx.IndicativePrices(t.Context(), f, page)
					return err
				})
				if err != nil {
					t.Fatalf("IndicativePrices(%+v, %+v) = %v", f, page, err)
				}
				for _, ip := range items {
					got = append(got, ip.ID)
				}
				if next == "" {
					break
				}
				page.Cursor = next
			}
			if d := indicativeDiff([]string{askOnly.ID, twoWay.ID}, got); d != "" {
				t.Errorf("IndicativePrices pages (-want +got):\n%s", d)
			}
		})

		t.Run("update", func(t *testing.T) {
			upd := twoWay
			upd.BidPrice, upd.BidQuantity, upd.BidYield = nil, nil, nil // the bid side withdrawn
			upd.AskPrice, upd.AskYield = ptr(dec("99.75")), ptr(dec("2.79"))
			upd.SettlementDate, upd.ValidUntil = settle.AddDays(1), nil
			upd.UpdatedAt = at(10)
			// Owner, account, user, instrument and createdAt are not written.
			upd.UserID, upd.InstrumentID, upd.CreatedAt = u2.ID, in2.ID, at(9)
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateIndicativePrice(ctx, &upd) })
			want := upd
			want.UserID, want.InstrumentID, want.CreatedAt = twoWay.UserID, twoWay.InstrumentID, twoWay.CreatedAt
			got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.IndicativePrice, error) {
				return tx.IndicativePrice(ctx, upd.ID)
			})
			if d := indicativeDiff(want, got); d != "" {
				t.Errorf("IndicativePrice(%s) after update (-want +got):\n%s", upd.ID, d)
			}
		})

		t.Run("delete", func(t *testing.T) {
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.DeleteIndicativePrice(ctx, askOnly.ID) })
			err := readErr(t, h.db, func(ctx context.Context, tx *store.Tx) error {
				_, err := tx.IndicativePrice(ctx, askOnly.ID)
				return err
			})
			if !errors.Is(err, venue.ErrNotFound) {
				t.Errorf("IndicativePrice(deleted) = %v, want not found", err)
			}
		})

		t.Run("missing", func(t *testing.T) {
			missing := twoWay
			missing.ID = newID(t)
			for name, fn := range map[string]func(ctx context.Context, tx *store.Tx) error{
				"get": func(ctx context.Context, tx *store.Tx) error {
					_, err := tx.IndicativePrice(ctx, missing.ID)
					return err
				},
				"update": func(ctx context.Context, tx *store.Tx) error { return tx.UpdateIndicativePrice(ctx, &missing) },
				"delete": func(ctx context.Context, tx *store.Tx) error { return tx.DeleteIndicativePrice(ctx, missing.ID) },
			} {
				if err := h.db.InTx(t.Context(), func(tx *store.Tx) error { return fn(t.Context(), tx) }); !errors.Is(err, venue.ErrNotFound) {
					t.Errorf("%s missing indicative price = %v, want not found", name, err)
				}
			}
		})

		t.Run("unknown instrument", func(t *testing.T) {
			bad := twoWay
			bad.ID, bad.InstrumentID = newID(t), newID(t)
			err := h.db.InTx(t.Context(), func(tx *store.Tx) error { return tx.CreateIndicativePrice(t.Context(), &bad) })
			if !errors.Is(err, venue.ErrNotFound) {
				t.Errorf("CreateIndicativePrice(unknown instrument) = %v, want not found", err)
			}
		})
	})
}
