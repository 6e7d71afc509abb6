package trading_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestRiskLimitsUnderConcurrency hammers one participant's tight
// ALL_OFFER_SUM and ALL_OFFER_USER_SUM limits from many concurrent
// clients (creates of non-crossing offers, cancels and amend-ups from two
// users) and checks, during the run and afterwards, from the database and
// from the engine, that no interleaving ever let the open quantity exceed a
// limit (docs/guide.md, "Trading": concurrent requests never overshoot).
func TestRiskLimitsUnderConcurrency(t *testing.T) {
	clients, ops := 64, 200
	if testing.Short() {
		clients, ops = 16, 50
	}
	limits := map[string]string{
		venue.LimitAllOfferSum:     "40000000",
		venue.LimitAllOfferUserSum: "25000000", // two users: 50M together, so both limits bind
	}
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		v := testenv.NewDemoVenue(t, e)
		for name, value := range limits {
			setLimit(t, v, 0, name, value)
		}
		users := []venue.Principal{v.Principal(t, 0, venue.RoleAdmin), v.Principal(t, 0, venue.RoleTrader)}
		limitOf := map[string]udecimal.Decimal{}
		for name, value := range limits {
			limitOf[name] = dec(value)
		}
		ctx := t.Context()

		// The monitor reads the committed open quantity from the database
		// while the clients run and keeps the highest sums it saw.
		var maxSum, maxUser udecimal.Decimal
		samples := 0
		stop, monitorDone := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(monitorDone)
			for {
				sum, perUser, err := openUse(ctx, v.DB, v.Creds.Participants[0].ID)
				if err != nil {
					t.Errorf("monitor: %v", err)
					return
				}
				samples++
				maxSum = udecimal.Max(maxSum, sum)
				for _, u := range perUser {
					maxUser = udecimal.Max(maxUser, u)
				}
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()

		var (
			failures            atomic.Int64
			accepted, cancelled atomic.Int64
			rejectedBy          sync.Map // limit name → *atomic.Int64
			mu                  sync.Mutex
			acked               = map[string]udecimal.Decimal{} // open offer id → quantity, as acknowledged
		)
		fail := func(format string, args ...any) {
			failures.Add(1)
			t.Errorf(format, args...)
		}
		rejected := func(err error) {
			name, lerr := limitBreach(err, limits)
			if lerr != nil {
				fail("%v", lerr)
				return
			}
			n, _ := rejectedBy.LoadOrStore(name, new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
		}
		// checkUse reads the engine's use after an accepted command: it
		// must be within the limits.
		checkUse := func(op string, p venue.Principal) {
			ls, err := v.Svc.RiskLimits(ctx, p)
			if err != nil {
				fail("RiskLimits() after %s = %v", op, err)
				return
			}
			for _, l := range ls {
				if lim, ok := limitOf[l.Name]; ok && l.Used.GreaterThan(lim) {
					fail("RiskLimits() after %s: %s used %s, want ≤ %s", op, l.Name, l.Used, lim)
				}
			}
		}

		start := time.Now()
		var wg sync.WaitGroup
		for c := range clients {
			wg.Go(func() {
				p := users[c%len(users)]
				rng := rand.New(rand.NewPCG(uint64(c), 0x5eed))
				own := map[string]udecimal.Decimal{} // this client's open offers
				var ids []string
				for range ops {
					if failures.Load() > 20 {
						return
					}
					op := rng.IntN(4)
					if len(ids) == 0 {
						op = 0
					}
					switch op {
					case 0, 1: // create a non-crossing offer
						qty := udecimal.MustFromInt64(int64(1+rng.IntN(20))*50_000, 0)
						dir, price := venue.Bid, udecimal.MustFromInt64(int64(9500+rng.IntN(400)), 2)
						if rng.IntN(2) == 0 {
							dir, price = venue.Ask, udecimal.MustFromInt64(int64(10100+rng.IntN(400)), 2)
						}
						got, err := v.Svc.CreateOffer(ctx, p, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
							Direction: dir, Price: &price, Quantity: &qty})
						if err != nil {
							rejected(err)
							continue
						}
						if got.Status != venue.StatusCreated || !got.Filled.IsZero() || !got.Quantity.Equal(qty) {
							fail("CreateOffer(%s %s @ %s) = status %s, filled %s, quantity %s; want a resting offer of %s",
								dir, qty, price, got.Status, got.Filled, got.Quantity, qty)
						}
						own[got.ID] = qty
						ids = append(ids, got.ID)
						accepted.Add(1)
						checkUse("create", p)
					case 2: // cancel one of its own offers
						k := rng.IntN(len(ids))
						id := ids[k]
						got, err := v.Svc.DeleteOffer(ctx, p, id)
						if err != nil || got.Status != venue.StatusCancelled {
							fail("DeleteOffer(%s) = status %q, %v; want cancelled", id, got.Status, err)
							continue
						}
						delete(own, id)
						ids[k] = ids[len(ids)-1]
						ids = ids[:len(ids)-1]
						cancelled.Add(1)
					case 3: // amend one of its own offers up
						id := ids[rng.IntN(len(ids))]
						qty := own[id].Add(udecimal.MustFromInt64(int64(1+rng.IntN(10))*50_000, 0))
						got, err := v.Svc.UpdateOffer(ctx, p, id, trading.ChangeInput{Quantity: &qty})
						if err != nil {
							rejected(err)
							continue
						}
						if !got.Quantity.Equal(qty) || got.Status != venue.StatusCreated {
							fail("UpdateOffer(%s, quantity %s) = quantity %s, status %s; want %s, created", id, qty, got.Quantity, got.Status, qty)
						}
						own[id] = qty
						accepted.Add(1)
						checkUse("amend", p)
					}
				}
				mu.Lock()
				maps.Copy(acked, own)
				mu.Unlock()
			})
		}
		wg.Wait()
		close(stop)
		<-monitorDone
		elapsed := time.Since(start)

		counts := map[string]int64{}
		rejectedBy.Range(func(k, n any) bool { counts[k.(string)] = n.(*atomic.Int64).Load(); return true })
		t.Logf("%d clients × %d operations in %v: %d accepted creates/amends, %d cancels, rejections %v; %d database samples, highest open sum %s, highest user sum %s",
			clients, ops, elapsed.Round(time.Millisecond), accepted.Load(), cancelled.Load(), counts, samples, maxSum, maxUser)
		if counts[venue.LimitAllOfferSum]+counts[venue.LimitAllOfferUserSum] == 0 {
			t.Errorf("no request was rejected by a limit; the limits %v are not tight enough to test anything", limits)
		}
		if over := maxSum.Sub(limitOf[venue.LimitAllOfferSum]); over.IsPos() {
			t.Errorf("during the run the committed open quantity reached %s: overshoot %s over ALL_OFFER_SUM, want 0", maxSum, over)
		}
		if over := maxUser.Sub(limitOf[venue.LimitAllOfferUserSum]); over.IsPos() {
			t.Errorf("during the run a user's committed open quantity reached %s: overshoot %s over ALL_OFFER_USER_SUM, want 0", maxUser, over)
		}

		// Afterwards: the database holds exactly the acknowledged open
		// offers, within the limits, and the engine counts the same use
		// before and after a restart.
		sum, perUser, err := openUse(ctx, v.DB, v.Creds.Participants[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if sum.GreaterThan(limitOf[venue.LimitAllOfferSum]) {
			t.Errorf("open quantity in the database = %s, want ≤ ALL_OFFER_SUM %s", sum, limits[venue.LimitAllOfferSum])
		}
		open := map[string]udecimal.Decimal{}
		for _, o := range offersOf(t, v) {
			if o.Open() {
				open[o.ID] = o.Remaining()
			}
		}
		if diff := cmp.Diff(decimalStrings(acked), decimalStrings(open)); diff != "" {
			t.Errorf("open offers in the database differ from those acknowledged as open (-acked +database):\n%s", diff)
		}
		checkEngineUse := func(when string) {
			t.Helper()
			for _, p := range users {
				ls, err := v.Svc.RiskLimits(ctx, p)
				if err != nil {
					t.Fatalf("RiskLimits() %s = %v", when, err)
				}
				want := map[string]string{venue.LimitAllOfferSum: sum.String(), venue.LimitAllOfferUserSum: perUser[p.UserID].String()}
				got := map[string]string{}
				for _, l := range ls {
					if _, ok := want[l.Name]; ok {
						got[l.Name] = l.Used.String()
						if l.Used.GreaterThan(l.Value) {
							t.Errorf("RiskLimits() %s: %s used %s > value %s", when, l.Name, l.Used, l.Value)
						}
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("RiskLimits(%s) %s: used differs from the database's open quantity (-database +engine):\n%s", p.Role, when, diff)
				}
			}
		}
		checkEngineUse("after the run")
		v.Restart(t)
		checkEngineUse("after a restart")
	})
}

// openUse sums the remaining quantity of a participant's open offers and
// quotes in the database, in total and per user.
func openUse(ctx context.Context, db *store.DB, participantID string) (udecimal.Decimal, map[string]udecimal.Decimal, error) {
	var open []venue.Offer
	err := db.View(ctx, func(tx *store.Tx) error {
		var err error
		open, _, err = tx.Offers(ctx, store.OfferFilter{Types: []string{venue.TypeOffer, venue.TypeQuote}, Owner: participantID,
			Status: venue.StatusCreated}, venue.Page{})
		return err
	})
	if err != nil {
		return udecimal.Zero, nil, fmt.Errorf("read open offers: %w", err)
	}
	sum, perUser := udecimal.Zero, map[string]udecimal.Decimal{}
	for _, o := range open {
		sum = sum.Add(o.Remaining())
		perUser[o.UserID] = perUser[o.UserID].Add(o.Remaining())
	}
	return sum, perUser, nil
}

// limitBreach checks that err is a limit error naming one of the limits
// with its value, and returns that limit's name.
func limitBreach(err error, limits map[string]string) (string, error) {
	var ve *venue.Error
	if !errors.As(err, &ve) || !errors.Is(err, venue.ErrLimit) {
		return "", fmt.Errorf("rejection %v (kind %v), want a limit error", err, venue.KindOf(err))
	}
	for name, value := range limits {
		if strings.Contains(ve.Message, name) && strings.Contains(ve.Message, value) {
			return name, nil
		}
	}
	return "", fmt.Errorf("limit error %q names none of the limits %v with its value", ve.Message, limits)
}

func decimalStrings(m map[string]udecimal.Decimal) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v.String()
	}
	return out
}
