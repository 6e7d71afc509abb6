package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bondvenue/bondvenue/internal/demo"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// The authorization matrix: every route of routes.go × every role (and no
// token) × the object it addresses. The expected statuses follow docs/guide.md, "Who sees what"
// and the role checks of the trading package:
//
//   - no token: 401 on every authenticated route;
//   - 403 only for a role that may not perform the operation at all, so a
//     column that answers 403 answers it for every object of its row;
//   - another firm's object, and an unknown id, answer 404, never 403;
//     only a counterparty's public participant record is readable;
//   - /admin routes are the operator's, except the user, credential and
//     settlement-provider operations a PARTICIPANT_ADMIN performs for its
//     own firm.
//
// The callers are the operator and firm 0's users; "own" objects belong to
// firm 0, "counterparty" ones to firm 1 (a counterparty of firm 0), "other"
// ones to firm 3 (no relation).

// callers are the columns of the matrix.
var callers = [5]who{operator, admin(0), trader(0), viewer(0), anon}

// statuses holds one expected status per caller, in the order of callers.
type statuses [5]int

// Objects a request addresses.
const (
	noObject     = "-"            // the route addresses no record
	ownObject    = "own"          // firm 0's
	cptyObject   = "counterparty" // firm 1's
	otherObject  = "other"        // firm 3's
	publicObject = "public"       // a record every caller shares (market, instrument, public bucket)
	missing      = "missing"      // a well-formed id no record has
	unknownPath  = "unknown path" // for the catch-all route
	wrongMethod  = "wrong method" // for the catch-all route
)

// firmOf maps an object to the demo firm owning it.
var firmOf = map[string]int{ownObject: 0, cptyObject: 1, otherObject: 3}

type authzRow struct {
	route string // "METHOD /path" as in routes.go ("/" for the catch-all)
	want  map[string]statuses
	// req builds the request for one object and caller; it may create the
	// record the request consumes.
	req func(t *testing.T, f *fixture, obj string, w who) (path string, body any)
}

// Shorthands for common rows.
var (
	everyone200 = statuses{200, 200, 200, 200, 200}
	readers200  = statuses{200, 200, 200, 200, 401}
	readers404  = statuses{404, 404, 404, 404, 401}
	operatorAll = statuses{200, 404, 404, 404, 401} // the operator reads another firm's record; participants get 404
	operator200 = statuses{200, 403, 403, 403, 401}
	operator404 = statuses{404, 403, 403, 403, 401}
	firmAdmin   = statuses{200, 200, 403, 403, 401} // the operator, or the firm's admin
	firmAdmin4  = statuses{200, 404, 403, 403, 401} // another firm's record: the operator, else 404 for the admin
	admin404    = statuses{404, 404, 403, 403, 401}
)

func authzTable() []authzRow {
	static := func(p string) func(*testing.T, *fixture, string, who) (string, any) {
		return func(*testing.T, *fixture, string, who) (string, any) { return p, nil }
	}
	return []authzRow{
		// Operations and documentation: no token needed; a token is ignored.
		{"GET /healthz", map[string]statuses{noObject: everyone200}, static("/healthz")},
		{"GET /readyz", map[string]statuses{noObject: everyone200}, static("/readyz")},
		{"GET /metrics", map[string]statuses{noObject: everyone200}, static("/metrics")},
		{"GET /api/v1/openapi.json", map[string]statuses{noObject: everyone200}, static("/api/v1/openapi.json")},
		{"GET /api/v1/asyncapi.json", map[string]statuses{noObject: everyone200}, static("/api/v1/asyncapi.json")},
		{"GET /api/v1/fix/dictionary", map[string]statuses{noObject: everyone200}, static("/api/v1/fix/dictionary")},
		{"GET /docs", map[string]statuses{noObject: everyone200}, static("/docs")},
		{"GET /docs/", map[string]statuses{noObject: everyone200}, static("/docs/swagger-ui.css")},
		{"POST /api/v1/auth/token", map[string]statuses{noObject: {200, 200, 200, 200, 400}},
			func(t *testing.T, f *fixture, _ string, w who) (string, any) {
				body := map[string]string{"grant_type": "client_credentials"}
				if w.role != "" {
					u := f.v.userCred(w)
					body["client_id"], body["client_secret"] = u.ClientID, u.ClientSecret
				}
				return "/api/v1/auth/token", body
			}},
		{"GET /api/v1/auth/me", map[string]statuses{noObject: readers200}, static("/api/v1/auth/me")},
		{"POST /api/v1/auth/renew", map[string]statuses{noObject: readers200}, static("/api/v1/auth/renew")},

		// The web app: its files need no token.
		{"GET /{$}", map[string]statuses{noObject: everyone200}, static("/")},
		{"GET /assets/", map[string]statuses{publicObject: everyone200, missing: {404, 404, 404, 404, 404}},
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				if obj == missing {
					return "/assets/missing.js", nil
				}
				return f.asset, nil
			}},
		{"GET /favicon.svg", map[string]statuses{noObject: everyone200}, static("/favicon.svg")},
		{"/", map[string]statuses{
			unknownPath: {404, 404, 404, 404, 404},
			wrongMethod: {405, 405, 405, 405, 405},
		}, func(_ *testing.T, _ *fixture, obj string, _ who) (string, any) {
			if obj == unknownPath {
				return "/api/v1/nowhere", nil
			}
			return "/api/v1/markets", raw(`{}`) // sent with POST, see methodOf
		}},

		// Reference data.
		{"GET /api/v1/participants", map[string]statuses{noObject: readers200}, static("/api/v1/participants")},
		{"GET /api/v1/participants/{participantId}", map[string]statuses{
			ownObject:   readers200,
			cptyObject:  readers200, // public fields only
			otherObject: operatorAll,
			missing:     readers404,
		}, func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/participants/" + f.participant(obj), nil
		}},
		{"GET /api/v1/accounts", map[string]statuses{noObject: readers200}, static("/api/v1/accounts")},
		{"GET /api/v1/accounts/{accountId}", map[string]statuses{
			ownObject: readers200, cptyObject: operatorAll, otherObject: operatorAll, missing: readers404,
		}, func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/accounts/" + f.account(obj), nil
		}},
		{"GET /api/v1/users", map[string]statuses{noObject: readers200}, static("/api/v1/users")},
		{"GET /api/v1/users/{userId}", map[string]statuses{
			ownObject: readers200, cptyObject: operatorAll, otherObject: operatorAll, missing: readers404,
		}, func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/users/" + f.user(obj), nil
		}},
		{"GET /api/v1/markets", map[string]statuses{noObject: readers200}, static("/api/v1/markets")},
		{"GET /api/v1/markets/{marketId}", map[string]statuses{publicObject: readers200, missing: readers404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/markets/" + f.market(obj), nil
			}},
		{"GET /api/v1/instruments", map[string]statuses{noObject: readers200}, static("/api/v1/instruments")},
		{"GET /api/v1/instruments/{instrument_id}", map[string]statuses{publicObject: readers200, missing: readers404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/instruments/" + f.instrument(obj), nil
			}},
		{"GET /api/v1/news", map[string]statuses{noObject: readers200}, static("/api/v1/news")},
		{"GET /api/v1/participant/risk-limits", map[string]statuses{noObject: {403, 200, 200, 200, 401}},
			static("/api/v1/participant/risk-limits")},
		{"GET /api/v1/instruments/{instrument_id}/price-collar", map[string]statuses{publicObject: readers200, missing: readers404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/instruments/" + f.instrument(obj) + "/price-collar?market_id=" + f.book, nil
			}},
		// The kill switch: read by the firm's users, set by its admin; the
		// matrix turns it off (a no-op) so the fixture's records stay open.
		{"GET /api/v1/participant/kill-switch", map[string]statuses{noObject: {403, 200, 200, 200, 401}},
			static("/api/v1/participant/kill-switch")},
		{"PUT /api/v1/participant/kill-switch", map[string]statuses{noObject: {403, 200, 403, 403, 401}},
			func(*testing.T, *fixture, string, who) (string, any) {
				return "/api/v1/participant/kill-switch", map[string]any{"enabled": false}
			}},

		// Bond calculator: every authenticated caller.
		{"POST /api/v1/analytics/day-count", map[string]statuses{noObject: readers200},
			func(*testing.T, *fixture, string, who) (string, any) {
				return "/api/v1/analytics/day-count", map[string]any{"day_count": "ACT/360", "start": "2026-01-15", "end": "2026-07-15"}
			}},
		{"POST /api/v1/analytics/accrued-interest", map[string]statuses{noObject: readers200},
			func(*testing.T, *fixture, string, who) (string, any) {
				return "/api/v1/analytics/accrued-interest", bondTerms(nil)
			}},
		{"POST /api/v1/analytics/price", map[string]statuses{noObject: readers200},
			func(*testing.T, *fixture, string, who) (string, any) {
				return "/api/v1/analytics/price", bondTerms(map[string]any{"yield": "3.1"})
			}},
		{"POST /api/v1/analytics/yield", map[string]statuses{noObject: readers200},
			func(*testing.T, *fixture, string, who) (string, any) {
				return "/api/v1/analytics/yield", bondTerms(map[string]any{"clean_price": "99.5"})
			}},
		{"GET /api/v1/markets/{marketId}/settlement-date", map[string]statuses{publicObject: readers200, missing: readers404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/markets/" + f.market(obj) + "/settlement-date?trade_date=2027-10-08", nil
			}},
		{"GET /api/v1/calendars/{calendar}/settlement-date", map[string]statuses{publicObject: readers200, missing: readers404},
			func(_ *testing.T, _ *fixture, obj string, _ who) (string, any) {
				return "/api/v1/calendars/" + calendarOf(obj) + "/settlement-date?trade_date=2026-11-20&lag=2", nil
			}},
		{"GET /api/v1/calendars/{calendar}/holidays", map[string]statuses{publicObject: readers200, missing: readers404},
			func(_ *testing.T, _ *fixture, obj string, _ who) (string, any) {
				return "/api/v1/calendars/" + calendarOf(obj) + "/holidays?year=2026", nil
			}},
		{"GET /api/v1/instruments/{instrument_id}/analytics", map[string]statuses{publicObject: readers200, missing: readers404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/instruments/" + f.instrument(obj) + "/analytics?settlement_date=2026-11-24&price=99.5", nil
			}},
		{"GET /api/v1/instruments/{instrument_id}/ohlc", map[string]statuses{publicObject: readers200, missing: readers404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/instruments/" + f.instrument(obj) + "/ohlc?interval=1h", nil
			}},
		{"GET /api/v1/last-trades", map[string]statuses{publicObject: readers200, missing: readers404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/last-trades?market_id=" + f.market(obj), nil
			}},
		{"GET /api/v1/tape", map[string]statuses{publicObject: readers200, missing: readers404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/tape?instrument_id=" + f.instrument(obj), nil
			}},

		// Buckets: admins and traders keep their firm's private buckets;
		// the operator keeps the public ones (and may change any).
		{"POST /api/v1/participant/buckets", map[string]statuses{
			noObject:    {403, 202, 202, 403, 401},
			ownObject:   {403, 202, 202, 403, 401},
			cptyObject:  {403, 404, 404, 403, 401},
			otherObject: {403, 404, 404, 403, 401},
			missing:     {403, 404, 404, 403, 401},
		}, func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
			body := map[string]any{"name": f.unique("bucket"), "instruments": []map[string]string{{"id": f.ins[0]}}}
			if obj != noObject {
				body["participant_id"] = f.participant(obj)
			}
			return "/api/v1/participant/buckets", body
		}},
		{"GET /api/v1/participant/buckets", map[string]statuses{noObject: readers200}, static("/api/v1/participant/buckets")},
		{"GET /api/v1/participant/buckets/{bucketId}", map[string]statuses{
			ownObject: readers200, cptyObject: operatorAll, otherObject: operatorAll, publicObject: readers200, missing: readers404,
		}, func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/participant/buckets/" + f.bucket(obj), nil
		}},
		{"PUT /api/v1/participant/buckets/{bucketId}", bucketWrite,
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/participant/buckets/" + f.newBucket(t, obj), map[string]any{"entity": map[string]any{"name": f.unique("renamed")}}
			}},
		{"DELETE /api/v1/participant/buckets/{bucketId}", bucketWrite,
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/participant/buckets/" + f.newBucket(t, obj), nil
			}},

		// Trading: admins and traders of a firm trade; every role reads what
		// its firm may see; the operator reads everything and trades nothing.
		{"POST /api/v1/participant/offers", map[string]statuses{noObject: tradersOnly, otherObject: tradersNotFound},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				body := f.offerBody()
				if obj == otherObject {
					body["participant_id"] = f.participant(obj)
				}
				return "/api/v1/participant/offers", body
			}},
		{"GET /api/v1/participant/offers", map[string]statuses{noObject: readers200}, static("/api/v1/participant/offers")},
		{"GET /api/v1/participant/offers/{offerId}", map[string]statuses{
			ownObject: readers200, cptyObject: operatorAll, otherObject: operatorAll, missing: readers404,
		}, func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/participant/offers/" + f.offer(t, obj), nil
		}},
		{"PUT /api/v1/participant/offers/{offerId}", tradeWrite,
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/participant/offers/" + f.offer(t, obj), map[string]any{"entity": map[string]any{"notes": "amended"}}
			}},
		{"DELETE /api/v1/participant/offers/{offerId}", tradeWrite,
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/participant/offers/" + f.offer(t, obj), nil
			}},
		{"PUT /api/v1/participant/offers/{offerId}/accept", map[string]statuses{
			ownObject: tradersOnly, otherObject: tradersNotFound, missing: tradersNotFound,
		}, func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/participant/offers/" + f.quote(t, obj) + "/accept", nil
		}},
		{"POST /api/v1/participant/rfq", map[string]statuses{noObject: tradersOnly, otherObject: tradersNotFound},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				body := f.rfqBody()
				if obj == otherObject {
					body["participant_id"] = f.participant(obj)
				}
				return "/api/v1/participant/rfq", body
			}},
		{"GET /api/v1/participant/rfq", map[string]statuses{noObject: readers200}, static("/api/v1/participant/rfq")},
		{"GET /api/v1/participant/rfq/{rfqId}", map[string]statuses{
			ownObject: readers200, cptyObject: readers200, otherObject: operatorAll, missing: readers404,
		}, func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/participant/rfq/" + f.rfq(t, obj), nil
		}},
		{"GET /api/v1/participant/rfq/{rfqId}/execution-record", map[string]statuses{
			ownObject: readers200, cptyObject: operatorAll, otherObject: operatorAll, missing: readers404, // an invited dealer does not
		}, func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/participant/rfq/" + f.rfq(t, obj) + "/execution-record", nil
		}},
		{"GET /api/v1/participant/rfq/execution-records", map[string]statuses{noObject: readers200},
			static("/api/v1/participant/rfq/execution-records")},
		{"PUT /api/v1/participant/rfq/{rfqId}", tradeWrite,
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/participant/rfq/" + f.rfq(t, obj), map[string]any{"entity": map[string]any{"notes": "amended"}}
			}},
		{"DELETE /api/v1/participant/rfq/{rfqId}", tradeWrite,
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/participant/rfq/" + f.rfq(t, obj), nil
			}},
		{"PUT /api/v1/participant/rfq/{rfqId}/reject", map[string]statuses{
			cptyObject: tradersOnly, otherObject: tradersNotFound, missing: tradersNotFound, // an invited dealer declines
		}, func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/participant/rfq/" + f.rfq(t, obj) + "/reject", nil
		}},
		{"POST /api/v1/participant/portfolio-rfq", map[string]statuses{noObject: tradersOnly},
			func(_ *testing.T, f *fixture, _ string, _ who) (string, any) {
				return "/api/v1/participant/portfolio-rfq", f.portfolioBody()
			}},
		{"GET /api/v1/participant/portfolio-rfq", map[string]statuses{noObject: readers200}, static("/api/v1/participant/portfolio-rfq")},
		{"GET /api/v1/participant/portfolio-rfq/{portfolioId}", map[string]statuses{
			ownObject: readers200, cptyObject: readers200, otherObject: operatorAll, missing: readers404, // an invited dealer reads it
		}, func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/participant/portfolio-rfq/" + f.portfolio(t, obj), nil
		}},
		{"DELETE /api/v1/participant/portfolio-rfq/{portfolioId}", tradeWrite,
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/participant/portfolio-rfq/" + f.portfolio(t, obj), nil
			}},
		{"PUT /api/v1/participant/portfolio-rfq/{portfolioId}/reject", map[string]statuses{
			cptyObject: tradersOnly, otherObject: tradersNotFound, missing: tradersNotFound, // an invited dealer declines
		}, func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/participant/portfolio-rfq/" + f.portfolio(t, obj) + "/reject", nil
		}},
		{"POST /api/v1/participant/portfolio-rfq/{portfolioId}/quotes", map[string]statuses{
			cptyObject: tradersOnly, otherObject: tradersNotFound, missing: tradersNotFound, // an invited dealer quotes
		}, func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/participant/portfolio-rfq/" + f.portfolio(t, obj) + "/quotes", portfolioQuoteBody
		}},
		{"PUT /api/v1/participant/portfolio-rfq/{portfolioId}/quotes/{quoteId}/accept", map[string]statuses{
			ownObject: tradersOnly, otherObject: tradersNotFound, missing: tradersNotFound,
		}, func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
			return f.portfolioQuote(t, obj) + "/accept", nil
		}},
		{"PUT /api/v1/participant/portfolio-rfq/{portfolioId}/quotes/{quoteId}/reject", map[string]statuses{
			ownObject: tradersOnly, otherObject: tradersNotFound, missing: tradersNotFound,
		}, func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
			return f.portfolioQuote(t, obj) + "/reject", nil
		}},
		{"GET /api/v1/trades", map[string]statuses{noObject: readers200}, static("/api/v1/trades")},
		{"GET /api/v1/participant/positions", map[string]statuses{noObject: {200, 200, 200, 403, 401}},
			static("/api/v1/participant/positions")},
		{"GET /api/v1/trades/{tradeId}", map[string]statuses{ownObject: readers200, otherObject: operatorAll, missing: readers404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/trades/" + f.trade(obj), nil
			}},
		{"POST /api/v1/trades/{tradeId}/allocations", map[string]statuses{ownObject: tradersOnly, otherObject: tradersNotFound,
			missing: {403, 404, 404, 403, 401}},
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				id := missingID
				switch obj {
				case ownObject:
					id = f.newTrade(t, 0, 1) // a side allocates once: a new trade per caller
				case otherObject:
					id = f.trade(obj)
				}
				return "/api/v1/trades/" + id + "/allocations", map[string]any{"allocations": []map[string]any{
					{"account_id": f.v.account(0), "quantity": "1000"}}}
			}},
		{"GET /api/v1/allocations", map[string]statuses{noObject: {403, 200, 200, 200, 401}}, static("/api/v1/allocations")},
		{"GET /api/v1/trades/{tradeId}/allocations", map[string]statuses{ownObject: {403, 200, 200, 200, 401},
			otherObject: {403, 404, 404, 404, 401}, missing: {403, 404, 404, 404, 401}},
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				if obj == ownObject {
					return "/api/v1/trades/" + f.allocatedTrade(t) + "/allocations", nil
				}
				return "/api/v1/trades/" + f.trade(obj) + "/allocations", nil
			}},
		{"GET /api/v1/events", map[string]statuses{noObject: readers200}, static("/api/v1/events")},
		{"GET /api/v1/participant/indicative-price", map[string]statuses{noObject: readers200}, static("/api/v1/participant/indicative-price")},
		{"POST /api/v1/participant/indicative-price", map[string]statuses{noObject: tradersOnly, otherObject: tradersNotFound},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				body := map[string]any{"instrument_id": f.ins[0], "bid_price": "99.1", "ask_price": "99.3", "account_id": f.v.account(0)}
				if obj == otherObject {
					body["participant_id"], body["account_id"] = f.participant(obj), f.account(obj)
				}
				return "/api/v1/participant/indicative-price", body
			}},
		{"PUT /api/v1/participant/indicative-price/{indicativePriceId}", tradeWrite,
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/participant/indicative-price/" + f.indicative(t, obj), map[string]any{"entity": map[string]any{"bid_price": "99.2"}}
			}},
		{"DELETE /api/v1/participant/indicative-price/{indicativePriceId}", tradeWrite,
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/participant/indicative-price/" + f.indicative(t, obj), nil
			}},

		// Settlement providers: read by every role of the firm, changed by
		// its admin (and the operator).
		{"GET /api/v1/settlement-providers", map[string]statuses{noObject: readers200}, static("/api/v1/settlement-providers")},
		{"PUT /api/v1/settlement-providers/{id}/toggle", providerWrite,
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/settlement-providers/" + f.toggleProvider(obj) + "/toggle", nil
			}},
		{"PUT /api/v1/settlement-providers/{id}/account/{accountId}/default", providerWrite,
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/settlement-providers/" + f.defaultProvider(obj) + "/account/" + f.account(obj) + "/default", nil
			}},
		{"PUT /api/v1/settlement-providers/{id}/participant/{participantId}/default", providerWrite,
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/settlement-providers/" + f.defaultProvider(obj) + "/participant/" + f.participant(obj) + "/default", nil
			}},

		// Venue operator.
		{"POST /api/v1/admin/participants", map[string]statuses{noObject: operator200},
			func(_ *testing.T, f *fixture, _ string, _ who) (string, any) {
				return "/api/v1/admin/participants", map[string]any{"name": f.unique("Firm"), "lei": f.lei(), "country": "DE"}
			}},
		{"PUT /api/v1/admin/participants/{participantId}", map[string]statuses{
			ownObject: operator200, otherObject: operator200, missing: operator404,
		}, func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/admin/participants/" + f.participant(obj), map[string]any{"entity": map[string]any{"city": "Frankfurt"}}
		}},
		{"POST /api/v1/admin/accounts", map[string]statuses{
			ownObject: operator200, otherObject: operator200, missing: operator404,
		}, func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/admin/accounts", map[string]any{"participant_id": f.participant(obj), "number": f.unique("ACC")}
		}},
		{"POST /api/v1/admin/users", map[string]statuses{
			ownObject: firmAdmin, cptyObject: firmAdmin4, otherObject: firmAdmin4, missing: admin404,
		}, func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/admin/users", map[string]any{"participant_id": f.participant(obj),
				"email": fmt.Sprintf("user%d@example.com", f.n.Add(1)), "role": "PARTICIPANT_VIEWER"}
		}},
		{"PUT /api/v1/admin/users/{userId}", userAdmin,
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/admin/users/" + f.user(obj), map[string]any{"entity": map[string]any{"locale": "en"}}
			}},
		{"POST /api/v1/admin/users/{userId}/credentials", userAdmin,
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/admin/users/" + f.user(obj) + "/credentials", nil
			}},
		{"GET /api/v1/admin/users/{userId}/credentials", userAdmin,
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/admin/users/" + f.user(obj) + "/credentials", nil
			}},
		{"DELETE /api/v1/admin/credentials/{clientId}", userAdmin,
			func(t *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/admin/credentials/" + f.newCredential(t, obj), nil
			}},
		{"GET /api/v1/admin/settlement-links", map[string]statuses{noObject: operator200}, static("/api/v1/admin/settlement-links")},
		{"PUT /api/v1/admin/settlement-links", map[string]statuses{noObject: operator200},
			func(_ *testing.T, _ *fixture, _ string, _ who) (string, any) {
				return "/api/v1/admin/settlement-links", map[string]any{"links": demo.SettlementLinks}
			}},
		{"PUT /api/v1/admin/counterparties", map[string]statuses{noObject: operator200},
			func(_ *testing.T, f *fixture, _ string, _ who) (string, any) {
				return "/api/v1/admin/counterparties", map[string]any{"participant_id": f.v.participant(0),
					"counterparty_id": f.v.participant(1), "enabled": true}
			}},
		{"PUT /api/v1/admin/participants/{participantId}/risk-limits/{name}", map[string]statuses{
			ownObject: operator200, otherObject: operator200, missing: operator404,
		}, func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/admin/participants/" + f.participant(obj) + "/risk-limits/MAX_OFFER", map[string]any{"value": "50000000"}
		}},
		{"GET /api/v1/admin/participants/{participantId}/kill-switch", map[string]statuses{
			ownObject: operator200, otherObject: operator200, missing: operator404,
		}, func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/admin/participants/" + f.participant(obj) + "/kill-switch", nil
		}},
		{"PUT /api/v1/admin/participants/{participantId}/kill-switch", map[string]statuses{
			ownObject: operator200, otherObject: operator200, missing: operator404,
		}, func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/admin/participants/" + f.participant(obj) + "/kill-switch", map[string]any{"enabled": false}
		}},
		{"PUT /api/v1/admin/markets/{marketId}/instruments/{instrument_id}/halt", map[string]statuses{publicObject: operator200, missing: operator404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				m := f.book
				if obj == missing {
					m = missingID
				}
				return "/api/v1/admin/markets/" + m + "/instruments/" + f.ins[0] + "/halt", map[string]any{"halted": false}
			}},
		{"GET /api/v1/admin/markets/{marketId}/instruments/{instrument_id}/book", map[string]statuses{publicObject: operator200, missing: operator404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				m := f.book
				if obj == missing {
					m = missingID
				}
				return "/api/v1/admin/markets/" + m + "/instruments/" + f.ins[0] + "/book", nil
			}},
		{"GET /api/v1/admin/order-records", map[string]statuses{noObject: operator200}, static("/api/v1/admin/order-records?date=2026-12-07")},
		{"POST /api/v1/admin/settlement-providers", map[string]statuses{
			ownObject: firmAdmin, cptyObject: firmAdmin4, otherObject: firmAdmin4, missing: admin404,
		}, func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
			return "/api/v1/admin/settlement-providers", map[string]any{"participant_id": f.participant(obj), "provider": f.unique("Custodian")}
		}},
		{"POST /api/v1/admin/markets", map[string]statuses{noObject: operator200},
			func(_ *testing.T, f *fixture, _ string, _ who) (string, any) {
				return "/api/v1/admin/markets", map[string]any{"name": f.unique("Market"), "facility_type": "OTC"}
			}},
		{"PUT /api/v1/admin/markets/{marketId}", map[string]statuses{publicObject: operator200, missing: operator404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/admin/markets/" + f.market(obj), map[string]any{"entity": map[string]any{"is_enabled": true}}
			}},
		{"POST /api/v1/admin/instruments", map[string]statuses{noObject: operator200},
			func(_ *testing.T, f *fixture, _ string, _ who) (string, any) {
				return "/api/v1/admin/instruments", f.instrumentBody()
			}},
		{"PUT /api/v1/admin/instruments/{instrument_id}", map[string]statuses{publicObject: operator200, missing: operator404},
			func(_ *testing.T, f *fixture, obj string, _ who) (string, any) {
				return "/api/v1/admin/instruments/" + f.instrument(obj), map[string]any{"entity": map[string]any{"note": "reviewed"}}
			}},
		{"POST /api/v1/admin/buckets", map[string]statuses{noObject: {202, 403, 403, 403, 401}},
			func(_ *testing.T, f *fixture, _ string, _ who) (string, any) {
				return "/api/v1/admin/buckets", map[string]any{"name": f.unique("Public"), "instruments": []map[string]string{{"id": f.ins[1]}}}
			}},
		{"POST /api/v1/admin/news", map[string]statuses{noObject: operator200},
			func(_ *testing.T, f *fixture, _ string, _ who) (string, any) {
				return "/api/v1/admin/news", map[string]any{"title": f.unique("News"), "body": "Market notice."}
			}},
		{"GET /api/v1/admin/audit-log", map[string]statuses{noObject: operator200}, static("/api/v1/admin/audit-log")},

		// Between instances: only a command another instance passed on,
		// signed, is run; no caller's token makes one.
		{"POST /internal/v1/commands", map[string]statuses{noObject: {403, 403, 403, 403, 403}},
			static("/internal/v1/commands")},
	}
}

var (
	tradersOnly     = statuses{403, 200, 200, 403, 401} // the firm's admin and trader
	tradersNotFound = statuses{403, 404, 404, 403, 401} // the same roles, on a record not theirs
	tradeWrite      = map[string]statuses{
		ownObject: tradersOnly, cptyObject: tradersNotFound, otherObject: tradersNotFound, missing: tradersNotFound,
	}
	bucketWrite = map[string]statuses{
		ownObject:    {200, 200, 200, 403, 401},
		cptyObject:   {200, 404, 404, 403, 401},
		otherObject:  {200, 404, 404, 403, 401},
		publicObject: {200, 404, 404, 403, 401}, // visible, but not the participant's to change
		missing:      {404, 404, 404, 403, 401},
	}
	providerWrite = map[string]statuses{
		ownObject: firmAdmin, cptyObject: firmAdmin4, otherObject: firmAdmin4, missing: admin404,
	}
	userAdmin = map[string]statuses{
		ownObject: firmAdmin, cptyObject: firmAdmin4, otherObject: firmAdmin4, missing: admin404,
	}
)

// bondTerms is a valid bond calculator body plus extra fields.
func bondTerms(extra map[string]any) map[string]any {
	b := map[string]any{"day_count": "30E/360", "coupon": "3", "frequency": "Annual", "accrual_start": "2024-06-15",
		"maturity": "2031-06-15", "settlement_date": "2026-11-24"}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

func calendarOf(obj string) string {
	if obj == missing {
		return "NOWHERE"
	}
	return "TARGET2"
}

// methodOf returns the method a row sends.
func methodOf(row authzRow, obj string) string {
	if row.route == "/" {
		if obj == wrongMethod {
			return "POST"
		}
		return "GET"
	}
	m, _, _ := strings.Cut(row.route, " ")
	return m
}

// fixture holds the records the matrix addresses, on a fresh venue.
type fixture struct {
	v        *env
	ins      []string
	markets  []venue.Market
	buckets  map[string]string // object → bucket id, for reads
	toggles  map[int]string    // firm → a provider that is nobody's default
	defaults map[int]string    // firm → a provider the matrix makes the default
	otc      string            // the RFQ market
	book     string            // a continuous market with partial fills
	trades   map[string]string // object → trade id
	asset    string            // the web app's script
	n        atomic.Int64
	// allocateOnce allocates firm 0's side of its trade, for the reads.
	allocateOnce sync.Once
}

func newFixture(t *testing.T, v *env) *fixture {
	t.Helper()
	f := &fixture{v: v, ins: v.instruments(t), markets: v.markets(t), buckets: map[string]string{},
		toggles: map[int]string{}, defaults: map[int]string{}, asset: appAsset(t, v)}
	for obj, firm := range firmOf {
		f.buckets[obj] = v.privateBucket(t, trader(firm), "Watchlist "+obj)
		for _, m := range []map[int]string{f.toggles, f.defaults} {
			sp, err := v.svc.CreateSettlementProvider(context.Background(), trading.System,
				venue.SettlementProvider{ParticipantID: v.participant(firm), Provider: f.unique("Custodian"), Enabled: true})
			if err != nil {
				t.Fatal(err)
			}
			m[firm] = sp.ID
		}
	}
	f.buckets[publicObject] = v.publicBucket(t)
	for _, m := range f.markets {
		switch {
		case m.FacilityType == venue.FacilityOTC:
			f.otc = m.ID
		case m.IsPartialFillAllowed:
			f.book = m.ID
		}
	}
	f.trades = map[string]string{ownObject: f.newTrade(t, 0, 1), otherObject: f.newTrade(t, 1, 2)}
	// Records of every firm, so the lists the matrix reads are not empty.
	for _, obj := range []string{ownObject, cptyObject, otherObject} {
		f.offer(t, obj)
		f.rfq(t, obj)
		f.indicative(t, obj)
	}
	f.quote(t, ownObject)
	return f
}

func (f *fixture) offerBody() map[string]any {
	return map[string]any{"instrument_id": f.ins[0], "market_id": f.book, "direction": "bid", "price_per_unit": "95", "quantity": "1000"}
}

func (f *fixture) rfqBody() map[string]any {
	return map[string]any{"instrument_id": f.ins[0], "market_id": f.otc, "direction": "bid", "quantity": "1000",
		"counterparties": []string{f.v.participant(1)}}
}

var ctx = context.Background()

func dec(s string) *udecimal.Decimal {
	d := udecimal.MustParse(s)
	return &d
}

// offer creates an open bid (it cannot match: every bid of the matrix is
// below every ask) of the object's firm.
func (f *fixture) offer(t *testing.T, obj string) string {
	t.Helper()
	if obj == missing {
		return missingID
	}
	o, err := f.v.svc.CreateOffer(ctx, f.v.principal(trader(firmOf[obj])), trading.OfferInput{InstrumentID: f.ins[0],
		MarketID: f.book, Direction: "bid", Price: dec("95"), Quantity: dec("1000")})
	if err != nil {
		t.Fatalf("CreateOffer(%s) = %v", obj, err)
	}
	return o.ID
}

// newRFQ sends an RFQ from firm to the firms to.
func (f *fixture) newRFQ(t *testing.T, from int, to ...int) string {
	t.Helper()
	var cps []string
	for _, i := range to {
		cps = append(cps, f.v.participant(i))
	}
	o, err := f.v.svc.CreateRFQ(ctx, f.v.principal(trader(from)), trading.OfferInput{InstrumentID: f.ins[0],
		MarketID: f.otc, Direction: "bid", Quantity: dec("1000"), Counterparties: cps})
	if err != nil {
		t.Fatalf("CreateRFQ(%d → %v) = %v", from, to, err)
	}
	return o.ID
}

// newQuote answers an RFQ as dealer.
func (f *fixture) newQuote(t *testing.T, dealer int, rfq string) string {
	t.Helper()
	o, err := f.v.svc.CreateOffer(ctx, f.v.principal(trader(dealer)), trading.OfferInput{InstrumentID: f.ins[0],
		MarketID: f.otc, Direction: "ask", Price: dec("100.5"), Quantity: dec("1000"), MatchedOfferID: rfq})
	if err != nil {
		t.Fatalf("quote by %d on %s = %v", dealer, rfq, err)
	}
	return o.ID
}

// rfq returns an open RFQ: firm 0's to firm 1 (own), firm 1's inviting
// firm 0 (counterparty), firm 1's to firm 2 only (other).
func (f *fixture) rfq(t *testing.T, obj string) string {
	t.Helper()
	switch obj {
	case ownObject:
		return f.newRFQ(t, 0, 1)
	case cptyObject:
		return f.newRFQ(t, 1, 0)
	case otherObject:
		return f.newRFQ(t, 1, 2)
	}
	return missingID
}

// portfolioBody is a one-line list from firm 0 to firm 1.
func (f *fixture) portfolioBody() map[string]any {
	return map[string]any{"market_id": f.otc, "counterparties": []string{f.v.participant(1)},
		"lines": []map[string]any{{"instrument_id": f.ins[0], "direction": "bid", "quantity": "1000"}}}
}

// portfolioQuoteBody prices the one line of a fixture's list.
var portfolioQuoteBody = map[string]any{"lines": []map[string]any{{"line_id": "1", "price_per_unit": "100.5"}}}

// newPortfolio sends a one-line list from firm from to the firms to.
func (f *fixture) newPortfolio(t *testing.T, from int, to ...int) string {
	t.Helper()
	var cps []string
	for _, i := range to {
		cps = append(cps, f.v.participant(i))
	}
	r, err := f.v.svc.CreatePortfolioRFQ(ctx, f.v.principal(trader(from)), trading.PortfolioInput{MarketID: f.otc, Counterparties: cps,
		Lines: []trading.PortfolioLineInput{{InstrumentID: f.ins[0], Direction: "bid", Quantity: dec("1000")}}})
	if err != nil {
		t.Fatalf("CreatePortfolioRFQ(%d → %v) = %v", from, to, err)
	}
	return r.ID
}

// portfolio returns an open list: firm 0's to firm 1 (own), firm 1's
// inviting firm 0 (counterparty), firm 1's to firm 2 only (other).
func (f *fixture) portfolio(t *testing.T, obj string) string {
	t.Helper()
	switch obj {
	case ownObject:
		return f.newPortfolio(t, 0, 1)
	case cptyObject:
		return f.newPortfolio(t, 1, 0)
	case otherObject:
		return f.newPortfolio(t, 1, 2)
	}
	return missingID
}

// portfolioQuote returns the path of a live quote on a list: firm 1's on
// firm 0's list (own: firm 0 may accept it), or firm 2's on firm 1's list
// (other).
func (f *fixture) portfolioQuote(t *testing.T, obj string) string {
	t.Helper()
	var from, dealer int
	switch obj {
	case ownObject:
		from, dealer = 0, 1
	case otherObject:
		from, dealer = 1, 2
	default:
		return "/api/v1/participant/portfolio-rfq/" + missingID + "/quotes/" + missingID
	}
	id := f.newPortfolio(t, from, dealer)
	r, err := f.v.svc.QuotePortfolio(ctx, f.v.principal(trader(dealer)), id, trading.PortfolioQuoteInput{
		Lines: []trading.PortfolioQuoteLineInput{{LineID: "1", Price: dec("100.5")}}})
	if err != nil {
		t.Fatalf("QuotePortfolio(%d on %s) = %v", dealer, id, err)
	}
	return "/api/v1/participant/portfolio-rfq/" + id + "/quotes/" + r.Quotes[len(r.Quotes)-1].ID
}

// quote returns an open quote: on firm 0's RFQ (own: firm 0 may accept
// it), or on firm 1's RFQ by firm 2 (other).
func (f *fixture) quote(t *testing.T, obj string) string {
	t.Helper()
	switch obj {
	case ownObject:
		return f.newQuote(t, 1, f.newRFQ(t, 0, 1))
	case otherObject:
		return f.newQuote(t, 2, f.newRFQ(t, 1, 2))
	}
	return missingID
}

// newTrade trades an RFQ of requester with dealer.
func (f *fixture) newTrade(t *testing.T, requester, dealer int) string {
	t.Helper()
	tr, err := f.v.svc.AcceptQuote(ctx, f.v.principal(trader(requester)), f.newQuote(t, dealer, f.newRFQ(t, requester, dealer)), venue.Parties{})
	if err != nil {
		t.Fatalf("AcceptQuote = %v", err)
	}
	return tr.ID
}

// allocatedTrade is firm 0's trade with firm 0's side allocated.
func (f *fixture) allocatedTrade(t *testing.T) string {
	f.allocateOnce.Do(func() {
		acc := f.v.account(0)
		if _, err := f.v.svc.AllocateTrade(ctx, f.v.principal(trader(0)), f.trade(ownObject), []trading.AllocationInput{
			{AccountID: &acc, Quantity: dec("1000")}}); err != nil {
			t.Fatalf("AllocateTrade = %v", err)
		}
	})
	return f.trade(ownObject)
}

func (f *fixture) trade(obj string) string {
	if obj == missing {
		return missingID
	}
	return f.trades[obj]
}

func (f *fixture) indicative(t *testing.T, obj string) string {
	t.Helper()
	if obj == missing {
		return missingID
	}
	ip, err := f.v.svc.CreateIndicativePrice(ctx, f.v.principal(trader(firmOf[obj])), trading.IndicativeInput{
		AccountID: f.account(obj), InstrumentID: f.ins[0], BidPrice: dec("99"), AskPrice: dec("99.5")})
	if err != nil {
		t.Fatalf("CreateIndicativePrice(%s) = %v", obj, err)
	}
	return ip.ID
}

func (f *fixture) unique(prefix string) string { return fmt.Sprintf("%s %d", prefix, f.n.Add(1)) }

func (f *fixture) lei() string {
	prefix := fmt.Sprintf("529900TEST%08d", f.n.Add(1))
	return prefix + venue.LEICheckDigits(prefix)
}

func (f *fixture) instrumentBody() map[string]any {
	body := fmt.Sprintf("XS%09d", f.n.Add(1))
	isin := ""
	for d := '0'; d <= '9'; d++ {
		if venue.ValidISIN(body + string(d)) {
			isin = body + string(d)
		}
	}
	return map[string]any{"isin": isin, "name": "Test 3% 2031", "currency": "EUR", "coupon": "3",
		"coupon_frequency": "Annual", "day_count": "30E/360", "maturity": "2031-06-15", "interest_accrual_date": "2024-06-15",
		"min_piece": 1000, "min_increment": 1000, "par_amount": 1000, "market_ids": []string{f.markets[0].ID}}
}

func (f *fixture) participant(obj string) string {
	if obj == missing {
		return missingID
	}
	return f.v.participant(firmOf[obj])
}

func (f *fixture) account(obj string) string {
	if obj == missing {
		return missingID
	}
	return f.v.account(firmOf[obj])
}

func (f *fixture) user(obj string) string {
	if obj == missing {
		return missingID
	}
	return f.v.user(viewer(firmOf[obj]))
}

func (f *fixture) market(obj string) string {
	if obj == missing {
		return missingID
	}
	return f.markets[0].ID
}

func (f *fixture) instrument(obj string) string {
	if obj == missing {
		return missingID
	}
	return f.ins[0]
}

func (f *fixture) bucket(obj string) string {
	if obj == missing {
		return missingID
	}
	return f.buckets[obj]
}

// newBucket creates a bucket for a request that changes or deletes it.
func (f *fixture) newBucket(t *testing.T, obj string) string {
	t.Helper()
	switch obj {
	case missing:
		return missingID
	case publicObject:
		ids := f.ins[:1]
		name := f.unique("Public")
		b, err := f.v.svc.CreatePublicBucket(context.Background(), trading.System, trading.BucketInput{Name: &name, InstrumentIDs: &ids})
		if err != nil {
			t.Fatal(err)
		}
		return b.ID
	}
	return f.v.privateBucket(t, trader(firmOf[obj]), f.unique("Bucket"))
}

func (f *fixture) toggleProvider(obj string) string {
	if obj == missing {
		return missingID
	}
	return f.toggles[firmOf[obj]]
}

func (f *fixture) defaultProvider(obj string) string {
	if obj == missing {
		return missingID
	}
	return f.defaults[firmOf[obj]]
}

// newCredential issues a credential to revoke (never one the matrix's
// callers use).
func (f *fixture) newCredential(t *testing.T, obj string) string {
	t.Helper()
	if obj == missing {
		return "bv_missingmissingmi"
	}
	c, err := f.v.svc.IssueCredential(context.Background(), trading.System, f.user(obj))
	if err != nil {
		t.Fatal(err)
	}
	return c.ClientID
}

// TestAuthorizationMatrix sends every route as every caller for every
// object and asserts the exact status; the harness checks on every answer
// that no participant receives another firm's ids.
func TestAuthorizationMatrix(t *testing.T) {
	table := authzTable()
	checkTableCoversRoutes(t, table)
	checkTableRules(t, table)
	fresh(t, func(t *testing.T, v *env) {
		f := newFixture(t, v)
		for _, row := range table {
			objs := make([]string, 0, len(row.want))
			for obj := range row.want {
				objs = append(objs, obj)
			}
			sort.Strings(objs)
			t.Run(row.route, func(t *testing.T) {
				for _, obj := range objs {
					for i, w := range callers {
						path, body := row.req(t, f, obj, w)
						method := methodOf(row, obj)
						r := v.do(t, w, method, path, body, nil)
						if want := row.want[obj][i]; r.status != want {
							t.Errorf("%s %s (%s object) as %s: status %d, want %d\n%.300s", method, path, obj, w, r.status, want, r.body)
						}
					}
				}
			})
		}
	})
}

// checkTableCoversRoutes fails for a route of routes.go without a row, a
// row without a route, and a route the OpenAPI document lacks.
func checkTableCoversRoutes(t *testing.T, table []authzRow) {
	t.Helper()
	rows := map[string]bool{}
	for _, row := range table {
		if rows[row.route] {
			t.Errorf("route %s has two rows", row.route)
		}
		rows[row.route] = true
	}
	doc, err := document()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, rt := range routes(t) {
		key := strings.TrimSpace(rt.method + " " + rt.path)
		seen[key] = true
		if !rows[key] {
			t.Errorf("route %s has no row in the authorization matrix", key)
		}
		if rt.path == "/" {
			continue
		}
		item := doc.Paths.Value(documentedPath(rt.path))
		documented := item != nil && item.GetOperation(rt.method) != nil
		switch {
		case !documented && !undocumented[key]:
			t.Errorf("route %s is not in the OpenAPI document", key)
		case documented && undocumented[key]:
			t.Errorf("route %s is documented now: remove it from undocumented (harness_test.go)", key)
		}
	}
	for key := range rows {
		if !seen[key] {
			t.Errorf("matrix row %s matches no route in routes.go", key)
		}
	}
	// The roles the table lets through are the document's x-roles.
	compared := 0
	for _, row := range table {
		method, path, ok := strings.Cut(row.route, " ")
		if !ok {
			continue
		}
		item := doc.Paths.Value(documentedPath(path))
		if item == nil || item.GetOperation(method) == nil {
			continue
		}
		raw, ok := item.GetOperation(method).Extensions["x-roles"]
		if !ok {
			continue // a public operation
		}
		var documented, allowed []string
		if b, err := json.Marshal(raw); err != nil || json.Unmarshal(b, &documented) != nil {
			t.Errorf("%s: x-roles = %v, want a list of roles", row.route, raw)
		}
		compared++
		for col, w := range callers[:4] {
			for _, st := range row.want {
				if st[col] != http.StatusForbidden {
					allowed = append(allowed, string(w.role))
					break
				}
			}
		}
		sort.Strings(documented)
		sort.Strings(allowed)
		if strings.Join(documented, ",") != strings.Join(allowed, ",") {
			t.Errorf("%s: the matrix lets %v through, the document's x-roles are %v", row.route, allowed, documented)
		}
	}

	if compared < len(table)/2 {
		t.Errorf("compared x-roles of %d operations only", compared)
	}

	// And the other way round: every documented operation is served.
	served := map[string]bool{}
	for _, rt := range routes(t) {
		served[rt.method+" "+documentedPath(rt.path)] = true
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !served[method+" "+path] {
				t.Errorf("documented operation %s %s has no route", method, path)
			}
		}
	}
}

// checkTableRules keeps the table honest about docs/guide.md, "Conventions": 403 belongs to a
// role, not to an object, and another firm's record is never a
// participant's to act on.
func checkTableRules(t *testing.T, table []authzRow) {
	t.Helper()
	for _, row := range table {
		for col := 1; col <= 3; col++ { // the participant roles
			forbidden := 0
			for _, st := range row.want {
				if st[col] == http.StatusForbidden {
					forbidden++
				}
			}
			if forbidden != 0 && forbidden != len(row.want) {
				t.Errorf("%s: %s gets 403 for some objects only; 403 is for a role, another firm's object is 404", row.route, callers[col])
			}
			if st, ok := row.want[otherObject]; ok && st[col] < 300 {
				t.Errorf("%s: %s may act on a non-counterparty firm's record", row.route, callers[col])
			}
		}
		for obj, st := range row.want {
			if st[4] != http.StatusUnauthorized && !publicRoute(row.route) {
				t.Errorf("%s (%s): no token answers %d, want 401", row.route, obj, st[4])
			}
		}
	}
}

func publicRoute(r string) bool {
	return r == "/" || r == "POST /api/v1/auth/token" || !strings.Contains(r, "/api/v1/") ||
		strings.HasSuffix(r, "/openapi.json") || strings.HasSuffix(r, "/asyncapi.json") || strings.HasSuffix(r, "/fix/dictionary")
}

// routes parses routes.go, so a route added there without a matrix row
// fails the test.
func routes(t *testing.T) []route {
	t.Helper()
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?:m\.Handle|entry)\(("[^,]*"),`) // entry: order entry
	var out []route
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		pattern := strings.ReplaceAll(m[1], `"+v1+"`, "/api/v1")
		pattern = strings.Trim(pattern, `"`)
		method, path, ok := strings.Cut(pattern, " ")
		if !ok {
			method, path = "", pattern
		}
		out = append(out, route{method, path})
	}
	if len(out) < 40 {
		t.Fatalf("parsed %d routes from routes.go, want every route", len(out))
	}
	return out
}

// TestForeignIDCheck makes sure the harness's leak check catches what it
// is meant to catch, so a passing matrix means something.
func TestForeignIDCheck(t *testing.T) {
	t.Parallel()
	v := newEnv(t, store.SQLite, options{})
	pub := v.publicBucket(t)
	own := v.privateBucket(t, trader(0), "Mine")
	theirs := v.privateBucket(t, trader(1), "Theirs")
	req, _ := http.NewRequest("GET", v.srv.URL+"/api/v1/markets", nil)
	for _, tc := range []struct {
		id   string
		leak bool
	}{
		{v.participant(0), false},
		{v.participant(1), false}, // a counterparty's public record
		{v.participant(3), true},  // no relation
		{v.account(0), false},
		{v.account(1), true},
		{v.user(admin(0)), false},
		{v.user(viewer(2)), true},
		{v.creds.Operator.UserID, true},
		{v.userCred(trader(3)).ClientID, true},
		{v.userCred(trader(0)).ClientID, false},
		{v.creds.Operator.ClientID, true},
		{pub, false},
		{own, false},
		{theirs, true},
		{v.provider(t, 0), false},
		{v.provider(t, 2), true},
		{v.instruments(t)[0], false},
		{missingID, false},
	} {
		r := &response{req: req, status: 200, header: http.Header{}, body: []byte(`{"x":"` + tc.id + `"}`)}
		if got := len(v.foreignIDs(t, admin(0), r, nil)) > 0; got != tc.leak {
			t.Errorf("foreign(%s) = %v, want %v", tc.id, got, tc.leak)
		}
		if got := len(v.foreignIDs(t, admin(0), r, []byte(tc.id))) > 0; got {
			t.Errorf("foreign(%s) sent by the caller = true, want false", tc.id)
		}
	}
}
