package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadOnly runs every test that changes nothing visible on one demo
// venue per engine.
func TestReadOnly(t *testing.T) {
	shared(t, func(t *testing.T, v *env) {
		t.Run("participants", func(t *testing.T) { testParticipants(t, v) })
		t.Run("accounts", func(t *testing.T) { testAccounts(t, v) })
		t.Run("users", func(t *testing.T) { testUsers(t, v) })
		t.Run("markets", func(t *testing.T) { testMarkets(t, v) })
		t.Run("instruments", func(t *testing.T) { testInstruments(t, v) })
		t.Run("news", func(t *testing.T) { testNews(t, v) })
		t.Run("risk limits", func(t *testing.T) { testRiskLimits(t, v) })
		t.Run("buckets", func(t *testing.T) { testBucketReads(t, v) })
		t.Run("settlement providers", func(t *testing.T) { testProviderReads(t, v) })
		t.Run("pagination", func(t *testing.T) { testPagination(t, v) })
		t.Run("list parameters", func(t *testing.T) { testListParameters(t, v) })
		t.Run("unknown ids", func(t *testing.T) { testUnknownIDs(t, v) })
		t.Run("system", func(t *testing.T) { testSystem(t, v) })
		t.Run("body limit", func(t *testing.T) { testBodyLimit(t, v) })
		t.Run("token endpoint", func(t *testing.T) { testTokenEndpoint(t, v) })
		t.Run("bearer", func(t *testing.T) { testBearer(t, v) })
		t.Run("analytics", func(t *testing.T) { testAnalyticsWire(t, v) })
		t.Run("rate limit", func(t *testing.T) { testRateLimit(t, v) })
	})
}

// publicParticipantFields are the only fields a counterparty's record shows.
var publicParticipantFields = []string{"category_name", "country", "id", "lei", "name", "status", "type"}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func testParticipants(t *testing.T, v *env) {
	v.runAll(t, []call{
		{name: "participants_list_admin", as: admin(0), method: "GET", path: "/api/v1/participants", want: 200},
		{name: "participants_list_no_counterparty", as: viewer(3), method: "GET", path: "/api/v1/participants", want: 200},
		{name: "participants_list_operator", as: operator, method: "GET", path: "/api/v1/participants", want: 200},
		{name: "participants_get_own", as: trader(0), method: "GET", path: "/api/v1/participants/" + v.participant(0), want: 200},
		{name: "participants_get_counterparty", as: trader(0), method: "GET", path: "/api/v1/participants/" + v.participant(1), want: 200},
		{name: "participants_get_other_firm", as: trader(0), method: "GET", path: "/api/v1/participants/" + v.participant(3), want: 404},
		{name: "participants_get_operator", as: operator, method: "GET", path: "/api/v1/participants/" + v.participant(3), want: 200},
	})

	t.Run("index nests every collection", func(t *testing.T) {
		for i := range 4 {
			r := v.get(t, viewer(i), "/api/v1/participants", http.StatusOK)
			ps := r.array(t)
			if len(ps) != 1 || ps[0]["id"] != v.participant(i) {
				t.Fatalf("participants as %s = %v, want only its own firm", viewer(i), ids(ps))
			}
			p := ps[0]
			for _, k := range []string{"accounts", "users", "buckets", "risk_limits", "markets", "counterparties", "serviceaccounts"} {
				if _, ok := p[k].([]any); !ok {
					t.Errorf("participant %d: %s = %#v, want an array", i, k, p[k])
				}
			}
			if n := len(p["users"].([]any)); n != 3 {
				t.Errorf("participant %d has %d users, want 3", i, n)
			}
			if n := len(p["risk_limits"].([]any)); n != 4 {
				t.Errorf("participant %d has %d risk limits, want 4", i, n)
			}
			if n := len(p["markets"].([]any)); n != 4 {
				t.Errorf("participant %d has %d markets, want 4", i, n)
			}
			var got []string
			for _, c := range p["counterparties"].([]any) {
				c := c.(map[string]any)
				if diff := cmp.Diff(publicParticipantFields, keys(c)); diff != "" {
					t.Errorf("counterparty fields (-want +got):\n%s", diff)
				}
				got = append(got, c["id"].(string))
			}
			var want []string
			if i < 3 {
				for j := range 3 {
					if j != i {
						want = append(want, v.participant(j))
					}
				}
			}
			sort.Strings(got)
			sort.Strings(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("participant %d counterparties (-want +got):\n%s", i, diff)
			}
		}
	})

	t.Run("operator sees every participant", func(t *testing.T) {
		ps := v.get(t, operator, "/api/v1/participants", http.StatusOK).array(t)
		if len(ps) != 4 {
			t.Errorf("operator sees %d participants, want 4", len(ps))
		}
	})

	t.Run("counterparty record has public fields only", func(t *testing.T) {
		p := v.get(t, admin(1), "/api/v1/participants/"+v.participant(2), http.StatusOK).object(t)
		if diff := cmp.Diff(publicParticipantFields, keys(p)); diff != "" {
			t.Errorf("fields (-want +got):\n%s", diff)
		}
		own := v.get(t, admin(1), "/api/v1/participants/"+v.participant(1), http.StatusOK).object(t)
		for _, k := range []string{"address", "tax_number", "default_settlement_provider_id", "createdAt"} {
			if _, ok := own[k]; !ok {
				t.Errorf("own participant lacks %s", k)
			}
		}
		if _, ok := own["accounts"]; ok {
			t.Error("retrieved participant has nested accounts, want none")
		}
	})
}

func testAccounts(t *testing.T, v *env) {
	v.runAll(t, []call{
		{name: "accounts_list", as: viewer(0), method: "GET", path: "/api/v1/accounts", want: 200},
		{name: "accounts_get", as: viewer(0), method: "GET", path: "/api/v1/accounts/" + v.account(0), want: 200},
		{name: "accounts_get_other_firm", as: admin(0), method: "GET", path: "/api/v1/accounts/" + v.account(1), want: 404},
	})
	t.Run("scoped to the firm", func(t *testing.T) {
		for i := range 4 {
			got := ids(v.get(t, trader(i), "/api/v1/accounts", http.StatusOK).array(t))
			if diff := cmp.Diff(v.accountsListed(i), got); diff != "" {
				t.Errorf("accounts of %d (-want +got):\n%s", i, diff)
			}
		}
		if n := len(v.get(t, operator, "/api/v1/accounts", http.StatusOK).array(t)); n != 12 {
			t.Errorf("operator sees %d accounts, want the 4 firms' 3 each", n)
		}
		v.get(t, operator, "/api/v1/accounts/"+v.account(3), http.StatusOK)
	})
}

func testUsers(t *testing.T, v *env) {
	v.runAll(t, []call{
		{name: "users_list", as: viewer(0), method: "GET", path: "/api/v1/users", want: 200},
		{name: "users_get", as: viewer(0), method: "GET", path: "/api/v1/users/" + v.user(trader(0)), want: 200},
		{name: "users_get_other_firm", as: admin(0), method: "GET", path: "/api/v1/users/" + v.user(admin(1)), want: 404},
		{name: "users_get_operator_user", as: admin(0), method: "GET", path: "/api/v1/users/" + v.creds.Operator.UserID, want: 404},
	})
	t.Run("scoped to the firm", func(t *testing.T) {
		for i := range 4 {
			us := v.get(t, trader(i), "/api/v1/users", http.StatusOK).array(t)
			if len(us) != 3 {
				t.Errorf("participant %d sees %d users, want 3", i, len(us))
			}
			for _, u := range us {
				if u["participant_id"] != v.participant(i) {
					t.Errorf("participant %d sees user %v of %v", i, u["id"], u["participant_id"])
				}
			}
		}
		if n := len(v.get(t, operator, "/api/v1/users", http.StatusOK).array(t)); n != 13 {
			t.Errorf("operator sees %d users, want 13", n)
		}
		v.get(t, operator, "/api/v1/users/"+v.user(viewer(3)), http.StatusOK)
	})
}

func testMarkets(t *testing.T, v *env) {
	ms := v.markets(t)
	v.runAll(t, []call{
		{name: "markets_list", as: viewer(3), method: "GET", path: "/api/v1/markets", want: 200},
		{name: "markets_get", as: viewer(3), method: "GET", path: "/api/v1/markets/" + ms[0].ID, want: 200},
		{name: "markets_get_missing", as: viewer(3), method: "GET", path: "/api/v1/markets/" + missingID, want: 404},
	})
}

func testInstruments(t *testing.T, v *env) {
	ins := v.instruments(t)
	ms := v.markets(t)
	v.runAll(t, []call{
		{name: "instruments_list", as: viewer(0), method: "GET", path: "/api/v1/instruments", want: 200},
		{name: "instruments_get", as: viewer(0), method: "GET", path: "/api/v1/instruments/" + ins[0], want: 200},
		{name: "instruments_get_depth", as: trader(1), method: "GET", path: "/api/v1/instruments/" + ins[1] + "?market_depth=0", want: 200},
		{name: "instruments_get_depth_invalid", as: trader(1), method: "GET", path: "/api/v1/instruments/" + ins[1] + "?market_depth=deep", want: 400},
		{as: trader(1), method: "GET", path: "/api/v1/instruments/" + ins[1] + "?market_depth=-1", want: 400},
		{as: trader(1), method: "GET", path: "/api/v1/instruments/" + ins[1] + "?market_depth=1001", want: 400},
		{as: trader(1), method: "GET", path: "/api/v1/instruments/" + ins[1] + "?market_depth=5", want: 200},
		{name: "instruments_get_missing", as: trader(1), method: "GET", path: "/api/v1/instruments/" + missingID, want: 404},
	})

	t.Run("amounts are strings in lists and numbers alone", func(t *testing.T) {
		list := v.get(t, viewer(0), "/api/v1/instruments", http.StatusOK).array(t)
		if len(list) < 10 {
			t.Fatalf("%d instruments, want at least 10", len(list))
		}
		for _, in := range list {
			for _, k := range []string{"min_piece", "min_increment", "par_amount"} {
				if _, ok := in[k].(string); !ok {
					t.Errorf("list %s %s = %#v, want a JSON string", in["isin"], k, in[k])
				}
			}
			if _, ok := in["static_data"]; ok {
				t.Errorf("list item %s has static_data", in["isin"])
			}
		}
		d := v.get(t, viewer(0), "/api/v1/instruments/"+ins[0], http.StatusOK).object(t)
		for _, k := range []string{"min_piece", "min_increment", "par_amount"} {
			if _, ok := d[k].(float64); !ok {
				t.Errorf("detail %s = %#v, want a JSON number", k, d[k])
			}
		}
		for _, k := range []string{"static_data", "markets", "buckets", "instrument_limits"} {
			if d[k] == nil {
				t.Errorf("detail lacks %s", k)
			}
		}
		if n := len(d["markets"].([]any)); n != 4 { // the three demo books and the one with trading hours
			t.Errorf("detail lists %d markets, want 4", n)
		}
		if n := len(d["buckets"].([]any)); n != 1 {
			t.Errorf("detail lists %d buckets, want the public one", n)
		}
	})

	t.Run("filters", func(t *testing.T) {
		all := v.get(t, viewer(0), "/api/v1/instruments", http.StatusOK).array(t)
		isin := all[0]["isin"].(string)
		got := v.get(t, viewer(0), "/api/v1/instruments?isin="+isin, http.StatusOK).array(t)
		if len(got) != 1 || got[0]["isin"] != isin {
			t.Errorf("isin filter = %v, want %s only", ids(got), isin)
		}
		if got := v.get(t, viewer(0), "/api/v1/instruments?currency=EUR&market_id="+ms[1].ID, http.StatusOK).array(t); len(got) != len(all) {
			t.Errorf("EUR on %s: %d instruments, want %d", ms[1].Name, len(got), len(all))
		}
		if got := v.get(t, viewer(0), "/api/v1/instruments?currency=USD", http.StatusOK).array(t); len(got) != 0 {
			t.Errorf("USD instruments = %v, want none", ids(got))
		}
	})
}

func testNews(t *testing.T, v *env) {
	v.runAll(t, []call{
		{name: "news_list", as: viewer(3), method: "GET", path: "/api/v1/news", want: 200},
		{name: "news_list_page", as: viewer(3), method: "GET", path: "/api/v1/news?limit=1", want: 200},
	})
	if n := len(v.get(t, operator, "/api/v1/news", http.StatusOK).array(t)); n < 3 {
		t.Errorf("%d news items, want at least 3", n)
	}
}

func testRiskLimits(t *testing.T, v *env) {
	v.runAll(t, []call{
		{name: "risk_limits_list", as: trader(2), method: "GET", path: "/api/v1/participant/risk-limits", want: 200},
		{name: "risk_limits_operator", as: operator, method: "GET", path: "/api/v1/participant/risk-limits", want: 403},
	})
	ls := v.get(t, viewer(0), "/api/v1/participant/risk-limits", http.StatusOK).array(t)
	var names []string
	for _, l := range ls {
		names = append(names, l["name"].(string))
		if _, ok := l["value"].(float64); !ok {
			t.Errorf("%s value = %#v, want a number", l["name"], l["value"])
		}
		if l["used"] != float64(0) {
			t.Errorf("%s used = %#v, want 0 with no open offers", l["name"], l["used"])
		}
	}
	sort.Strings(names)
	if diff := cmp.Diff([]string{"ALL_OFFER_SUM", "ALL_OFFER_USER_SUM", "MAX_OFFER", "MAX_OFFER_VALUE"}, names); diff != "" {
		t.Errorf("risk limits (-want +got):\n%s", diff)
	}
}

func testBucketReads(t *testing.T, v *env) {
	pub := v.publicBucket(t)
	v.runAll(t, []call{
		{name: "buckets_list", as: viewer(1), method: "GET", path: "/api/v1/participant/buckets", want: 200},
		{name: "buckets_get_public", as: viewer(1), method: "GET", path: "/api/v1/participant/buckets/" + pub, want: 200},
		{name: "buckets_get_missing", as: viewer(1), method: "GET", path: "/api/v1/participant/buckets/" + missingID, want: 404},
		{as: operator, method: "GET", path: "/api/v1/participant/buckets", want: 200},
		{as: operator, method: "GET", path: "/api/v1/participant/buckets/" + pub, want: 200},
	})
	b := v.get(t, viewer(1), "/api/v1/participant/buckets/"+pub, http.StatusOK).object(t)
	if b["type"] != "public" || b["participant_id"] != nil {
		t.Errorf("public bucket type = %v, participant_id = %v, want public and null", b["type"], b["participant_id"])
	}
	for _, in := range b["instruments"].([]any) {
		in := in.(map[string]any)
		if _, ok := in["min_piece"].(string); !ok || in["isin"] == nil || in["instrument_limits"] == nil {
			t.Errorf("bucket instrument %v is not a full list record", in["id"])
		}
	}
}

func testProviderReads(t *testing.T, v *env) {
	v.runAll(t, []call{
		{name: "settlement_providers_list", as: viewer(2), method: "GET", path: "/api/v1/settlement-providers", want: 200},
	})
	for i := range 4 {
		sps := v.get(t, trader(i), "/api/v1/settlement-providers", http.StatusOK).array(t)
		if len(sps) != 1 || sps[0]["participant_id"] != v.participant(i) || sps[0]["status"] != "default" {
			t.Errorf("providers of %d = %v, want its default provider only", i, sps)
		}
	}
	if n := len(v.get(t, operator, "/api/v1/settlement-providers", http.StatusOK).array(t)); n != 4 {
		t.Errorf("operator sees %d providers, want 4", n)
	}
}

// testPagination walks every list with a small limit and checks the pages
// add up to the whole list, in order.
func testPagination(t *testing.T, v *env) {
	for _, tc := range []struct {
		as    who
		path  string
		limit int
		want  int // items at least
	}{
		{operator, "/api/v1/participants", 1, 4},
		{operator, "/api/v1/accounts", 3, 4},
		{operator, "/api/v1/users", 5, 13},
		{admin(0), "/api/v1/users", 2, 3},
		{viewer(0), "/api/v1/markets", 2, 3},
		{viewer(0), "/api/v1/instruments", 3, 10},
		{viewer(0), "/api/v1/news", 1, 3},
		{operator, "/api/v1/participant/buckets", 1, 1},
		{operator, "/api/v1/settlement-providers", 3, 4},
	} {
		t.Run(fmt.Sprintf("%s limit %d as %s", tc.path, tc.limit, tc.as), func(t *testing.T) {
			all := v.get(t, tc.as, tc.path, http.StatusOK)
			if link := all.header.Get("Link"); link != "" {
				t.Errorf("full list has Link %q", link)
			}
			want := ids(all.array(t))
			if len(want) < tc.want {
				t.Fatalf("%d items, want at least %d", len(want), tc.want)
			}
			got, pages := v.walk(t, tc.as, fmt.Sprintf("%s?limit=%d", tc.path, tc.limit), tc.limit)
			if diff := cmp.Diff(want, ids(got)); diff != "" {
				t.Errorf("pages differ from the list (-want +got):\n%s", diff)
			}
			if wantPages := (len(want) + tc.limit - 1) / tc.limit; pages != wantPages {
				t.Errorf("%d pages, want %d", pages, wantPages)
			}
			if slices.Contains(ids(got), "") {
				t.Error("an item has no id")
			}
		})
	}
	t.Run("first page golden", func(t *testing.T) {
		v.run(t, call{name: "markets_list_page", as: viewer(0), method: "GET", path: "/api/v1/markets?limit=2", want: 200})
	})
	t.Run("filters stay in the next link", func(t *testing.T) {
		r := v.get(t, viewer(0), "/api/v1/instruments?currency=EUR&limit=4", http.StatusOK)
		if link := r.header.Get("Link"); !regexpMatch(`currency=EUR`, link) {
			t.Errorf("Link = %q, want the currency filter kept", link)
		}
	})
	t.Run("from and to", func(t *testing.T) {
		if n := len(v.get(t, viewer(0), "/api/v1/markets?from=2026-11-20&to=2026-11-21T00:00:00Z", http.StatusOK).array(t)); n != 4 {
			t.Errorf("markets created on the pinned day: %d, want 4", n)
		}
		if n := len(v.get(t, viewer(0), "/api/v1/markets?from=2026-11-20%2014:48:01", http.StatusOK).array(t)); n != 0 {
			t.Errorf("markets created after the pinned instant: %d, want 0", n)
		}
	})
}

func testListParameters(t *testing.T, v *env) {
	v.runAll(t, []call{
		{name: "list_limit_zero", as: viewer(0), method: "GET", path: "/api/v1/markets?limit=0", want: 400},
		{name: "list_invalid_parameters", as: viewer(0), method: "GET", path: "/api/v1/accounts?limit=many&cursor=%25%25&from=yesterday&to=2026-13-45", want: 400},
		{as: viewer(0), method: "GET", path: "/api/v1/users?limit=1001", want: 400},
		{as: viewer(0), method: "GET", path: "/api/v1/news?limit=-1", want: 400},
		{as: viewer(0), method: "GET", path: "/api/v1/participants?cursor=***", want: 400},
		{as: viewer(0), method: "GET", path: "/api/v1/participant/buckets?from=20261120", want: 400},
		{as: viewer(0), method: "GET", path: "/api/v1/settlement-providers?limit=1.5", want: 400},
		{as: viewer(0), method: "GET", path: "/api/v1/instruments?to=noon", want: 400},
		{as: viewer(0), method: "GET", path: "/api/v1/markets?limit=1000", want: 200},
		{as: viewer(0), method: "GET", path: "/api/v1/markets?unknown=1", want: 200},
	})
	t.Run("details name every bad parameter", func(t *testing.T) {
		r := v.get(t, viewer(0), "/api/v1/accounts?limit=many&cursor=%25%25&from=yesterday&to=2026-13-45", http.StatusBadRequest)
		var e struct {
			Message string `json:"message"`
			Details []struct {
				Field string `json:"field"`
			} `json:"details"`
		}
		r.decode(t, &e)
		var fields []string
		for _, d := range e.Details {
			fields = append(fields, d.Field)
		}
		if diff := cmp.Diff([]string{"limit", "cursor", "from", "to"}, fields); diff != "" || e.Message != "Validation Error" {
			t.Errorf("message %q, details (-want +got):\n%s", e.Message, diff)
		}
	})
}

// testUnknownIDs: an unknown or malformed id in any path answers 404.
func testUnknownIDs(t *testing.T, v *env) {
	for _, base := range []string{"/api/v1/participants/", "/api/v1/accounts/", "/api/v1/users/", "/api/v1/markets/",
		"/api/v1/instruments/", "/api/v1/participant/buckets/"} {
		for _, id := range []string{missingID, "not-an-id", "0192F1A48C3E7A519B2D3F4E5A6B7C8D", "%27%20OR%201=1--"} {
			for _, w := range []who{operator, viewer(0)} {
				v.get(t, w, base+id, http.StatusNotFound)
			}
		}
	}
	v.run(t, call{name: "get_malformed_id", as: viewer(0), method: "GET", path: "/api/v1/accounts/not-an-id", want: 404})
}
