package trading

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/redact"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds indicative prices (docs/guide.md, "Trading"): non-firm two-way prices a
// participant publishes per instrument. They never trade, so they bypass the
// sequencer: each change runs in one store transaction with its event.
// Every authenticated caller reads them; the owner's firm alone changes them.

// IndicativeInput is the create body of an indicative price. Server-owned
// fields (id, yields, timestamps) are not part of it.
type IndicativeInput struct {
	ParticipantID string // if set, the caller's firm
	AccountID     string
	UserID        string // if set, a user of the caller's firm; default the caller
	InstrumentID  string
	BidPrice      *udecimal.Decimal // clean, percent of par
	AskPrice      *udecimal.Decimal
	BidQuantity   *udecimal.Decimal // nominal
	AskQuantity   *udecimal.Decimal
	// SettlementDate defaults to today + 2 TARGET2 business days.
	SettlementDate *bondmath.Date
	ValidUntil     *time.Time
}

// Clearable is an update of an optional field: Set says the update names
// the field; a nil Value then clears it.
type Clearable[T any] struct {
	Set   bool
	Value *T
}

func (c Clearable[T]) apply(dst **T) {
	if c.Set {
		*dst = c.Value
	}
}

// IndicativeChange is the update entity of an indicative price. Clearing a
// side's price withdraws that side, quantity included.
type IndicativeChange struct {
	BidPrice, AskPrice       Clearable[udecimal.Decimal]
	BidQuantity, AskQuantity Clearable[udecimal.Decimal]
	SettlementDate           *bondmath.Date
	ValidUntil               Clearable[time.Time]
}

// IndicativeFilter selects indicative prices in a list.
type IndicativeFilter struct {
	// InstrumentID names an instrument the venue has (else not found).
	InstrumentID string
	// IncludeExpired also lists prices whose valid_until has passed.
	IncludeExpired bool
}

// indicativeSettlementLag is the default settlement lag in TARGET2 business
// days, the EUR bond market's T+2.
const indicativeSettlementLag = 2

// IndicativePrices lists indicative prices, newest first, as the caller may
// see them (redact.Audience).
func (s *Service) IndicativePrices(ctx context.Context, p venue.Principal, f IndicativeFilter, page venue.Page) (List[venue.IndicativePrice], error) {
	var out List[venue.IndicativePrice]
	if err := require(p, readers...); err != nil {
		return out, err
	}
	if f.InstrumentID != "" && !validID(f.InstrumentID) {
		return out, venue.InvalidField("instrument_id", "must be an instrument id")
	}
	sf := store.IndicativeFilter{InstrumentID: f.InstrumentID}
	if !f.IncludeExpired {
		now := s.clock()
		sf.LiveAt = &now
	}
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if err := checkFilterRecords(ctx, tx, f.InstrumentID, ""); err != nil {
			return err
		}
		var err error
		if out.Items, out.Next, err = tx.IndicativePrices(ctx, sf, page); err != nil {
			return err
		}
		a, err := loadAudience(ctx, tx, p)
		if err != nil {
			return err
		}
		for i := range out.Items {
			out.Items[i] = a.IndicativePrice(out.Items[i])
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("list indicative prices: %w", err)
	}
	return out, nil
}

// CreateIndicativePrice publishes an indicative price of the caller's firm.
func (s *Service) CreateIndicativePrice(ctx context.Context, p venue.Principal, in IndicativeInput) (venue.IndicativePrice, error) {
	if err := require(p, traders...); err != nil {
		return venue.IndicativePrice{}, err
	}
	var v venue.Validator
	v.Check(validID(in.InstrumentID), "instrument_id", "is required: an instrument id")
	v.Check(in.AccountID != "", "account_id", "is required: an account of the caller's firm")
	if err := v.Err(); err != nil {
		return venue.IndicativePrice{}, err
	}
	if in.ParticipantID != "" && in.ParticipantID != p.ParticipantID {
		return venue.IndicativePrice{}, venue.NotFound("participant")
	}
	var ip venue.IndicativePrice
	err := s.inTx(ctx, &ip, func(tx *store.Tx) error {
		if err := ownAccountAndUser(ctx, tx, p, in.AccountID, in.UserID); err != nil {
			return err
		}
		instr, err := tx.Instrument(ctx, in.InstrumentID)
		if errors.Is(err, venue.ErrNotFound) {
			return venue.InvalidField("instrument_id", "unknown instrument")
		}
		if err != nil {
			return err
		}
		now := tx.Now()
		ip = venue.IndicativePrice{ID: newID(), ParticipantID: p.ParticipantID, AccountID: in.AccountID,
			UserID: p.UserID, InstrumentID: instr.ID, BidPrice: in.BidPrice, AskPrice: in.AskPrice,
			BidQuantity: in.BidQuantity, AskQuantity: in.AskQuantity, CreatedAt: now, UpdatedAt: now}
		if in.UserID != "" {
			ip.UserID = in.UserID
		}
		ip.SettlementDate = bondmath.TARGET2.AddBusinessDays(bondmath.DateOf(now), indicativeSettlementLag)
		if in.SettlementDate != nil {
			ip.SettlementDate = *in.SettlementDate
		}
		if in.ValidUntil != nil {
			vu := in.ValidUntil.UTC().Truncate(time.Millisecond)
			ip.ValidUntil = &vu
		}
		if err := priceIndicative(&ip, instr, now, in.ValidUntil != nil); err != nil {
			return err
		}
		if err := tx.CreateIndicativePrice(ctx, &ip); err != nil {
			return err
		}
		return feed.Append(ctx, tx, feed.Event{Type: "indicative_price.create", IndicativePrice: &ip})
	})
	if err != nil {
		return ip, fmt.Errorf("create indicative price: %w", err)
	}
	s.noteIndicative(ctx, ip, false)
	return ip, nil
}

// ownAccountAndUser checks that the account, and the user when named,
// belong to the caller's firm; anything else is not found.
func ownAccountAndUser(ctx context.Context, tx *store.Tx, p venue.Principal, accountID, userID string) error {
	if !validID(accountID) {
		return venue.NotFound("account")
	}
	acc, err := tx.Account(ctx, accountID)
	if err != nil || acc.ParticipantID != p.ParticipantID {
		return notFoundOr(err, "account")
	}
	if userID == "" || userID == p.UserID {
		return nil
	}
	if !validID(userID) {
		return venue.NotFound("user")
	}
	u, err := tx.User(ctx, userID)
	if err != nil || u.ParticipantID != p.ParticipantID {
		return notFoundOr(err, "user")
	}
	return nil
}

// UpdateIndicativePrice changes an indicative price of the caller's firm.
func (s *Service) UpdateIndicativePrice(ctx context.Context, p venue.Principal, id string, ch IndicativeChange) (venue.IndicativePrice, error) {
	if err := require(p, traders...); err != nil {
		return venue.IndicativePrice{}, err
	}
	var ip venue.IndicativePrice
	err := s.inTx(ctx, &ip, func(tx *store.Tx) error {
		var err error
		if ip, err = ownIndicative(ctx, tx, p, id); err != nil {
			return err
		}
		instr, err := tx.Instrument(ctx, ip.InstrumentID)
		if err != nil {
			return err
		}
		ch.BidPrice.apply(&ip.BidPrice)
		ch.AskPrice.apply(&ip.AskPrice)
		ch.BidQuantity.apply(&ip.BidQuantity)
		ch.AskQuantity.apply(&ip.AskQuantity)
		if ip.BidPrice == nil && !ch.BidQuantity.Set {
			ip.BidQuantity = nil
		}
		if ip.AskPrice == nil && !ch.AskQuantity.Set {
			ip.AskQuantity = nil
		}
		if ch.SettlementDate != nil {
			ip.SettlementDate = *ch.SettlementDate
		}
		if ch.ValidUntil.Set {
			ip.ValidUntil = nil
			if ch.ValidUntil.Value != nil {
				vu := ch.ValidUntil.Value.UTC().Truncate(time.Millisecond)
				ip.ValidUntil = &vu
			}
		}
		ip.UpdatedAt = tx.Now()
		if err := priceIndicative(&ip, instr, tx.Now(), ch.ValidUntil.Value != nil); err != nil {
			return err
		}
		if err := tx.UpdateIndicativePrice(ctx, &ip); err != nil {
			return err
		}
		return feed.Append(ctx, tx, feed.Event{Type: "indicative_price.update", IndicativePrice: &ip})
	})
	if err != nil {
		return ip, fmt.Errorf("update indicative price: %w", err)
	}
	s.noteIndicative(ctx, ip, false)
	return ip, nil
}

// DeleteIndicativePrice withdraws an indicative price of the caller's firm
// and answers its final record.
func (s *Service) DeleteIndicativePrice(ctx context.Context, p venue.Principal, id string) (venue.IndicativePrice, error) {
	if err := require(p, traders...); err != nil {
		return venue.IndicativePrice{}, err
	}
	var ip venue.IndicativePrice
	err := s.inTx(ctx, &ip, func(tx *store.Tx) error {
		var err error
		if ip, err = ownIndicative(ctx, tx, p, id); err != nil {
			return err
		}
		if err := tx.DeleteIndicativePrice(ctx, id); err != nil {
			return err
		}
		return feed.Append(ctx, tx, feed.Event{Type: "indicative_price.delete", IndicativePrice: &ip})
	})
	if err != nil {
		return ip, fmt.Errorf("delete indicative price: %w", err)
	}
	s.noteIndicative(ctx, ip, true)
	return ip, nil
}

// ownIndicative loads an indicative price of the caller's firm; another
// firm's is not found.
func ownIndicative(ctx context.Context, tx *store.Tx, p venue.Principal, id string) (venue.IndicativePrice, error) {
	if !validID(id) {
		return venue.IndicativePrice{}, venue.NotFound("indicative price")
	}
	ip, err := tx.IndicativePrice(ctx, id)
	if err != nil || ip.ParticipantID != p.ParticipantID {
		return venue.IndicativePrice{}, notFoundOr(err, "indicative price")
	}
	return ip, nil
}

// priceIndicative validates ip as it is about to be written against its
// instrument and sets its yields. now is the transaction time; checkValidity
// says whether valid_until is being set and must lie in the future.
func priceIndicative(ip *venue.IndicativePrice, instr venue.Instrument, now time.Time, checkValidity bool) error {
	var v venue.Validator
	bond, bondErr := venue.BondOf(instr)
	v.Check(bondErr == nil, "instrument_id", "the instrument's terms are withheld or invalid: it cannot be priced")
	if ip.BidPrice == nil && ip.AskPrice == nil {
		v.Addf("bid_price", "is required when ask_price is absent")
		v.Addf("ask_price", "is required when bid_price is absent")
	}
	sides := []struct {
		price, qty         *udecimal.Decimal
		priceName, qtyName string
	}{
		{ip.BidPrice, ip.BidQuantity, "bid_price", "bid_quantity"},
		{ip.AskPrice, ip.AskQuantity, "ask_price", "ask_quantity"},
	}
	for _, sd := range sides {
		if sd.price != nil {
			venue.CheckPrice(&v, sd.priceName, *sd.price, instr)
		}
		if q := sd.qty; q != nil {
			v.Check(sd.price != nil, sd.qtyName, "needs "+sd.priceName+": a side without a price has no quantity")
			venue.CheckQuantity(&v, sd.qtyName, *q, instr)
		}
	}
	if ip.BidPrice != nil && ip.AskPrice != nil && ip.BidPrice.GreaterThan(*ip.AskPrice) {
		v.Addf("bid_price", "must not be above ask_price %s", ip.AskPrice)
	}
	today := bondmath.DateOf(now)
	v.Check(bondmath.TARGET2.IsBusinessDay(ip.SettlementDate), "settlement_date", "must be a TARGET2 business day")
	v.Check(!ip.SettlementDate.Before(today), "settlement_date", "must not be before today "+today.String())
	if bondErr == nil {
		v.Check(ip.SettlementDate.Before(bond.Maturity), "settlement_date", "must be before the instrument's maturity "+bond.Maturity.String())
		v.Check(!ip.SettlementDate.Before(bond.AccrualStart), "settlement_date", "must not be before the instrument's interest accrual date "+bond.AccrualStart.String())
	}
	if checkValidity && ip.ValidUntil != nil {
		v.Check(ip.ValidUntil.After(now), "valid_until", "must be in the future")
	}
	if err := v.Err(); err != nil {
		return err
	}
	ip.BidYield, ip.AskYield = nil, nil
	for _, sd := range []struct {
		price *udecimal.Decimal
		yield **udecimal.Decimal
		field string
	}{{ip.BidPrice, &ip.BidYield, "bid_price"}, {ip.AskPrice, &ip.AskYield, "ask_price"}} {
		if sd.price == nil {
			continue
		}
		y, err := bondmath.Yield(bond, ip.SettlementDate, *sd.price)
		var fe *bondmath.FieldError
		switch {
		case errors.As(err, &fe) && fe.Field == "clean_price":
			v.Addf(sd.field, "%s", fe.Issue)
		case err != nil:
			if err := v.Merge(venue.MathError(err)); err != nil {
				return err
			}
		default:
			*sd.yield = &y.Yield
		}
	}
	return v.Err()
}

// loadAudience is how much of an indicative price's owner p sees.
func loadAudience(ctx context.Context, tx *store.Tx, p venue.Principal) (redact.Audience, error) {
	a := redact.Audience{P: p, Counterparties: map[string]bool{}}
	if p.IsOperator() || p.ParticipantID == "" {
		return a, nil
	}
	ids, err := tx.Counterparties(ctx, p.ParticipantID)
	for _, id := range ids {
		a.Counterparties[id] = true
	}
	return a, err
}

// noteIndicative hands a committed indicative price to the sequencer, whose
// price collar falls back on it (internal/sequencer/controls.go). An engine that does
// not run here (a standby) reads it from the database when it starts.
func (s *Service) noteIndicative(ctx context.Context, ip venue.IndicativePrice, gone bool) {
	if !s.eng.Alive() {
		return
	}
	_, err := s.eng.Do(sequencer.WithPriority(ctx), nil, func(st *sequencer.State, b *sequencer.Batch) (any, error) {
		st.NoteIndicative(ip, gone)
		return nil, nil
	})
	if err != nil {
		s.log.Warn("indicative price not handed to the engine", "indicative_price", ip.ID, "err", err.Error())
	}
}
