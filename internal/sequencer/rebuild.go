package sequencer

import (
	"container/heap"
	"context"
	"fmt"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/matching"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file rebuilds the sequencer's state from the database, at start and
// after a failed batch, each part of the state read by a load function of
// its own; Refresh reloads the reference data alone.

// publishReference makes st's reference data the request path's.
func (e *Sequencer) publishReference(st *State) {
	e.ref.Store(&Reference{markets: st.markets, instruments: st.instruments, bonds: st.bonds, version: st.refVersion})
}

func (e *Sequencer) rebuild(ctx context.Context) (*State, error) {
	st := &State{books: map[bookKey]*matching.Book{}, open: newOpenStore(), otc: map[string]map[string]*venue.Offer{},
		recipients: map[string]map[string]bool{}, rfqOwner: map[string]string{}, quotes: map[string]map[string]string{}, used: map[string]udecimal.Decimal{},
		usedUser: map[string]udecimal.Decimal{}, now: e.now().UTC(), tops: map[bookKey]bookTop{}, ladders: map[bookKey]bookLadder{},
		bookIDs: map[string]uint64{}, booked: map[uint64]string{}, portfolios: map[string]*venue.PortfolioRFQ{},
		deferrals: e.deferrals, mic: e.mic, pending: map[string]*pending{}, listSeen: map[string]map[string]string{}}
	st.csds.number("") // an unknown CSD is the books' 0
	err := e.db.SequencerTx(ctx, func(tx *store.Tx) error {
		if err := st.loadReference(ctx, tx); err != nil {
			return err
		}
		var err error
		if st.priority, err = tx.MaxPriority(ctx); err != nil {
			return err
		}
		lasts, err := st.loadLastTrades(ctx, tx)
		if err != nil {
			return err
		}
		if err := st.loadControls(ctx, tx, lasts); err != nil {
			return err
		}
		if err := st.loadPortfolios(ctx, tx); err != nil {
			return err
		}
		if err := st.loadPublications(ctx, tx); err != nil {
			return err
		}
		offers, err := tx.OpenOffers(ctx)
		if err != nil {
			return err
		}
		for i := range offers {
			// A record of its own, not a pointer into offers: the open
			// store keeps the pointers of RFQs, quotes and OTC offers, and
			// one into the slice would keep every record of it alive.
			rec := offers[i]
			o := &rec
			st.list(o)
			if o.Type == venue.TypeRFQ {
				rs, err := tx.Recipients(ctx, o.ID)
				if err != nil {
					return err
				}
				m := map[string]bool{}
				for _, r := range rs {
					m[r.ParticipantID] = r.Declined
				}
				st.recipients[o.ID] = m
				st.rfqOwner[o.ID] = o.ParticipantID
			} else {
				st.addUse(o, o.Remaining())
			}
			if o.Type == venue.TypeQuote {
				st.addQuote(o)
			}
			if o.Type == venue.TypeOffer && st.continuous(o.MarketID) {
				bo, err := st.bookOrder(o)
				if err == nil {
					err = st.book(o.MarketID, o.InstrumentID).Restore(bo)
				}
				if err != nil {
					st.forgetBookID(o)
					return fmt.Errorf("restore offer %s: %w", o.ID, err)
				}
			}
			if o.ValidUntil != nil {
				heap.Push(&st.expiries, expiry{at: *o.ValidUntil, id: o.ID})
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rebuild engine state: %w", err)
	}
	st.open.flush()
	st.syncPhases(nil)
	return st, nil
}

func (st *State) loadReference(ctx context.Context, tx *store.Tx) error {
	v, err := tx.ReferenceVersion(ctx)
	if err != nil {
		return err
	}
	st.refVersion = v
	ms, _, err := tx.Markets(ctx, store.MarketFilter{}, venue.Page{})
	if err != nil {
		return err
	}
	st.markets = map[string]venue.Market{}
	for _, m := range ms {
		st.markets[m.ID] = m
	}
	ins, _, err := tx.Instruments(ctx, store.InstrumentFilter{}, venue.Page{})
	if err != nil {
		return err
	}
	listings, err := tx.InstrumentListings(ctx)
	if err != nil {
		return err
	}
	st.instruments, st.bonds = map[string]venue.Instrument{}, map[string]bondmath.Bond{}
	for _, in := range ins {
		in.MarketIDs = listings[in.ID]
		st.instruments[in.ID] = in
		if b, err := venue.BondOf(in); err == nil {
			st.bonds[in.ID] = b
		}
	}
	if st.settlement, err = tx.Settlement(ctx); err != nil {
		return err
	}
	rels, err := tx.CounterpartyRelations(ctx)
	if err != nil {
		return err
	}
	st.cps = map[[2]string]bool{}
	for _, r := range rels {
		st.cps[[2]string{r.ParticipantID, r.CounterpartyID}] = r.Enabled
	}
	if st.leis, err = tx.ParticipantLEIs(ctx); err != nil {
		return err
	}
	ls, err := tx.AllRiskLimits(ctx)
	if err != nil {
		return err
	}
	st.limits = map[string]map[string]udecimal.Decimal{}
	for _, l := range ls {
		if st.limits[l.ParticipantID] == nil {
			st.limits[l.ParticipantID] = map[string]udecimal.Decimal{}
		}
		st.limits[l.ParticipantID][l.Name] = l.Value
	}
	return nil
}

// loadLastTrades seeds the books' last trades at a rebuild.
func (st *State) loadLastTrades(ctx context.Context, tx *store.Tx) ([]venue.Trade, error) {
	ts, err := tx.LastTrades(ctx)
	if err != nil {
		return nil, err
	}
	st.lasts = make(map[bookKey]*lastTrade, len(ts))
	for _, t := range ts {
		st.lasts[bookKey{t.MarketID, t.InstrumentID}] = &lastTrade{price: t.PricePerUnit, quantity: t.Quantity}
	}
	return ts, nil
}

// loadControls reads the kill switches, halts, latest trades and valid
// indicative prices at a rebuild.
func (st *State) loadControls(ctx context.Context, tx *store.Tx, lasts []venue.Trade) error {
	st.lastPrints = map[string]printAt{}
	for _, t := range lasts {
		if p, ok := st.lastPrints[t.InstrumentID]; !ok || t.CreatedAt.After(p.at) {
			st.lastPrints[t.InstrumentID] = printAt{price: t.PricePerUnit, at: t.CreatedAt}
		}
	}
	ks, err := tx.KillSwitches(ctx)
	if err != nil {
		return err
	}
	st.killed = map[string]store.KillSwitch{}
	for _, k := range ks {
		st.killed[k.ParticipantID] = k
	}
	hs, err := tx.Halts(ctx)
	if err != nil {
		return err
	}
	st.halts = map[bookKey]venue.Halt{}
	for _, h := range hs {
		st.halts[bookKey{h.MarketID, h.InstrumentID}] = h
	}
	now := st.now
	ips, _, err := tx.IndicativePrices(ctx, store.IndicativeFilter{LiveAt: &now}, venue.Page{})
	if err != nil {
		return err
	}
	st.indicative = map[string]map[string]*indicativeQuote{}
	for _, ip := range ips {
		st.NoteIndicative(ip, false)
	}
	return nil
}

// loadPortfolios reads the open portfolio RFQs at a rebuild.
func (st *State) loadPortfolios(ctx context.Context, tx *store.Tx) error {
	rs, err := tx.OpenPortfolioRFQs(ctx)
	if err != nil {
		return err
	}
	for i := range rs {
		r := &rs[i]
		st.portfolios[r.ID] = r
		st.seenList(r)
		heap.Push(&st.expiries, expiry{at: r.ValidUntil, id: r.ID})
		for _, q := range r.Quotes {
			if q.Status == venue.StatusCreated && q.ValidUntil != nil {
				heap.Push(&st.expiries, expiry{at: *q.ValidUntil, id: r.ID})
			}
		}
	}
	return nil
}

// loadPublications queues the trades whose volume is not yet published.
func (st *State) loadPublications(ctx context.Context, tx *store.Tx) error {
	ts, err := tx.Unpublished(ctx)
	if err != nil {
		return err
	}
	for _, t := range ts {
		st.queue(t, st.instruments[t.InstrumentID].Terms.ISIN)
	}
	return nil
}
