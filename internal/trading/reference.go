package trading

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds reference data: instruments, as the operator lists them
// and as every caller reads them (with their book). Markets are
// markets.go's.

// InstrumentView is an instrument with its live book summary.
type InstrumentView struct {
	venue.Instrument
	Limits InstrumentLimits
}

// InstrumentDetail is what the instrument retrieve operation returns.
type InstrumentDetail struct {
	InstrumentView
	Markets []venue.Market
	Buckets []venue.Bucket
}

// InstrumentLimits is the instrument's book as the caller sees it.
type InstrumentLimits struct {
	Ask, Bid []feed.LimitEntry
}

// InstrumentFilter selects instruments in the index. Zero fields do not
// filter.
type InstrumentFilter struct {
	// MarketID names a market the venue has (else not found).
	MarketID string
	// BucketID names a bucket the caller can see (else not found).
	BucketID string
	ISIN     string
	Currency string
}

// Instruments lists instruments with their book summaries.
func (s *Service) Instruments(ctx context.Context, p venue.Principal, f InstrumentFilter, page venue.Page) (List[InstrumentView], error) {
	var out List[InstrumentView]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if f.BucketID != "" {
			if _, err := visibleBucket(ctx, tx, p, f.BucketID); err != nil {
				return err
			}
		}
		if err := checkFilterRecords(ctx, tx, "", f.MarketID); err != nil {
			return err
		}
		ins, next, err := tx.Instruments(ctx, store.InstrumentFilter{MarketID: f.MarketID, BucketID: f.BucketID,
			ISIN: f.ISIN, Currency: f.Currency}, page)
		if err != nil {
			return err
		}
		out.Next = next
		out.Items, err = s.instrumentViews(ctx, tx, p, ins, f.MarketID, ListDepth)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list instruments: %w", err)
	}
	return out, nil
}

// Instrument returns one instrument with its markets, the buckets the
// caller can see that hold it, and up to depth book entries per side
// (0 = all).
func (s *Service) Instrument(ctx context.Context, p venue.Principal, id string, depth int) (InstrumentDetail, error) {
	if !validID(id) {
		return InstrumentDetail{}, venue.NotFound("instrument")
	}
	var d InstrumentDetail
	err := s.db.View(ctx, func(tx *store.Tx) error {
		in, err := tx.Instrument(ctx, id)
		if err != nil {
			return err
		}
		views, err := s.instrumentViews(ctx, tx, p, []venue.Instrument{in}, "", depth)
		if err != nil {
			return err
		}
		d.InstrumentView = views[0]
		if d.Markets, _, err = tx.Markets(ctx, store.MarketFilter{InstrumentID: id}, venue.Page{}); err != nil {
			return err
		}
		visible := p.ParticipantID
		if p.IsOperator() {
			visible = ""
		}
		d.Buckets, _, err = tx.Buckets(ctx, store.BucketFilter{VisibleTo: visible, InstrumentID: id}, venue.Page{})
		return err
	})
	if err != nil {
		return d, fmt.Errorf("get instrument: %w", err)
	}
	return d, nil
}

// ListDepth is the number of book entries per side shown in instrument
// lists and buckets.
const ListDepth = 1

// bookEntries returns the instruments' open firm offers in time priority,
// on market only unless it is "": from the sequencer's books when it runs
// (only what can show within depth), else from the database. tx must be a
// read transaction (View) or a PostgreSQL one: the sequencer may need
// SQLite's writer to answer.
func (s *Service) bookEntries(ctx context.Context, tx *store.Tx, ids []string, market string, depth int) ([]store.BookEntry, error) {
	entries, running, err := s.eng.BookEntries(ctx, ids, market, depth)
	if err != nil {
		return nil, err
	}
	if !running {
		all, err := tx.BookEntries(ctx, ids)
		if err != nil || market == "" {
			return all, err
		}
		entries = all[:0]
		for _, e := range all {
			if e.MarketID == market {
				entries = append(entries, e)
			}
		}
		return entries, nil
	}
	var pids []string
	for _, e := range entries {
		if !contains(pids, e.ParticipantID) {
			pids = append(pids, e.ParticipantID)
		}
	}
	if len(pids) == 0 {
		return entries, nil
	}
	ps, _, err := tx.Participants(ctx, pids, venue.Page{})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]venue.Participant, len(ps))
	for _, p := range ps {
		byID[p.ID] = p
	}
	for i := range entries {
		p := byID[entries[i].ParticipantID]
		entries[i].ParticipantName, entries[i].ParticipantLEI = p.Name, p.LEI
	}
	return entries, nil
}

// instrumentViews adds each instrument's book as the caller sees it: open
// firm offers on market (every market listing it when ""), best price
// first, then time; up to depth entries per side (0 = all).
func (s *Service) instrumentViews(ctx context.Context, tx *store.Tx, p venue.Principal, ins []venue.Instrument, market string, depth int) ([]InstrumentView, error) {
	ids := make([]string, 0, len(ins))
	for _, in := range ins {
		ids = append(ids, in.ID)
	}
	entries, err := s.bookEntries(ctx, tx, ids, market, depth)
	if err != nil {
		return nil, err
	}
	var cps []string
	var settlement *venue.Settlement
	if p.ParticipantID != "" && len(entries) > 0 {
		if cps, err = tx.Counterparties(ctx, p.ParticipantID); err != nil {
			return nil, err
		}
		if settlement, err = s.settlementIn(ctx, tx); err != nil {
			return nil, err
		}
	}
	csd := settlement.CSD(p.ParticipantID, "", "")
	byInstrument := map[string][]store.BookEntry{}
	for _, e := range entries {
		byInstrument[e.InstrumentID] = append(byInstrument[e.InstrumentID], e)
	}
	out := make([]InstrumentView, 0, len(ins))
	for _, in := range ins {
		v := InstrumentView{Instrument: in, Limits: InstrumentLimits{Ask: []feed.LimitEntry{}, Bid: []feed.LimitEntry{}}}
		for _, e := range byInstrument[in.ID] {
			le := feed.LimitEntry{Limit: e.Price.Price, Quantity: e.Price.Quantity.Sub(e.Price.Filled), MarketID: e.MarketID, ParticipantID: e.ParticipantID,
				ParticipantName: e.ParticipantName, ParticipantLEI: e.ParticipantLEI, OfferID: e.OfferID,
				IsCounterpartyEnabled: contains(cps, e.ParticipantID) &&
					settlement.Compatible(csd, settlement.CSD(e.ParticipantID, e.AccountID, e.SettlementProviderID)),
				IsExecutable: true, IsMarketOrder: e.MarketOrder, IsOffer: true}
			if !p.IsOperator() && e.ParticipantID != p.ParticipantID && !le.IsCounterpartyEnabled {
				// A firm that is not the caller's counterparty stays
				// anonymous (docs/decisions.md, "Decisions where the spec leaves room"): the entry shows its price only.
				le.ParticipantID, le.ParticipantName, le.ParticipantLEI = "", "", ""
			}
			if e.Direction == venue.Ask {
				v.Limits.Ask = append(v.Limits.Ask, le)
			} else {
				v.Limits.Bid = append(v.Limits.Bid, le)
			}
		}
		// Entries arrive in time priority; a stable sort by price keeps it.
		sort.SliceStable(v.Limits.Ask, func(i, j int) bool { return v.Limits.Ask[i].Limit.LessThan(v.Limits.Ask[j].Limit) })
		sort.SliceStable(v.Limits.Bid, func(i, j int) bool { return v.Limits.Bid[i].Limit.GreaterThan(v.Limits.Bid[j].Limit) })
		if depth > 0 {
			v.Limits.Ask = v.Limits.Ask[:min(depth, len(v.Limits.Ask))]
			v.Limits.Bid = v.Limits.Bid[:min(depth, len(v.Limits.Bid))]
		}
		out = append(out, v)
	}
	return out, nil
}

// InstrumentInput creates or changes an instrument. Terms and Static hold
// fields by their spec names and are merged over the current values;
// unknown names are ignored.
type InstrumentInput struct {
	Terms        map[string]any
	Static       map[string]any
	MinPiece     *udecimal.Decimal
	MinIncrement *udecimal.Decimal
	ParAmount    *udecimal.Decimal
	Precision    *int
	Enabled      *bool
	MarketIDs    *[]string
	// Issues are problems the adapter found decoding the request (an amount
	// that is not a decimal): the use case reports them with its own and
	// changes nothing.
	Issues []venue.FieldIssue
}

// merge overlays fields onto dst through its JSON form.
func merge(dst any, fields map[string]any) error {
	if len(fields) == 0 {
		return nil
	}
	cur, err := json.Marshal(dst)
	if err != nil {
		return err
	}
	m := map[string]any{}
	if err := json.Unmarshal(cur, &m); err != nil {
		return err
	}
	for k, v := range fields {
		if _, known := m[k]; known {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}

func (in InstrumentInput) apply(i *venue.Instrument) error {
	var v venue.Validator
	if err := merge(&i.Terms, in.Terms); err != nil {
		v.Addf("instrument", "descriptive fields must be strings (lei may be null)")
	}
	if err := merge(&i.Static, in.Static); err != nil {
		v.Addf("static_data", "fields must be strings, or booleans for unit_traded, flat_traded, cash_priced, bval_enabled, allow_negative_cashflow")
	}
	set(&i.MinPiece, in.MinPiece)
	set(&i.MinIncrement, in.MinIncrement)
	set(&i.ParAmount, in.ParAmount)
	set(&i.Precision, in.Precision)
	set(&i.Enabled, in.Enabled)
	set(&i.MarketIDs, in.MarketIDs)
	return v.Err()
}

// CreateInstrument lists a new bond.
func (s *Service) CreateInstrument(ctx context.Context, p venue.Principal, in InstrumentInput) (InstrumentDetail, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return InstrumentDetail{}, err
	}
	now := s.clock()
	i := venue.Instrument{ID: newID(), Enabled: true, Precision: 4, MarketIDs: []string{}, CreatedAt: now, UpdatedAt: now}
	i.Terms.Type, i.Terms.State, i.Terms.UnitQuotation = "Fixed", "BLANK", "percent"
	err := s.adminTx(ctx, p, &i, func(tx *store.Tx) (change, error) {
		if err := checkInstrument(ctx, tx, in, &i); err != nil {
			return change{}, err
		}
		err := tx.CreateInstrument(ctx, &i)
		return change{action: "instrument.create", entityType: "instrument", entityID: i.ID, after: i}, err
	})
	if errors.Is(err, venue.ErrConflict) {
		return InstrumentDetail{}, venue.Conflict("an instrument with ISIN %s exists", i.Terms.ISIN)
	}
	if err != nil {
		return InstrumentDetail{}, fmt.Errorf("create instrument: %w", err)
	}
	if err := s.refreshEngine(ctx); err != nil {
		return InstrumentDetail{}, err
	}
	return s.Instrument(ctx, p, i.ID, feed.DefaultDepth)
}

// UpdateInstrument changes a listed bond.
func (s *Service) UpdateInstrument(ctx context.Context, p venue.Principal, id string, in InstrumentInput) (InstrumentDetail, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return InstrumentDetail{}, err
	}
	if !validID(id) {
		return InstrumentDetail{}, venue.NotFound("instrument")
	}
	var isin string
	err := s.adminTx(ctx, p, &isin, func(tx *store.Tx) (change, error) {
		before, err := tx.Instrument(ctx, id)
		if err != nil {
			return change{}, err
		}
		i := before // changed apart from before, which the trail keeps as it was
		i.MarketIDs = slices.Clone(before.MarketIDs)
		if before.Terms.LEI != nil {
			lei := *before.Terms.LEI
			i.Terms.LEI = &lei
		}
		if err := checkInstrument(ctx, tx, in, &i); err != nil {
			return change{}, err
		}
		isin = i.Terms.ISIN
		i.UpdatedAt = tx.Now()
		err = tx.UpdateInstrument(ctx, &i)
		return change{action: "instrument.update", entityType: "instrument", entityID: id, before: before, after: i}, err
	})
	if errors.Is(err, venue.ErrConflict) {
		return InstrumentDetail{}, venue.Conflict("an instrument with ISIN %s exists", isin)
	}
	if err != nil {
		return InstrumentDetail{}, fmt.Errorf("update instrument: %w", err)
	}
	if err := s.refreshEngine(ctx); err != nil {
		return InstrumentDetail{}, err
	}
	return s.Instrument(ctx, p, id, feed.DefaultDepth)
}

// checkInstrument applies in to i and reports every issue at once: the
// adapter's, those of the fields, and each listed market the venue does not
// have.
func checkInstrument(ctx context.Context, tx *store.Tx, in InstrumentInput, i *venue.Instrument) error {
	var v venue.Validator
	for _, is := range in.Issues {
		v.Addf(is.Field, "%s", is.Issue)
	}
	if err := v.Merge(in.apply(i)); err != nil {
		return err
	}
	// A field the adapter could not read keeps its one issue.
	if err := v.MergeUnreported(venue.ValidateInstrument(i)); err != nil {
		return err
	}
	if err := v.Merge(checkMarkets(ctx, tx, i.MarketIDs)); err != nil {
		return err
	}
	return v.Err()
}

// checkMarkets names every repeated or unknown market id; a malformed one
// is validateInstrument's to report.
func checkMarkets(ctx context.Context, tx *store.Tx, ids []string) error {
	var v venue.Validator
	seen := map[string]bool{}
	for k, id := range ids {
		if seen[id] {
			v.Addf(fmt.Sprintf("market_ids[%d]", k), "market %s is listed twice", id)
			continue
		}
		seen[id] = true
		if !validID(id) {
			continue
		}
		if _, err := tx.Market(ctx, id); err != nil {
			if venue.KindOf(err) != venue.KindNotFound {
				return err
			}
			v.Addf(fmt.Sprintf("market_ids[%d]", k), "unknown market %s", id)
		}
	}
	return v.Err()
}

// InstrumentTerms returns an instrument without its book: FIX names the
// instrument of each report by ISIN, and Instrument reads the whole book
// (every resting offer, at depth 0) to show it. What it reads is
// remembered for a moment (defaultmarket.go).
func (s *Service) InstrumentTerms(ctx context.Context, p venue.Principal, id string) (venue.Instrument, error) {
	if err := require(p, readers...); err != nil {
		return venue.Instrument{}, err
	}
	in, err := s.instrumentByID(ctx, id)
	if err != nil {
		return venue.Instrument{}, fmt.Errorf("get instrument: %w", err)
	}
	return in, nil
}

// InstrumentByISIN returns the instrument with that ISIN and its markets,
// without its book: FIX names the instrument of every order by ISIN, and
// the book summaries of Instruments would cost a sequencer round trip. What
// it reads is remembered for a moment (defaultmarket.go).
func (s *Service) InstrumentByISIN(ctx context.Context, p venue.Principal, isin string) (venue.Instrument, error) {
	if err := require(p, readers...); err != nil {
		return venue.Instrument{}, err
	}
	return s.instrumentByISIN(ctx, isin)
}

// visibleBucket loads a bucket the caller may see, else not found.
func visibleBucket(ctx context.Context, tx *store.Tx, p venue.Principal, id string) (venue.Bucket, error) {
	if !validID(id) {
		return venue.Bucket{}, venue.NotFound("bucket")
	}
	b, err := tx.Bucket(ctx, id)
	if err != nil {
		return b, err
	}
	if b.Type != venue.BucketPublic && !owned(p, b.ParticipantID) {
		return venue.Bucket{}, venue.NotFound("bucket")
	}
	return b, nil
}
