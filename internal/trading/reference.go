package trading

import (
	"context"
	"fmt"
	"sort"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// ParticipantView is a participant as one caller may see it.
type ParticipantView struct {
	venue.Participant
	// PublicOnly is set when the caller sees another firm's record: only
	// id, lei, name, type, category_name, country and status.
	PublicOnly bool
	// Nested is set in the participants index.
	Nested *ParticipantNested
}

// ParticipantNested holds the collections nested in the participants index.
type ParticipantNested struct {
	Accounts       []venue.Account
	Users          []venue.User
	Buckets        []BucketView
	RiskLimits     []venue.RiskLimit
	Markets        []venue.Market
	Counterparties []venue.Participant
}

// BucketView is a bucket with its instruments resolved.
type BucketView struct {
	venue.Bucket
	Instruments []InstrumentView
}

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
	Ask, Bid []LimitEntry
}

// LimitEntry is one resting offer in instrument_limits.
type LimitEntry struct {
	Limit, Quantity       udecimal.Decimal
	ParticipantID         string
	ParticipantName       string
	ParticipantLEI        string
	OfferID               string
	IsCounterpartyEnabled bool
	IsExecutable          bool
	IsMarketOrder         bool
	IsOffer               bool
}

// List is one page of a list and the cursor of the next ("" when none).
type List[T any] struct {
	Items []T
	Next  string
}

// Participants lists what the caller may see: its own participant with
// every nested collection, or every participant for the operator.
func (s *Service) Participants(ctx context.Context, p venue.Principal, page venue.Page) (List[ParticipantView], error) {
	var out List[ParticipantView]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var ids []string
		if !p.IsOperator() {
			ids = []string{p.ParticipantID}
		}
		ps, next, err := tx.Participants(ctx, ids, page)
		if err != nil {
			return err
		}
		enabled := true // the index nests the enabled markets
		markets, _, err := tx.Markets(ctx, store.MarketFilter{IsEnabled: &enabled}, venue.Page{})
		if err != nil {
			return err
		}
		out.Next = next
		for _, part := range ps {
			n, err := s.nested(ctx, tx, part.ID, markets)
			if err != nil {
				return err
			}
			out.Items = append(out.Items, ParticipantView{Participant: part, Nested: n})
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("list participants: %w", err)
	}
	return out, nil
}

func (s *Service) nested(ctx context.Context, tx *store.Tx, id string, markets []venue.Market) (*ParticipantNested, error) {
	n := &ParticipantNested{Markets: markets}
	var err error
	if n.Accounts, _, err = tx.Accounts(ctx, store.AccountFilter{ParticipantIDs: []string{id}}, venue.Page{}); err != nil {
		return nil, err
	}
	if n.Users, _, err = tx.Users(ctx, store.UserFilter{ParticipantID: id}, venue.Page{}); err != nil {
		return nil, err
	}
	if n.RiskLimits, err = tx.RiskLimits(ctx, id); err != nil {
		return nil, err
	}
	buckets, _, err := tx.Buckets(ctx, store.BucketFilter{VisibleTo: id}, venue.Page{})
	if err != nil {
		return nil, err
	}
	if n.Buckets, err = s.bucketViews(ctx, tx, buckets); err != nil {
		return nil, err
	}
	cps, err := tx.Counterparties(ctx, id)
	if err != nil {
		return nil, err
	}
	n.Counterparties = []venue.Participant{}
	if len(cps) > 0 { // a nil id list would mean every participant
		if n.Counterparties, _, err = tx.Participants(ctx, cps, venue.Page{}); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// Participant returns one participant: in full for its own users and the
// operator, public fields for an enabled counterparty, else not found.
func (s *Service) Participant(ctx context.Context, p venue.Principal, id string) (ParticipantView, error) {
	if !validID(id) {
		return ParticipantView{}, venue.NotFound("participant")
	}
	var v ParticipantView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if !owned(p, id) {
			cps, err := tx.Counterparties(ctx, p.ParticipantID)
			if err != nil {
				return err
			}
			if !contains(cps, id) {
				return venue.NotFound("participant")
			}
			v.PublicOnly = true
		}
		var err error
		v.Participant, err = tx.Participant(ctx, id)
		return err
	})
	if err != nil {
		return v, fmt.Errorf("get participant: %w", err)
	}
	return v, nil
}

// AccountView is an account with its participant in full, as a retrieve or
// list answers it. An account nested in another record (a participant, a
// user, an offer) is a bare venue.Account: its participant is known there.
type AccountView struct {
	venue.Account
	Participant venue.Participant
}

// UserView is a user with its participant in full and that participant's
// accounts, as a retrieve or list answers it. An operator user has no
// participant (nil) and no accounts. A user nested in another record is a
// bare venue.User.
type UserView struct {
	venue.User
	Participant *venue.Participant
	Accounts    []venue.Account
}

// AccountFilter selects accounts in the index. Zero fields do not filter.
type AccountFilter struct {
	// ParticipantID names a firm: any for the operator, only its own for a
	// participant (another firm's is not found).
	ParticipantID string
	Status, Type  string
}

// UserFilter selects users in the index. Zero fields do not filter.
type UserFilter struct {
	// ParticipantID names a firm, as in AccountFilter.
	ParticipantID string
	Role          venue.Role
	Status        string
}

// firmScope returns the firm a list of participant-owned records is
// restricted to: the caller's own for a participant, the named one or every
// firm ("") for the operator. A firm the caller may not see, or that does
// not exist, is not found.
func firmScope(ctx context.Context, tx *store.Tx, p venue.Principal, named string) (string, error) {
	if !p.IsOperator() {
		if named != "" && named != p.ParticipantID {
			return "", venue.NotFound("participant")
		}
		return p.ParticipantID, nil
	}
	if named != "" {
		if !validID(named) {
			return "", venue.NotFound("participant")
		}
		if _, err := tx.Participant(ctx, named); err != nil {
			return "", err
		}
	}
	return named, nil
}

// Accounts lists the caller's firm's accounts (every account for the
// operator), each with its participant.
func (s *Service) Accounts(ctx context.Context, p venue.Principal, f AccountFilter, page venue.Page) (List[AccountView], error) {
	var out List[AccountView]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		firm, err := firmScope(ctx, tx, p, f.ParticipantID)
		if err != nil {
			return err
		}
		sf := store.AccountFilter{Status: f.Status, Type: f.Type}
		if firm != "" {
			sf.ParticipantIDs = []string{firm}
		}
		as, next, err := tx.Accounts(ctx, sf, page)
		if err != nil {
			return err
		}
		out.Next = next
		out.Items, err = accountViews(ctx, tx, as)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list accounts: %w", err)
	}
	return out, nil
}

// visibleAccount loads an account of the caller's firm (any account for
// the operator), else not found.
func visibleAccount(ctx context.Context, tx *store.Tx, p venue.Principal, id string) (venue.Account, error) {
	if !validID(id) {
		return venue.Account{}, venue.NotFound("account")
	}
	a, err := tx.Account(ctx, id)
	if err != nil {
		return a, err
	}
	if !owned(p, a.ParticipantID) {
		return venue.Account{}, venue.NotFound("account")
	}
	return a, nil
}

// Account returns one of the caller's firm's accounts with its participant.
func (s *Service) Account(ctx context.Context, p venue.Principal, id string) (AccountView, error) {
	var out AccountView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		a, err := visibleAccount(ctx, tx, p, id)
		if err != nil {
			return err
		}
		views, err := accountViews(ctx, tx, []venue.Account{a})
		if err == nil {
			out = views[0]
		}
		return err
	})
	if err != nil {
		return out, fmt.Errorf("get account: %w", err)
	}
	return out, nil
}

// Users lists the caller's firm's users (every user for the operator), each
// with its participant and the participant's accounts.
func (s *Service) Users(ctx context.Context, p venue.Principal, f UserFilter, page venue.Page) (List[UserView], error) {
	var out List[UserView]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		firm, err := firmScope(ctx, tx, p, f.ParticipantID)
		if err != nil {
			return err
		}
		us, next, err := tx.Users(ctx, store.UserFilter{ParticipantID: firm, Role: f.Role, Status: f.Status}, page)
		if err != nil {
			return err
		}
		out.Next = next
		out.Items, err = userViews(ctx, tx, us)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list users: %w", err)
	}
	return out, nil
}

// User returns one user of the caller's firm with its participant and the
// participant's accounts.
func (s *Service) User(ctx context.Context, p venue.Principal, id string) (UserView, error) {
	if !validID(id) {
		return UserView{}, venue.NotFound("user")
	}
	var out UserView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		u, err := tx.User(ctx, id)
		if err != nil {
			return err
		}
		if !owned(p, u.ParticipantID) {
			return venue.NotFound("user")
		}
		views, err := userViews(ctx, tx, []venue.User{u})
		if err == nil {
			out = views[0]
		}
		return err
	})
	if err != nil {
		return out, fmt.Errorf("get user: %w", err)
	}
	return out, nil
}

// participantsByID loads the distinct participants of ids ("" skipped) in
// one query.
func participantsByID(ctx context.Context, tx *store.Tx, ids []string) (map[string]venue.Participant, error) {
	seen := map[string]bool{}
	distinct := []string{}
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			distinct = append(distinct, id)
		}
	}
	ps, _, err := tx.Participants(ctx, distinct, venue.Page{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]venue.Participant, len(ps))
	for _, p := range ps {
		out[p.ID] = p
	}
	return out, nil
}

// accountViews adds each account's participant.
func accountViews(ctx context.Context, tx *store.Tx, as []venue.Account) ([]AccountView, error) {
	ids := make([]string, 0, len(as))
	for _, a := range as {
		ids = append(ids, a.ParticipantID)
	}
	ps, err := participantsByID(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]AccountView, 0, len(as))
	for _, a := range as {
		out = append(out, AccountView{Account: a, Participant: ps[a.ParticipantID]})
	}
	return out, nil
}

// userViews adds each user's participant and the participant's accounts,
// loading both in one query each.
func userViews(ctx context.Context, tx *store.Tx, us []venue.User) ([]UserView, error) {
	ids := make([]string, 0, len(us))
	for _, u := range us {
		ids = append(ids, u.ParticipantID)
	}
	ps, err := participantsByID(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	firms := make([]string, 0, len(ps))
	for id := range ps {
		firms = append(firms, id)
	}
	accs, _, err := tx.Accounts(ctx, store.AccountFilter{ParticipantIDs: firms}, venue.Page{})
	if err != nil {
		return nil, err
	}
	byFirm := map[string][]venue.Account{}
	for _, a := range accs {
		byFirm[a.ParticipantID] = append(byFirm[a.ParticipantID], a)
	}
	out := make([]UserView, 0, len(us))
	for _, u := range us {
		v := UserView{User: u, Accounts: []venue.Account{}}
		if part, ok := ps[u.ParticipantID]; ok {
			v.Participant = &part
			v.Accounts = append(v.Accounts, byFirm[u.ParticipantID]...)
		}
		out = append(out, v)
	}
	return out, nil
}

// MarketFilter selects markets in the index. Zero fields do not filter.
type MarketFilter struct {
	FacilityType string
	IsEnabled    *bool
}

// Markets lists every market.
func (s *Service) Markets(ctx context.Context, p venue.Principal, f MarketFilter, page venue.Page) (List[venue.Market], error) {
	var out List[venue.Market]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out.Items, out.Next, err = tx.Markets(ctx, store.MarketFilter{FacilityType: f.FacilityType, IsEnabled: f.IsEnabled}, page)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list markets: %w", err)
	}
	return out, nil
}

// Market returns one market.
func (s *Service) Market(ctx context.Context, p venue.Principal, id string) (venue.Market, error) {
	if !validID(id) {
		return venue.Market{}, venue.NotFound("market")
	}
	var m venue.Market
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		m, err = tx.Market(ctx, id)
		return err
	})
	if err != nil {
		return m, fmt.Errorf("get market: %w", err)
	}
	return m, nil
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
		out.Items, err = s.instrumentViews(ctx, tx, p, ins, ListDepth)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list instruments: %w", err)
	}
	return out, nil
}

// DefaultDepth is the number of book entries per side shown by default.
const DefaultDepth = 10

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
		views, err := s.instrumentViews(ctx, tx, p, []venue.Instrument{in}, depth)
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

// bookEntries returns the instruments' open firm offers in time priority:
// from the sequencer's books when it runs (only what can show within
// depth), else from the database. tx must be a read transaction (View) or
// a PostgreSQL one: the sequencer may need SQLite's writer to answer.
func (s *Service) bookEntries(ctx context.Context, tx *store.Tx, ids []string, depth int) ([]store.BookEntry, error) {
	entries, running, err := s.eng.bookEntries(ctx, ids, depth)
	if err != nil {
		return nil, err
	}
	if !running {
		return tx.BookEntries(ctx, ids)
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
// firm offers on every market listing it, best price first, then time; up
// to depth entries per side (0 = all).
func (s *Service) instrumentViews(ctx context.Context, tx *store.Tx, p venue.Principal, ins []venue.Instrument, depth int) ([]InstrumentView, error) {
	ids := make([]string, 0, len(ins))
	for _, in := range ins {
		ids = append(ids, in.ID)
	}
	entries, err := s.bookEntries(ctx, tx, ids, depth)
	if err != nil {
		return nil, err
	}
	var cps []string
	if p.ParticipantID != "" && len(entries) > 0 {
		if cps, err = tx.Counterparties(ctx, p.ParticipantID); err != nil {
			return nil, err
		}
	}
	byInstrument := map[string][]store.BookEntry{}
	for _, e := range entries {
		byInstrument[e.InstrumentID] = append(byInstrument[e.InstrumentID], e)
	}
	out := make([]InstrumentView, 0, len(ins))
	for _, in := range ins {
		v := InstrumentView{Instrument: in, Limits: InstrumentLimits{Ask: []LimitEntry{}, Bid: []LimitEntry{}}}
		for _, e := range byInstrument[in.ID] {
			le := LimitEntry{Limit: e.Price.Price, Quantity: e.Price.Quantity.Sub(e.Price.Filled), ParticipantID: e.ParticipantID,
				ParticipantName: e.ParticipantName, ParticipantLEI: e.ParticipantLEI, OfferID: e.OfferID,
				IsCounterpartyEnabled: contains(cps, e.ParticipantID), IsExecutable: true, IsMarketOrder: e.MarketOrder, IsOffer: true}
			if !p.IsOperator() && e.ParticipantID != p.ParticipantID && !le.IsCounterpartyEnabled {
				// A firm that is not the caller's counterparty stays
				// anonymous (DESIGN §2): the entry shows its price only.
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

// News lists news items, newest first.
func (s *Service) News(ctx context.Context, p venue.Principal, page venue.Page) (List[venue.News], error) {
	var out List[venue.News]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out.Items, out.Next, err = tx.News(ctx, page)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list news: %w", err)
	}
	return out, nil
}

// RiskLimits returns the caller's firm's limits with their current use.
// Use counts open offer and quote quantity; until trading exists it is 0.
func (s *Service) RiskLimits(ctx context.Context, p venue.Principal) ([]venue.RiskLimit, error) {
	if p.IsOperator() {
		return nil, venue.Forbidden("risk limits belong to a participant; the operator reads them under /admin")
	}
	var out []venue.RiskLimit
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out, err = tx.RiskLimits(ctx, p.ParticipantID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("risk limits: %w", err)
	}
	// Use is the engine's: the open offer and quote quantity it counts.
	v, err := s.eng.do(ctx, func(st *state, b *batch) (any, error) {
		return [2]udecimal.Decimal{st.used[p.ParticipantID], st.usedUser[p.UserID]}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("risk limits: %w", err)
	}
	used := v.([2]udecimal.Decimal)
	for i := range out {
		out[i].Used = used[0]
		if out[i].Name == venue.LimitAllOfferUserSum {
			out[i].Used = used[1]
		} else if out[i].Name == venue.LimitMaxOffer {
			out[i].Used = udecimal.Zero // caps one offer; nothing accumulates
		}
	}
	return out, nil
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
