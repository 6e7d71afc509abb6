package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
	"github.com/google/uuid"
	"github.com/quagmt/udecimal"
)

// offerQuantity is the nominal of every offer: a multiple of every demo
// instrument's min_increment and at least every min_piece.
const offerQuantity = "100000"

// continuousMarket is the demo market the offers are entered on.
const continuousMarket = "bondvenue Continuous"

// server serves h on a fresh loopback port with the HTTP settings of
// cmd/bondvenue.
type server struct {
	// core is the venue's (scenarios c, c2), for its engine counters.
	core *testenv.Venue
	url  string
	srv  *http.Server
	errc chan error
}

func serve(h http.Handler, log *slog.Logger) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s := &server{url: "http://" + ln.Addr().String(), errc: make(chan error, 1), srv: &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}}
	go func() { s.errc <- s.srv.Serve(ln) }()
	return s, nil
}

// Close shuts the server down after its in-flight requests.
func (s *server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// --- (a) a trivial handler -------------------------------------------------

var okBody = []byte(`{"status":"ok"}` + "\n")

// trivial reads the request body and answers a small JSON object: the
// ceiling of what net/http and the load generator manage on this machine.
func trivial(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(okBody)
}

// --- demo data shared by (b) and (c) ----------------------------------------

// trader is a demo user who may enter offers.
type trader struct {
	participant, account, user string
	role                       venue.Role
	clientID, secret           string
	token                      string
}

// demoVenue is the demo data a scenario trades on.
type demoVenue struct {
	traders     []trader // by participant, then user
	instruments []string
	market      string
	// counterparties is how many of the first participants are mutual
	// counterparties (the demo's first three).
	counterparties int
}

// loadDemo loads the demo venue into svc's empty database and raises every
// participant's risk limits so that they never bind during a run (the
// book of a run holds hundreds of thousands of offers).
func loadDemo(ctx context.Context, svc *trading.Service, db *store.DB, dir string) (demoVenue, error) {
	var dv demoVenue
	creds, _, err := demo.Load(ctx, svc, dir, "")
	if err != nil {
		return dv, err
	}
	// The load's bids and asks sit far apart on purpose (they never cross):
	// the widest price collar lets them rest.
	wide := udecimal.MustParse("100")
	ms, err := svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
	if err != nil {
		return dv, err
	}
	for _, m := range ms.Items {
		if _, err := svc.UpdateMarket(ctx, trading.System, m.ID, trading.MarketInput{PriceCollarPercent: &wide}); err != nil {
			return dv, err
		}
	}
	unlimited := udecimal.MustParse("999999999999999999") // the largest amount the venue takes
	for _, p := range creds.Participants {
		for _, name := range trading.RiskLimitNames() {
			if _, err := svc.SetRiskLimit(ctx, trading.System, p.ID, trading.RiskLimitInput{Name: name, Value: &unlimited}); err != nil {
				return dv, fmt.Errorf("raise risk limit: %w", err)
			}
		}
		for _, u := range p.Users {
			if u.Role == string(venue.RoleAdmin) || u.Role == string(venue.RoleTrader) {
				dv.traders = append(dv.traders, trader{participant: p.ID, account: p.AccountIDs[0], user: u.UserID,
					role: venue.Role(u.Role), clientID: u.ClientID, secret: u.ClientSecret})
			}
		}
	}
	dv.counterparties = 3
	err = db.View(ctx, func(tx *store.Tx) error {
		ms, _, err := tx.Markets(ctx, store.MarketFilter{}, venue.Page{})
		if err != nil {
			return err
		}
		for _, m := range ms {
			if m.Name == continuousMarket {
				dv.market = m.ID
			}
		}
		ins, _, err := tx.Instruments(ctx, store.InstrumentFilter{}, venue.Page{})
		for _, in := range ins {
			dv.instruments = append(dv.instruments, in.ID)
		}
		return err
	})
	if err != nil {
		return dv, err
	}
	if dv.market == "" || len(dv.instruments) == 0 || len(dv.traders) == 0 {
		return dv, fmt.Errorf("demo data lacks the %q market, instruments or traders", continuousMarket)
	}
	return dv, nil
}

// offerBody appends an offer create body. Bids are priced 80.00–89.99 and
// asks 110.00–119.99, so they never cross.
func offerBody(dst []byte, t trader, instrument, market string, n int, withIDs bool) []byte {
	dir, price := "bid", 8000+n%1000
	if n%2 == 1 {
		dir, price = "ask", 11000+n%1000
	}
	return offerBodyAt(dst, t, instrument, market, dir, price, withIDs)
}

// offerBodyAt appends an offer body at a price in cents of a percent.
func offerBodyAt(dst []byte, t trader, instrument, market, dir string, cents int, withIDs bool) []byte {
	dst = append(dst, `{`...)
	if withIDs {
		dst = append(dst, `"participant_id":"`+t.participant+`","user_id":"`+t.user+`",`...)
	}
	dst = append(dst, `"account_id":"`+t.account+`","instrument_id":"`+instrument+`","market_id":"`+market+
		`","direction":"`+dir+`","price_per_unit":"`...)
	dst = strconv.AppendInt(dst, int64(cents/100), 10)
	dst = append(dst, '.', byte('0'+cents/10%10), byte('0'+cents%10))
	dst = append(dst, `","quantity":"`+offerQuantity+`"}`...)
	return dst
}

// bodies gives every worker a reusable body buffer.
type bodies [][]byte

func newBodies(n int) bodies { return make(bodies, n) }

func (b bodies) next(w int, fill func([]byte) []byte) []byte {
	b[w] = fill(b[w][:0])
	return b[w]
}

// --- (b) one commit per request ---------------------------------------------

// baseline is durable offer entry without the sequencer: it validates a
// small offer body and writes the offer and its event in a transaction of
// its own, so every request pays one commit. Writes go one at a time, as
// the sequencer's batches do: the event log takes one appender at a time
// anyway (SQLite has one write connection; PostgreSQL an advisory lock,
// and 64 concurrent SERIALIZABLE appenders mostly fail and retry there).
type baseline struct {
	db       *store.DB
	mu       sync.Mutex
	priority atomic.Uint64
}

type baselineBody struct {
	ParticipantID string `json:"participant_id"`
	AccountID     string `json:"account_id"`
	UserID        string `json:"user_id"`
	InstrumentID  string `json:"instrument_id"`
	MarketID      string `json:"market_id"`
	Direction     string `json:"direction"`
	PricePerUnit  string `json:"price_per_unit"`
	Quantity      string `json:"quantity"`
}

func (h *baseline) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in baselineBody
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&in); err != nil {
		http.Error(w, `{"message":"malformed JSON"}`, http.StatusBadRequest)
		return
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	o, err := in.offer(now)
	if err != nil {
		http.Error(w, `{"message":"`+err.Error()+`"}`, http.StatusBadRequest)
		return
	}
	o.Priority = h.priority.Add(1)
	data, err := json.Marshal(wire.OfferOf(o, false))
	if err != nil {
		http.Error(w, `{"message":"encode"}`, http.StatusInternalServerError)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	err = h.db.InTx(r.Context(), func(tx *store.Tx) error {
		if err := tx.UpsertOffer(r.Context(), &o); err != nil {
			return err
		}
		_, err := tx.AppendEvents(r.Context(), []store.Event{{Type: "offer.create", OccurredAt: now,
			ParticipantID: o.ParticipantID, Data: data}})
		return err
	})
	if err != nil {
		http.Error(w, `{"message":"database"}`, http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(append(data, '\n'))
}

func (in baselineBody) offer(now time.Time) (venue.Offer, error) {
	var v venue.Validator
	for _, f := range []struct{ name, id string }{{"participant_id", in.ParticipantID}, {"account_id", in.AccountID},
		{"user_id", in.UserID}, {"instrument_id", in.InstrumentID}, {"market_id", in.MarketID}} {
		_, err := uuid.Parse(f.id)
		v.Check(err == nil, f.name, "must be an id")
	}
	v.Check(in.Direction == venue.Ask || in.Direction == venue.Bid, "direction", "must be ask or bid")
	price, perr := udecimal.Parse(in.PricePerUnit)
	v.Check(perr == nil && price.IsPos(), "price_per_unit", "must be a positive decimal")
	qty, qerr := udecimal.Parse(in.Quantity)
	v.Check(qerr == nil && qty.IsPos(), "quantity", "must be a positive decimal")
	if err := v.Err(); err != nil {
		return venue.Offer{}, err
	}
	return venue.Offer{ID: uuid.Must(uuid.NewV7()).String(), Type: venue.TypeOffer, Direction: in.Direction,
		ParticipantID: in.ParticipantID, AccountID: in.AccountID, UserID: in.UserID, MarketID: in.MarketID,
		InstrumentID: in.InstrumentID, Price: price, HasPrice: true, Quantity: qty, Status: venue.StatusCreated,
		SettlementDate: bondmath.TARGET2.AddBusinessDays(bondmath.DateOf(now), 2), Validity: venue.GTC,
		AccruedInterest: udecimal.Zero, CreatedAt: now, UpdatedAt: now, ModifiedAt: now}, nil
}

// --- (c) the venue ------------------------------------------------------------

// venueConfig is what the venue scenarios tune.
type venueConfig struct {
	rateLimit float64
	// queueBudget is the sequencer's admission bound (sequencer.New:
	// 0, no bound).
	queueBudget time.Duration
	log         *slog.Logger
}

// newCore returns the venue's core on db, wired as cmd/bondvenue wires it.
// Client secrets are hashed with the cheap Argon2 parameters: hashing
// happens only when the demo credentials are issued and the tokens
// granted, before the measured window, and would otherwise dominate a
// short run.
func newCore(db *store.DB, log *slog.Logger, rateLimit float64, queueBudget time.Duration) *testenv.Venue {
	h := auth.FastHasher
	return testenv.Wire(db, testenv.Config{Trading: trading.Config{Hasher: &h, Logger: log, RateLimit: rateLimit}, TokenTTL: time.Hour,
		QueueBudget: queueBudget})
}

// engineStats are the sequencer's counters at one moment.
type engineStats struct {
	Batches, Commands int64
	BatchTime         time.Duration
}

// countersOf reads the sequencer's counters.
func countersOf(v *testenv.Venue) engineStats {
	b, c, t := v.Sequencer.Counters()
	return engineStats{Batches: b, Commands: c, BatchTime: t}
}

// startVenue loads the demo venue into db, starts the sequencer and the
// real HTTP stack on a loopback port and grants every trader a token over
// HTTP.
func startVenue(ctx context.Context, db *store.DB, dir string, cfg venueConfig) (*server, demoVenue, func(), error) {
	core := newCore(db, cfg.log, cfg.rateLimit, cfg.queueBudget)
	dv, err := loadDemo(ctx, core.Svc, db, dir)
	if err != nil {
		return nil, dv, nil, err
	}
	if err := core.Start(ctx); err != nil {
		return nil, dv, nil, err
	}
	api := httpapi.New(httpapi.Deps{Trading: core.Svc, Live: core.Live, Cluster: core.Cluster, Engine: core.Sequencer, Keys: core.Keys, Access: core.Access, Records: core.Records, Positions: core.Positions},
		httpapi.Config{Logger: cfg.log})
	srv, err := serve(api.Handler(), cfg.log)
	if err != nil {
		core.Close()
		return nil, dv, nil, err
	}
	srv.core = core
	stop := func() {
		_ = srv.Close()
		core.Close() // after HTTP, as cmd/bondvenue does
	}
	for i := range dv.traders {
		if dv.traders[i].token, err = grant(ctx, srv.url, dv.traders[i]); err != nil {
			stop()
			return nil, dv, nil, err
		}
	}
	return srv, dv, stop, nil
}

// grant exchanges a trader's client credentials for an access token.
func grant(ctx context.Context, base string, t trader) (string, error) {
	body, _ := json.Marshal(map[string]string{"grant_type": "client_credentials", "client_id": t.clientID, "client_secret": t.secret})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/auth/token", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("grant token: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || out.AccessToken == "" {
		return "", fmt.Errorf("grant token: %s", resp.Status)
	}
	return out.AccessToken, nil
}

// filled reports whether an offer response shows a non-zero filled
// quantity, i.e. the offer traded on entry.
func filled(body []byte) bool {
	const key = `"filled_quantity":`
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return false
	}
	rest := bytes.TrimLeft(body[i+len(key):], ` "`)
	return len(rest) > 0 && !(rest[0] == '0' && (len(rest) == 1 || rest[1] == ',' || rest[1] == '"' || rest[1] == '}'))
}
