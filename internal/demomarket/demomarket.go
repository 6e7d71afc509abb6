// Package demomarket keeps the demo venue alive: simulated participants
// (internal/demo's simulated firms) rest two-way offers on the continuous
// markets around a reference price per bond that walks, amend, cancel and
// replace them, now and then cross the spread, publish indicative prices,
// answer the RFQs sent to them with a quote or a decline within a few
// seconds, send RFQs of their own to the demo firms, and the demo operator
// publishes news now and then.
//
// Everything goes through the trading use cases with the principals of the
// simulated firms' users, so each record is audited, sequenced and checked
// (risk limits, pre-trade controls, the collar) like any other. One action
// or a few per tick keep the database growing slowly, at the rate
// measured in docs/guide.md, "The live demo market". Only the leader acts;
// errors of the use cases are logged at debug and the action skipped.
package demomarket

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// DefaultTick is how often the simulator acts.
const DefaultTick = 2 * time.Second

// DefaultSeed seeds the simulator's randomness when none is configured.
const DefaultSeed = 20231

// Config configures a Market. Zero fields take the defaults.
type Config struct {
	// Tick is the pause between two steps (default DefaultTick).
	Tick time.Duration
	// Seed seeds the random choices (default DefaultSeed), so a run can
	// be repeated.
	Seed uint64
	// Now is the clock RFQ answers are timed by (default time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

// Pacing, in steps: the first news, then one every newsEvery; the
// simulated firms' own RFQs about every rfqEvery.
const (
	firstNews   = 15
	newsEvery   = 450
	rfqEvery    = 150
	seedPerStep = 8
)

// Market is the live demo market. Start runs it; Step is one tick of it.
type Market struct {
	svc  *trading.Service
	lead Leadership
	cfg  Config
	log  *slog.Logger
	rng  *rand.Rand

	mu      sync.Mutex // Step's state
	ready   bool
	notDemo bool
	sim     demo.Simulated
	markets []venue.Market // the enabled continuous markets
	// listed are the bonds listed on each market with trading hours
	// (the others list every bond).
	listed   map[string]map[string]bool
	otc      string // the OTC market RFQs go to
	bonds    []*bond
	steps    int
	traded   bool
	answered map[string]bool      // RFQ id + dealer firm → answered
	due      map[string]time.Time // RFQ id + dealer firm → when to answer
	news     int

	stop context.CancelFunc
	done chan struct{}
}

// bond is an instrument with its simulated reference price.
type bond struct {
	in    venue.Instrument
	ref   udecimal.Decimal // clean, percent of par
	maker int              // the simulated firm that makes its market
}

// Leadership says whether this instance leads (cluster.Cluster): the
// simulated firms act only on the leader.
type Leadership interface {
	Role() string
}

// New returns a Market on svc, acting while lead says this instance
// leads.
func New(svc *trading.Service, lead Leadership, cfg Config) *Market {
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	if cfg.Seed == 0 {
		cfg.Seed = DefaultSeed
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Market{svc: svc, lead: lead, cfg: cfg, log: cfg.Logger.With("component", "demomarket"),
		rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)), answered: map[string]bool{}, due: map[string]time.Time{}}
}

// Start runs a step every tick until Stop.
func (m *Market) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	m.stop, m.done = cancel, make(chan struct{})
	go func() {
		defer close(m.done)
		t := time.NewTicker(m.cfg.Tick)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				m.guardedStep(ctx)
			}
		}
	}()
	m.log.Info("live demo market started", "tick", m.cfg.Tick.String(), "seed", m.cfg.Seed)
}

// guardedStep is a Step whose panic (a bug of the simulator) is logged
// instead of taking the venue down: the demo market is an extra.
func (m *Market) guardedStep(ctx context.Context) {
	defer func() {
		if r := recover(); r != nil {
			m.log.Error("demo market step panicked", "panic", fmt.Sprint(r))
		}
	}()
	m.Step(ctx)
}

// Stop ends the steps and waits for the one under way; nothing of the
// Market runs after it returns.
func (m *Market) Stop() {
	if m.stop == nil {
		return
	}
	m.stop()
	<-m.done
	m.stop = nil
}

// Step is one tick: on the leader, answer the RFQs due, fill in missing
// offers and indicative prices, then one action of the market.
func (m *Market) Step(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.notDemo {
		return
	}
	if m.lead.Role() != cluster.RoleLeader {
		m.ready = false // read the venue again on taking over
		return
	}
	if !m.ready {
		if err := m.setup(ctx); err != nil {
			if errors.Is(err, demo.ErrNotDemo) {
				m.notDemo = true
				m.log.Info("live demo market off", "reason", err.Error())
				return
			}
			m.log.Debug("demo market setup", "err", err)
			return
		}
		m.ready = true
	}
	m.steps++
	m.answerRFQs(ctx)
	m.answerLists(ctx)
	m.acceptQuotes(ctx)
	if m.fill(ctx) {
		return
	}
	switch {
	case m.steps >= m.news:
		m.publishNews(ctx)
		m.news = m.steps + newsEvery/2 + m.rng.IntN(newsEvery)
	case !m.traded && m.steps < 60: // the first trade soon after the start
		m.traded = m.trade(ctx)
	case m.steps%rfqEvery == 0:
		m.sendRFQ(ctx)
	default:
		switch r := m.rng.IntN(100); {
		case r < 45:
			m.move(ctx)
		case r < 60:
			m.trade(ctx)
		case r < 70:
			m.cancel(ctx)
		case r < 85:
			m.moveIndicative(ctx)
		}
	}
}

// skip logs a refused or failed action at debug: the market goes on.
func (m *Market) skip(what string, err error) {
	m.log.Debug("demo market action skipped", "action", what, "err", err)
}

func (m *Market) setup(ctx context.Context) error {
	sim, err := demo.AddSimulated(ctx, m.svc)
	if err != nil {
		return err
	}
	if len(sim.Firms) < 2 {
		return fmt.Errorf("%w: fewer than two simulated firms", demo.ErrNotDemo)
	}
	sys := trading.System
	ms, err := m.svc.Markets(ctx, sys, trading.MarketFilter{}, venue.Page{Limit: 100})
	if err != nil {
		return err
	}
	m.markets, m.otc = nil, ""
	var withHours []venue.Market
	for _, mk := range ms.Items {
		switch {
		case !mk.IsEnabled:
		case mk.FacilityType == venue.FacilityContinuous && mk.Hours != nil:
			withHours = append(withHours, mk)
		case mk.FacilityType == venue.FacilityContinuous:
			m.markets = append(m.markets, mk)
		case mk.FacilityType == venue.FacilityOTC && m.otc == "":
			m.otc = mk.ID
		}
	}
	// The markets that trade around the clock first: the indicative
	// prices read the first.
	m.markets = append(m.markets, withHours...)
	m.listed = map[string]map[string]bool{}
	for _, mk := range withHours {
		l, err := m.svc.Instruments(ctx, sys, trading.InstrumentFilter{MarketID: mk.ID}, venue.Page{Limit: 100})
		if err != nil {
			return err
		}
		m.listed[mk.ID] = map[string]bool{}
		for _, iv := range l.Items {
			m.listed[mk.ID][iv.ID] = true
		}
	}
	ins, err := m.svc.Instruments(ctx, sys, trading.InstrumentFilter{}, venue.Page{Limit: 100})
	if err != nil {
		return err
	}
	refs := map[string]udecimal.Decimal{}
	for _, b := range m.bonds {
		refs[b.in.ID] = b.ref
	}
	m.bonds = nil
	for i, iv := range ins.Items {
		if !iv.Enabled {
			continue
		}
		b := &bond{in: iv.Instrument, maker: i % len(sim.Firms)}
		if r, ok := refs[b.in.ID]; ok {
			b.ref = r
		} else {
			b.ref = m.startPrice(ctx, sim.Firms[b.maker].Trader, iv.Instrument)
		}
		m.bonds = append(m.bonds, b)
	}
	if len(m.bonds) == 0 || len(m.markets) == 0 {
		return fmt.Errorf("%w: no enabled instrument or continuous market", demo.ErrNotDemo)
	}
	m.sim = sim
	if m.news == 0 {
		m.news = m.steps + firstNews
	}
	m.log.Info("live demo market acting", "firms", len(sim.Firms), "bonds", len(m.bonds), "markets", len(m.markets))
	return nil
}

var (
	hundred  = udecimal.MustFromInt64(100, 0)
	halfBase = udecimal.MustFromInt64(5, 2) // the narrowest half spread: 0.05
)

// startPrice is the venue's reference price of the instrument if it has
// one, else a price from its coupon and remaining life: par plus 0.7
// points a year for each point of coupon above 2.75 %.
func (m *Market) startPrice(ctx context.Context, p venue.Principal, in venue.Instrument) udecimal.Decimal {
	if c, err := m.svc.PriceCollar(ctx, p, in.ID, ""); err == nil && c.HasReference {
		return c.Reference.RoundHAZ(2)
	}
	coupon, err := udecimal.Parse(in.Terms.Coupon)
	if err != nil {
		return hundred
	}
	years := int64(5)
	if mat, err := time.Parse(time.DateOnly, in.Terms.Maturity); err == nil {
		years = max(int64(mat.Sub(m.cfg.Now()).Hours()/24/365), 0)
	}
	spread := coupon.Sub(udecimal.MustParse("2.75"))
	px := hundred.Add(spread.Mul(udecimal.MustParse("0.7")).Mul(udecimal.MustFromInt64(years, 0)))
	return udecimal.Max(px, udecimal.MustFromInt64(50, 0)).RoundHAZ(2)
}

// ticks returns n hundredths of a point.
func ticks(n int) udecimal.Decimal { return udecimal.MustFromInt64(int64(n), 2) }

// halfSpread draws a half spread between 0.05 and 0.15.
func (m *Market) halfSpread() udecimal.Decimal { return halfBase.Add(ticks(m.rng.IntN(11))) }

// quantity draws a nominal of one to three million.
func (m *Market) quantity() udecimal.Decimal {
	return udecimal.MustFromInt64(int64(1+m.rng.IntN(3))*1_000_000, 0)
}

// price is ref ∓ half a spread for side, inside the market's collar for
// the instrument (and the simulated reference pulled towards the venue's).
func (m *Market) price(ctx context.Context, p venue.Principal, b *bond, marketID, side string, half udecimal.Decimal) (udecimal.Decimal, error) {
	c, err := m.svc.PriceCollar(ctx, p, b.in.ID, marketID)
	if err != nil {
		return udecimal.Decimal{}, err
	}
	if c.Halted {
		return udecimal.Decimal{}, fmt.Errorf("halted: %s", c.HaltReason)
	}
	if c.HasReference {
		// Keep within a third of the collar of the venue's reference: a
		// human's trade moves the simulated market with it.
		band := c.High.Sub(c.Low).MustDiv(udecimal.MustFromInt64(6, 0))
		if b.ref.Sub(c.Reference).Abs().GreaterThan(band) {
			b.ref = c.Reference.RoundHAZ(2)
		}
	}
	px := b.ref.Sub(half)
	if side == venue.Ask {
		px = b.ref.Add(half)
	}
	if c.HasReference {
		px = udecimal.Min(udecimal.Max(px, c.Low), c.High)
	} else if px.GreaterThan(c.MaxPricePercent) {
		px = c.MaxPricePercent
	}
	px = px.Trunc(uint8(min(b.in.Precision, 2)))
	if !px.IsPos() {
		return udecimal.Decimal{}, fmt.Errorf("no price inside the collar")
	}
	if c.HasReference && (px.LessThan(c.Low) || px.GreaterThan(c.High)) {
		return udecimal.Decimal{}, fmt.Errorf("no price inside the collar")
	}
	return px, nil
}

// walk moves a bond's reference by up to three hundredths either way.
func (m *Market) walk(b *bond) {
	b.ref = b.ref.Add(ticks(m.rng.IntN(7) - 3))
	if floor := udecimal.MustFromInt64(10, 0); b.ref.LessThan(floor) {
		b.ref = floor
	}
}

// openOffers lists the firm's resting offers by market, instrument and side.
func (m *Market) openOffers(ctx context.Context, f demo.SimulatedFirm) (map[string]venue.Offer, error) {
	out := map[string]venue.Offer{}
	page := venue.Page{Limit: 200}
	for {
		l, err := m.svc.Offers(ctx, f.Trader, trading.OfferFilter{Status: venue.StatusCreated, Type: venue.TypeOffer}, page)
		if err != nil {
			return nil, err
		}
		for _, o := range l.Items {
			out[offerKey(o.MarketID, o.InstrumentID, o.Direction)] = o
		}
		if l.Next == "" {
			return out, nil
		}
		page.Cursor = l.Next
	}
}

func offerKey(market, instrument, side string) string { return market + "/" + instrument + "/" + side }

// fill rests the missing offers and publishes the missing indicative
// prices of the makers, a few per step; it reports whether it did any.
func (m *Market) fill(ctx context.Context) bool {
	n := 0
	for fi, f := range m.sim.Firms {
		open, err := m.openOffers(ctx, f)
		if err != nil {
			m.skip("list offers", err)
			return true
		}
		for _, b := range m.bonds {
			if b.maker != fi {
				continue
			}
			for _, mk := range m.markets {
				if !m.trades(mk, b) {
					continue
				}
				for _, side := range []string{venue.Bid, venue.Ask} {
					if _, ok := open[offerKey(mk.ID, b.in.ID, side)]; ok || n >= seedPerStep {
						continue
					}
					n++
					px, err := m.price(ctx, f.Trader, b, mk.ID, side, m.halfSpread())
					if err != nil {
						m.skip("rest offer", err)
						continue
					}
					if opp, ok := open[offerKey(mk.ID, b.in.ID, other(side))]; ok && crosses(side, px, opp.Price) {
						px = opp.Price.Sub(halfBase.Add(halfBase)) // one side stale: no crossed book of its own
						if side == venue.Ask {
							px = opp.Price.Add(halfBase.Add(halfBase))
						}
					}
					q := m.quantity()
					if _, err := m.svc.CreateOffer(ctx, f.Trader, trading.OfferInput{AccountID: f.AccountID, InstrumentID: b.in.ID,
						MarketID: mk.ID, Direction: side, Price: &px, Quantity: &q}); err != nil {
						m.skip("rest offer", err)
					}
				}
			}
		}
	}
	if n > 0 {
		return true
	}
	for fi, f := range m.sim.Firms {
		ips, err := m.indicatives(ctx, f)
		if err != nil {
			m.skip("list indicative prices", err)
			return true
		}
		for _, b := range m.bonds {
			if b.maker != fi || n >= seedPerStep {
				continue
			}
			if _, ok := ips[b.in.ID]; ok {
				continue
			}
			n++
			bid, ask, err := m.indicativeSides(ctx, f, b)
			if err != nil {
				m.skip("indicative price", err)
				continue
			}
			q := udecimal.MustFromInt64(5_000_000, 0)
			if _, err := m.svc.CreateIndicativePrice(ctx, f.Trader, trading.IndicativeInput{AccountID: f.AccountID, InstrumentID: b.in.ID,
				BidPrice: &bid, AskPrice: &ask, BidQuantity: &q, AskQuantity: &q}); err != nil {
				m.skip("indicative price", err)
			}
		}
	}
	return n > 0
}

// indicatives lists the firm's live indicative prices by instrument.
func (m *Market) indicatives(ctx context.Context, f demo.SimulatedFirm) (map[string]venue.IndicativePrice, error) {
	out := map[string]venue.IndicativePrice{}
	page := venue.Page{Limit: 200}
	for {
		l, err := m.svc.IndicativePrices(ctx, f.Trader, trading.IndicativeFilter{}, page)
		if err != nil {
			return nil, err
		}
		for _, ip := range l.Items {
			if ip.ParticipantID == f.ID {
				out[ip.InstrumentID] = ip
			}
		}
		if l.Next == "" {
			return out, nil
		}
		page.Cursor = l.Next
	}
}

// indicativeSides are a bond's indicative bid and ask: a little wider
// than the firm's offers.
func (m *Market) indicativeSides(ctx context.Context, f demo.SimulatedFirm, b *bond) (bid, ask udecimal.Decimal, err error) {
	half := m.halfSpread().Add(ticks(10))
	if bid, err = m.price(ctx, f.Trader, b, m.markets[0].ID, venue.Bid, half); err != nil {
		return bid, ask, err
	}
	ask, err = m.price(ctx, f.Trader, b, m.markets[0].ID, venue.Ask, half)
	return bid, ask, err
}

// trades reports whether bond b trades on market mk now: listed there,
// and the market within its trading hours. Outside them the simulator
// leaves the market alone (a cancel is still taken) rather than send
// orders it would refuse.
func (m *Market) trades(mk venue.Market, b *bond) bool {
	if mk.Hours == nil {
		return true
	}
	return m.listed[mk.ID][b.in.ID] && mk.PhaseAt(m.cfg.Now()).Phase == venue.PhaseContinuous
}

// pick draws one bond, one continuous market and one side.
func (m *Market) pick() (*bond, venue.Market, string) {
	b := m.bonds[m.rng.IntN(len(m.bonds))]
	mk := m.markets[m.rng.IntN(len(m.markets))]
	side := venue.Bid
	if m.rng.IntN(2) == 1 {
		side = venue.Ask
	}
	return b, mk, side
}

// move walks a bond's reference and amends its maker's offer on one side.
func (m *Market) move(ctx context.Context) {
	b, mk, side := m.pick()
	if !m.trades(mk, b) {
		return
	}
	f := m.sim.Firms[b.maker]
	m.walk(b)
	open, err := m.openOffers(ctx, f)
	if err != nil {
		m.skip("move", err)
		return
	}
	o, ok := open[offerKey(mk.ID, b.in.ID, side)]
	if !ok {
		return
	}
	px, err := m.price(ctx, f.Trader, b, mk.ID, side, m.halfSpread())
	if err != nil {
		m.skip("move", err)
		return
	}
	if opp, ok := open[offerKey(mk.ID, b.in.ID, other(side))]; ok && crosses(side, px, opp.Price) {
		// The other side is the stale one: it moves instead, so that the
		// firm's own bid never meets its own ask.
		side, o = other(side), opp
		if px, err = m.price(ctx, f.Trader, b, mk.ID, side, m.halfSpread()); err != nil {
			m.skip("move", err)
			return
		}
	}
	if _, err := m.svc.UpdateOffer(ctx, f.Trader, o.ID, trading.ChangeInput{Price: &px}); err != nil {
		m.skip("move", err)
	}
}

// other is the opposite side.
func other(side string) string {
	if side == venue.Bid {
		return venue.Ask
	}
	return venue.Bid
}

// crosses reports whether a price on side meets or passes opposite, the
// price of the other side.
func crosses(side string, px, opposite udecimal.Decimal) bool {
	if side == venue.Bid {
		return px.GreaterThanOrEqual(opposite)
	}
	return px.LessThanOrEqual(opposite)
}

// cancel withdraws one of a maker's offers; the next step rests a new one
// (cancel and replace).
func (m *Market) cancel(ctx context.Context) {
	b, mk, side := m.pick()
	f := m.sim.Firms[b.maker]
	open, err := m.openOffers(ctx, f)
	if err != nil {
		m.skip("cancel", err)
		return
	}
	if o, ok := open[offerKey(mk.ID, b.in.ID, side)]; ok {
		if _, err := m.svc.DeleteOffer(ctx, f.Trader, o.ID); err != nil {
			m.skip("cancel", err)
		}
	}
}

// trade crosses the spread: the other simulated firm takes a maker's
// offer at its price, for one million or all of it. It reports whether a
// trade was made.
func (m *Market) trade(ctx context.Context) bool {
	b, mk, side := m.pick()
	if !m.trades(mk, b) {
		return false
	}
	maker := m.sim.Firms[b.maker]
	taker := m.sim.Firms[(b.maker+1)%len(m.sim.Firms)]
	open, err := m.openOffers(ctx, maker)
	if err != nil {
		m.skip("trade", err)
		return false
	}
	o, ok := open[offerKey(mk.ID, b.in.ID, side)]
	if !ok || !o.HasPrice {
		return false
	}
	q := o.Remaining()
	if one := udecimal.MustFromInt64(1_000_000, 0); mk.IsPartialFillAllowed && q.GreaterThan(one) {
		q = one
	}
	dir := venue.Bid
	if o.Direction == venue.Bid {
		dir = venue.Ask
	}
	px := o.Price
	got, err := m.svc.CreateOffer(ctx, taker.Trader, trading.OfferInput{AccountID: taker.AccountID, InstrumentID: b.in.ID,
		MarketID: mk.ID, Direction: dir, Price: &px, Quantity: &q})
	if err != nil {
		m.skip("trade", err)
		return false
	}
	if got.Open() { // what did not trade does not rest
		if _, err := m.svc.DeleteOffer(ctx, taker.Trader, got.ID); err != nil {
			m.skip("trade", err)
		}
	}
	b.ref = px
	return len(got.Trades) > 0
}

// moveIndicative moves a bond's indicative price with its reference.
func (m *Market) moveIndicative(ctx context.Context) {
	b, _, _ := m.pick()
	f := m.sim.Firms[b.maker]
	ips, err := m.indicatives(ctx, f)
	if err != nil {
		m.skip("indicative price", err)
		return
	}
	ip, ok := ips[b.in.ID]
	if !ok {
		return
	}
	bid, ask, err := m.indicativeSides(ctx, f, b)
	if err != nil {
		m.skip("indicative price", err)
		return
	}
	if _, err := m.svc.UpdateIndicativePrice(ctx, f.Trader, ip.ID, trading.IndicativeChange{
		BidPrice: trading.Clearable[udecimal.Decimal]{Set: true, Value: &bid},
		AskPrice: trading.Clearable[udecimal.Decimal]{Set: true, Value: &ask}}); err != nil {
		m.skip("indicative price", err)
	}
}

// answerRFQs answers, as each simulated dealer, the open RFQs sent to it
// by other firms: a quote (four times in five) or a decline, one to four
// seconds after the request.
func (m *Market) answerRFQs(ctx context.Context) {
	now := m.cfg.Now()
	seen := map[string]bool{}
	for _, f := range m.sim.Firms {
		l, err := m.svc.RFQs(ctx, f.Trader, trading.OfferFilter{Status: venue.StatusCreated}, venue.Page{Limit: 100})
		if err != nil {
			m.skip("list rfqs", err)
			continue
		}
		for _, r := range l.Items {
			if r.ParticipantID == f.ID {
				continue
			}
			key := r.ID + "/" + f.ID
			seen[key] = true
			if m.answered[key] {
				continue
			}
			due, ok := m.due[key]
			if !ok {
				due = r.CreatedAt.Add(time.Second + time.Duration(m.rng.IntN(3000))*time.Millisecond)
				m.due[key] = due
			}
			if now.Before(due) {
				continue
			}
			m.answered[key] = true
			m.answer(ctx, f, r)
		}
	}
	for k := range m.answered {
		if !seen[k] {
			delete(m.answered, k)
			delete(m.due, k)
		}
	}
	for k := range m.due {
		if !seen[k] {
			delete(m.due, k)
		}
	}
}

func (m *Market) answer(ctx context.Context, f demo.SimulatedFirm, r venue.Offer) {
	b := m.bondOf(r.InstrumentID)
	if b == nil || m.rng.IntN(5) == 0 {
		if _, err := m.svc.DeclineRFQ(ctx, f.Trader, r.ID); err != nil {
			m.skip("decline rfq", err)
		}
		return
	}
	side := venue.Ask // the requester buys
	if r.Direction == venue.Ask {
		side = venue.Bid
	}
	px, err := m.price(ctx, f.Trader, b, r.MarketID, side, m.halfSpread())
	if err == nil {
		q := r.Remaining()
		_, err = m.svc.CreateOffer(ctx, f.Trader, trading.OfferInput{AccountID: f.AccountID, InstrumentID: r.InstrumentID,
			MarketID: r.MarketID, Direction: side, Price: &px, Quantity: &q, MatchedOfferID: r.ID,
			Validity: venue.GTD, ValidUntil: timePtr(m.cfg.Now().Add(5 * time.Minute))})
	}
	if err != nil { // a quote the venue refuses (a limit, the collar): the dealer declines
		m.skip("quote", err)
		if _, err := m.svc.DeclineRFQ(ctx, f.Trader, r.ID); err != nil {
			m.skip("decline rfq", err)
		}
	}
}

func timePtr(t time.Time) *time.Time { return &t }

// bondOf is the bond the market makes prices in with instrument id, or nil.
func (m *Market) bondOf(id string) *bond {
	for _, c := range m.bonds {
		if c.in.ID == id {
			return c
		}
	}
	return nil
}

// answerLists answers, as each simulated dealer, the open portfolio lists
// sent to it: one to four seconds after the list, a quote of every line
// priced as its RFQs are (four times in five), or a decline when a line is
// not a bond it makes prices in or the venue refuses the quote.
func (m *Market) answerLists(ctx context.Context) {
	now := m.cfg.Now()
	for _, f := range m.sim.Firms {
		l, err := m.svc.PortfolioRFQs(ctx, f.Trader, venue.StatusCreated, venue.Page{Limit: 100})
		if err != nil {
			m.skip("list portfolio rfqs", err)
			continue
		}
		for _, r := range l.Items {
			if r.ParticipantID == f.ID || len(r.Quotes) > 0 { // its own, or answered (a dealer reads only its own quotes)
				continue
			}
			key := "list/" + r.ID + "/" + f.ID
			due, ok := m.due[key]
			if !ok {
				due = r.CreatedAt.Add(time.Second + time.Duration(m.rng.IntN(3000))*time.Millisecond)
				m.due[key] = due
			}
			if now.Before(due) {
				continue
			}
			delete(m.due, key)
			m.answerList(ctx, f, r)
		}
	}
}

func (m *Market) answerList(ctx context.Context, f demo.SimulatedFirm, r venue.PortfolioRFQ) {
	decline := func() {
		if _, err := m.svc.DeclinePortfolio(ctx, f.Trader, r.ID); err != nil {
			m.skip("decline portfolio rfq", err)
		}
	}
	if m.rng.IntN(5) == 0 {
		decline()
		return
	}
	in := trading.PortfolioQuoteInput{AccountID: f.AccountID, ValidUntil: timePtr(m.cfg.Now().Add(5 * time.Minute))}
	for _, line := range r.Lines {
		b := m.bondOf(line.InstrumentID)
		side := venue.Ask // the requester buys the line
		if line.Direction == venue.Ask {
			side = venue.Bid
		}
		if b == nil {
			decline()
			return
		}
		px, err := m.price(ctx, f.Trader, b, r.MarketID, side, m.halfSpread())
		if err != nil {
			m.skip("list price", err)
			decline()
			return
		}
		in.Lines = append(in.Lines, trading.PortfolioQuoteLineInput{LineID: line.LineID, Price: &px})
	}
	if _, err := m.svc.QuotePortfolio(ctx, f.Trader, r.ID, in); err != nil { // a limit, the collar: the dealer declines
		m.skip("quote portfolio rfq", err)
		decline()
	}
}

// sendRFQ has a simulated firm ask the first two demo firms for a quote,
// so that a human dealer has requests to answer.
func (m *Market) sendRFQ(ctx context.Context) {
	if m.otc == "" || len(m.sim.Humans) < 2 {
		return
	}
	f := m.sim.Firms[m.rng.IntN(len(m.sim.Firms))]
	b := m.bonds[m.rng.IntN(len(m.bonds))]
	side := venue.Bid
	if m.rng.IntN(2) == 1 {
		side = venue.Ask
	}
	q := m.quantity()
	if _, err := m.svc.CreateRFQ(ctx, f.Trader, trading.OfferInput{AccountID: f.AccountID, InstrumentID: b.in.ID, MarketID: m.otc,
		Direction: side, Quantity: &q, Counterparties: m.sim.Humans[:2]}); err != nil {
		m.skip("send rfq", err)
	}
}

// acceptQuotes has the simulated firms take a quote on their open RFQs
// when it is no worse than their reference price plus a quarter point.
func (m *Market) acceptQuotes(ctx context.Context) {
	limit := udecimal.MustFromInt64(25, 2)
	for _, f := range m.sim.Firms {
		l, err := m.svc.RFQs(ctx, f.Trader, trading.OfferFilter{Status: venue.StatusCreated}, venue.Page{Limit: 20})
		if err != nil {
			m.skip("list rfqs", err)
			continue
		}
		for _, r := range l.Items {
			if r.ParticipantID != f.ID {
				continue
			}
			v, err := m.svc.RFQ(ctx, f.Trader, r.ID)
			if err != nil {
				m.skip("read rfq", err)
				continue
			}
			var ref udecimal.Decimal
			for _, b := range m.bonds {
				if b.in.ID == r.InstrumentID {
					ref = b.ref
				}
			}
			for _, q := range v.MatchedOffers {
				if !q.Open() || !q.HasPrice || q.Type != venue.TypeQuote {
					continue
				}
				good := q.Price.LessThanOrEqual(ref.Add(limit))
				if r.Direction == venue.Ask {
					good = q.Price.GreaterThanOrEqual(ref.Sub(limit))
				}
				if good {
					if _, err := m.svc.AcceptQuote(ctx, f.Trader, q.ID, venue.Parties{}); err != nil {
						m.skip("accept quote", err)
					}
					break
				}
			}
		}
	}
}

// publishNews has the demo operator publish a market note on a bond.
func (m *Market) publishNews(ctx context.Context) {
	b := m.bonds[m.rng.IntN(len(m.bonds))]
	title, body := newsItem(m.rng.IntN(len(newsTemplates)), b.in.Terms.Name, b.ref, m.rng.IntN(6)+1)
	if _, err := m.svc.CreateNews(ctx, m.sim.Operator, trading.NewsInput{Title: title, Body: body,
		Source: "bondvenue market desk"}); err != nil {
		m.skip("news", err)
	}
}

var newsTemplates = []struct{ title, body string }{
	{"%s: two-way interest on the continuous market", "Dealers show tighter markets in %s around %s; %d bp of yield moved through the session."},
	{"Real money buying in %s", "Asset managers lifted offers in %s near %s; the curve bull-flattened by %d bp."},
	{"Supply week: %s cheapens into the auction", "%s trades around %s as issuers line up supply; spreads %d bp wider on the week."},
	{"RFQ activity picks up in %s", "Requests for quote in %s clustered near %s; hit ratios improved and the bid-ask narrowed by %d ticks."},
}

func newsItem(i int, name string, ref udecimal.Decimal, bp int) (string, string) {
	t := newsTemplates[i]
	return fmt.Sprintf(t.title, name), fmt.Sprintf(t.body, name, ref.String(), bp)
}
