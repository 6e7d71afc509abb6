package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// This file tests what the OpenAPI document promises about the
// reference-data lists beyond paging: every declared filter, the records
// nested in accounts and users, paged credentials, and validation answers
// that name every bad field.

// issueFields returns the fields named in a validation error's details, in
// order.
func issueFields(t *testing.T, r *response) []string {
	t.Helper()
	var e struct {
		Details []struct {
			Field string `json:"field"`
		} `json:"details"`
	}
	r.decode(t, &e)
	var out []string
	for _, d := range e.Details {
		out = append(out, d.Field)
	}
	return out
}

// wantIDs compares the ids of a list answer with want, in any order.
func wantIDs(t *testing.T, v *env, w who, path string, want ...string) {
	t.Helper()
	got := ids(v.get(t, w, path, http.StatusOK).array(t))
	sort.Strings(got)
	want = slices.Clone(want)
	sort.Strings(want)
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("GET %s as %s (-want +got):\n%s", path, w, diff)
	}
}

func TestListFilters(t *testing.T) {
	shared(t, func(t *testing.T, v *env) {
		t.Run("accounts", func(t *testing.T) {
			wantIDs(t, v, operator, "/api/v1/accounts?participant_id="+v.participant(1), v.accountsListed(1)...)
			wantIDs(t, v, viewer(0), "/api/v1/accounts?participant_id="+v.participant(0), v.accountsListed(0)...)
			wantIDs(t, v, operator, "/api/v1/accounts?status=active&type=agent",
				v.account(0), v.account(1), v.account(2), v.account(3))
			wantIDs(t, v, operator, "/api/v1/accounts?status=closed")
			wantIDs(t, v, viewer(2), "/api/v1/accounts?type=principal", v.creds.Participants[2].AccountIDs[1:]...)
			wantIDs(t, v, viewer(2), "/api/v1/accounts?type=omnibus")
			v.runAll(t, []call{
				{name: "filters_participant_other_firm", as: viewer(0), method: "GET", path: "/api/v1/accounts?participant_id=" + v.participant(1), want: 404},
				{as: operator, method: "GET", path: "/api/v1/accounts?participant_id=" + missingID, want: 404},
				{as: viewer(0), method: "GET", path: "/api/v1/accounts?participant_id=" + missingID, want: 404},
			})
		})

		t.Run("users", func(t *testing.T) {
			wantIDs(t, v, operator, "/api/v1/users?participant_id="+v.participant(2)+"&role=PARTICIPANT_TRADER", v.user(trader(2)))
			wantIDs(t, v, operator, "/api/v1/users?role=VENUE_OPERATOR", v.creds.Operator.UserID)
			wantIDs(t, v, admin(3), "/api/v1/users?role=PARTICIPANT_VIEWER&status=active", v.user(viewer(3)))
			wantIDs(t, v, admin(3), "/api/v1/users?status=disabled")
			wantIDs(t, v, viewer(1), "/api/v1/users?role=VENUE_OPERATOR")
			v.get(t, trader(1), "/api/v1/users?participant_id="+v.participant(2), http.StatusNotFound)
		})

		t.Run("markets", func(t *testing.T) {
			var otc, continuous, all []string
			for _, m := range v.markets(t) {
				all = append(all, m.ID)
				if m.FacilityType == "OTC" {
					otc = append(otc, m.ID)
				} else {
					continuous = append(continuous, m.ID)
				}
			}
			if len(otc) != 1 || len(continuous) != 3 {
				t.Fatalf("demo markets: %d OTC, %d continuous; want 1 and 3", len(otc), len(continuous))
			}
			wantIDs(t, v, viewer(0), "/api/v1/markets?facility_type=OTC", otc...)
			wantIDs(t, v, viewer(0), "/api/v1/markets?facility_type=continues-matching", continuous...)
			wantIDs(t, v, viewer(0), "/api/v1/markets?is_enabled=true", all...)
			wantIDs(t, v, viewer(0), "/api/v1/markets?is_enabled=false")
			wantIDs(t, v, viewer(0), "/api/v1/markets?facility_type=OTC&is_enabled=true", otc...)
		})

		t.Run("buckets", func(t *testing.T) {
			pub := v.publicBucket(t)
			wantIDs(t, v, viewer(1), "/api/v1/participant/buckets?type=public", pub)
			wantIDs(t, v, viewer(1), "/api/v1/participant/buckets?type=private")
			wantIDs(t, v, viewer(1), "/api/v1/participant/buckets?is_enabled=true", pub)
			wantIDs(t, v, viewer(1), "/api/v1/participant/buckets?type=public&is_enabled=false")
		})

		t.Run("instruments of a bucket", func(t *testing.T) {
			pub := v.publicBucket(t)
			var want []string
			for _, in := range toObjects(v.get(t, viewer(2), "/api/v1/participant/buckets/"+pub, http.StatusOK).object(t)["instruments"]) {
				want = append(want, in["id"].(string))
			}
			if len(want) == 0 || len(want) == len(v.instruments(t)) {
				t.Fatalf("the public bucket holds %d of %d instruments; the filter would not show", len(want), len(v.instruments(t)))
			}
			wantIDs(t, v, viewer(2), "/api/v1/instruments?bucket_id="+pub, want...)
			wantIDs(t, v, viewer(2), "/api/v1/instruments?bucket_id="+pub+"&currency=USD")
			v.run(t, call{name: "filters_bucket_missing", as: viewer(2), method: "GET", path: "/api/v1/instruments?bucket_id=" + missingID, want: 404})
		})

		t.Run("settlement providers", func(t *testing.T) {
			p2 := v.provider(t, 2)
			wantIDs(t, v, operator, "/api/v1/settlement-providers?participant_id="+v.participant(2), p2)
			wantIDs(t, v, viewer(2), "/api/v1/settlement-providers?account_id="+v.account(2), p2)
			wantIDs(t, v, viewer(2), "/api/v1/settlement-providers?enabled=true", p2)
			wantIDs(t, v, viewer(2), "/api/v1/settlement-providers?enabled=false")
			wantIDs(t, v, operator, "/api/v1/settlement-providers?participant_id="+v.participant(2)+"&account_id="+v.account(1))
			v.runAll(t, []call{
				{name: "filters_account_other_firm", as: viewer(2), method: "GET", path: "/api/v1/settlement-providers?account_id=" + v.account(1), want: 404},
				{as: viewer(2), method: "GET", path: "/api/v1/settlement-providers?participant_id=" + v.participant(1), want: 404},
				{as: operator, method: "GET", path: "/api/v1/settlement-providers?account_id=" + missingID, want: 404},
			})
		})

		t.Run("the next link keeps the filters", func(t *testing.T) {
			r := v.get(t, operator, "/api/v1/users?participant_id="+v.participant(0)+"&status=active&limit=1", http.StatusOK)
			link := r.header.Get("Link")
			for _, want := range []string{"participant_id=" + v.participant(0), "status=active"} {
				if !regexpMatch(want, link) {
					t.Errorf("Link = %q, want %s kept", link, want)
				}
			}
			items, _ := v.walk(t, operator, "/api/v1/users?participant_id="+v.participant(0)+"&status=active&limit=1", 1)
			if len(items) != 3 {
				t.Errorf("walking firm 0's active users: %d, want 3", len(items))
			}
		})

		t.Run("bad values name every parameter", func(t *testing.T) {
			for _, tc := range []struct {
				name, path string
				fields     []string
			}{
				{"filters_invalid", "/api/v1/accounts?limit=0&participant_id=nope&status=frozen&type=savings",
					[]string{"limit", "participant_id", "status", "type"}},
				{"", "/api/v1/users?participant_id=" + url.QueryEscape("' OR 1=1") + "&role=participant_admin&status=gone",
					[]string{"participant_id", "role", "status"}},
				{"", "/api/v1/markets?facility_type=otc&is_enabled=yes", []string{"facility_type", "is_enabled"}},
				{"", "/api/v1/participant/buckets?type=shared&is_enabled=1&cursor=%25", []string{"cursor", "type", "is_enabled"}},
				{"", "/api/v1/instruments?bucket_id=nope&to=noon", []string{"to", "bucket_id"}},
				{"", "/api/v1/settlement-providers?participant_id=x&account_id=y&enabled=TRUE",
					[]string{"participant_id", "account_id", "enabled"}},
			} {
				r := v.run(t, call{name: tc.name, as: viewer(0), method: "GET", path: tc.path, want: http.StatusBadRequest})
				if diff := cmp.Diff(tc.fields, issueFields(t, r)); diff != "" {
					t.Errorf("GET %s details (-want +got):\n%s", tc.path, diff)
				}
			}
		})
	})
}

// TestNestedRecords: an account or user that is the answer itself carries
// its participant (and a user its participant's accounts); nested, it does
// not.
func TestNestedRecords(t *testing.T) {
	shared(t, func(t *testing.T, v *env) {
		t.Run("account", func(t *testing.T) {
			a := v.get(t, viewer(0), "/api/v1/accounts/"+v.account(0), http.StatusOK).object(t)
			p, _ := a["participant"].(map[string]any)
			if p == nil || p["id"] != v.participant(0) || p["address"] == nil || p["tax_number"] == nil {
				t.Errorf("account participant = %v, want firm 0's full record", a["participant"])
			}
			for _, a := range v.get(t, operator, "/api/v1/accounts", http.StatusOK).array(t) {
				p, _ := a["participant"].(map[string]any)
				if p == nil || p["id"] != a["participant_id"] {
					t.Errorf("listed account %v: participant %v, want its own", a["id"], a["participant"])
				}
			}
		})

		t.Run("user", func(t *testing.T) {
			u := v.get(t, viewer(0), "/api/v1/users/"+v.user(trader(0)), http.StatusOK).object(t)
			if p, _ := u["participant"].(map[string]any); p == nil || p["id"] != v.participant(0) || p["lei"] == nil {
				t.Errorf("user participant = %v, want firm 0's full record", u["participant"])
			}
			accounts := toObjects(u["accounts"])
			if diff := cmp.Diff(v.accountsListed(0), ids(accounts)); diff != "" {
				t.Errorf("user accounts (-want +got):\n%s", diff)
			}
			for _, a := range accounts {
				if a["participant"] != nil {
					t.Errorf("account nested in a user has participant %v, want null", a["participant"])
				}
			}
			for _, u := range v.get(t, operator, "/api/v1/users", http.StatusOK).array(t) {
				p, _ := u["participant"].(map[string]any)
				switch {
				case u["role"] == "VENUE_OPERATOR":
					if u["participant"] != nil || len(toObjects(u["accounts"])) != 0 {
						t.Errorf("operator user: participant %v, accounts %v; want null and none", u["participant"], u["accounts"])
					}
				case p == nil || p["id"] != u["participant_id"] || len(toObjects(u["accounts"])) != 3:
					t.Errorf("listed user %v: participant %v, accounts %v; want its firm and the firm's 3 accounts", u["id"], u["participant"], u["accounts"])
				}
			}
		})

		t.Run("nested in the participants index", func(t *testing.T) {
			p := v.get(t, admin(1), "/api/v1/participants", http.StatusOK).array(t)[0]
			for _, a := range toObjects(p["accounts"]) {
				if a["participant"] != nil {
					t.Errorf("nested account participant = %v, want null", a["participant"])
				}
			}
			for _, u := range toObjects(p["users"]) {
				if u["participant"] != nil || len(toObjects(u["accounts"])) != 0 {
					t.Errorf("nested user: participant %v, accounts %v; want null and none", u["participant"], u["accounts"])
				}
			}
		})
	})
}

// TestCredentialPages pages a user's credentials, whose client ids are
// random, newest first.
func TestCredentialPages(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		uid := v.user(viewer(1))
		v.clock.Advance(time.Minute) // after the demo's credential
		for range 4 {
			if _, err := v.svc.IssueCredential(context.Background(), trading.System, uid); err != nil {
				t.Fatal(err)
			}
		}
		path := "/api/v1/admin/users/" + uid + "/credentials"
		all := v.get(t, admin(1), path, http.StatusOK).array(t)
		if len(all) != 5 {
			t.Fatalf("%d credentials, want the demo's and 4 more", len(all))
		}
		var want []string
		for _, c := range all {
			want = append(want, c["client_id"].(string))
		}
		if want[len(want)-1] != v.userCred(viewer(1)).ClientID {
			t.Errorf("oldest credential = %s, want the demo's %s last", want[len(want)-1], v.userCred(viewer(1)).ClientID)
		}
		for _, limit := range []int{1, 2, 4} {
			pages, n := v.walk(t, admin(1), fmt.Sprintf("%s?limit=%d", path, limit), limit)
			var got []string
			for _, c := range pages {
				got = append(got, c["client_id"].(string))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("limit %d: pages differ from the list (-want +got):\n%s", limit, diff)
			}
			if wantPages := (len(want) + limit - 1) / limit; n != wantPages {
				t.Errorf("limit %d: %d pages, want %d", limit, n, wantPages)
			}
		}
		v.run(t, call{name: "admin_credentials_list_page", as: operator, method: "GET", path: path + "?limit=2", want: 200})
		if n := len(v.get(t, admin(1), path+"?from=2026-11-20%2014:48:30", http.StatusOK).array(t)); n != 4 {
			t.Errorf("credentials created after the demo's: %d, want 4", n)
		}
	})
}

// TestRiskLimitsNotPaged: the four limits are one fixed list; paging
// parameters change nothing.
func TestRiskLimitsNotPaged(t *testing.T) {
	shared(t, func(t *testing.T, v *env) {
		r := v.get(t, trader(0), "/api/v1/participant/risk-limits?limit=1", http.StatusOK)
		if n := len(r.array(t)); n != 4 || r.header.Get("Link") != "" {
			t.Errorf("risk limits with limit=1: %d items, Link %q; want all 4 and no Link", n, r.header.Get("Link"))
		}
	})
}

// TestValidationNamesEveryField sends create and update bodies with several
// bad fields, including one found only while decoding (an amount that is not
// a decimal) or only in the database (an unknown instrument or market), and
// expects one answer naming all of them.
func TestValidationNamesEveryField(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		bucket := v.privateBucket(t, admin(0), "Watchlist")
		limits := "/api/v1/admin/participants/" + v.participant(0) + "/risk-limits/"
		for _, tc := range []struct {
			name         string
			as           who
			method, path string
			body         any
			fields       []string
		}{
			{"admin_participants_wrong_types", operator, "POST", "/api/v1/admin/participants",
				raw(`{"name": true, "lei": "529900T8BM49AURSDO55", "country": 276, "city": ["Bonn"]}`),
				[]string{"name", "city", "country"}},
			{"", trader(0), "POST", "/api/v1/participant/buckets", raw(`{"name": 5, "instruments": [{"id": 7}]}`),
				[]string{"name", "instruments.id"}},
			{"admin_counterparties_all_issues", operator, "PUT", "/api/v1/admin/counterparties",
				map[string]any{"participant_id": "nope", "counterparty_id": v.participant(1)},
				[]string{"participant_id", "enabled"}},
			{"admin_risk_limits_all_issues", operator, "PUT", limits + "MAX_FUN", map[string]any{"value": "lots"},
				[]string{"value", "name"}},
			{"", operator, "PUT", limits + "MAX_FUN", map[string]any{}, []string{"name", "value"}},
			{"", operator, "PUT", limits + "MAX_FUN", map[string]any{"value": -1}, []string{"name", "value"}},
			{"admin_instruments_all_issues", operator, "POST", "/api/v1/admin/instruments",
				map[string]any{"name": "ACME 2031", "isin": "XS0000000000", "currency": "EUR", "min_piece": "lots",
					"min_increment": 1000, "par_amount": "1000", "market_ids": []string{missingID}},
				[]string{"min_piece", "isin", "coupon", "maturity", "market_ids[0]"}},
			{"", operator, "PUT", "/api/v1/admin/instruments/" + v.instruments(t)[0],
				map[string]any{"entity": map[string]any{"par_amount": "x", "precision": 9, "market_ids": []string{missingID, "nope"}}},
				[]string{"par_amount", "precision", "market_ids[1]", "market_ids[0]"}},
			{"", trader(0), "POST", "/api/v1/participant/buckets",
				map[string]any{"name": " ", "instruments": []map[string]any{{"id": missingID}, {"id": ""}}},
				[]string{"name", "instruments[1].id", "instruments[0].id"}},
			{"", admin(0), "PUT", "/api/v1/participant/buckets/" + bucket,
				map[string]any{"entity": map[string]any{"name": "", "instruments": []map[string]any{{"id": missingID}}}},
				[]string{"name", "instruments[0].id"}},
		} {
			r := v.run(t, call{name: tc.name, as: tc.as, method: tc.method, path: tc.path, body: tc.body, want: http.StatusBadRequest})
			got := issueFields(t, r)
			for _, f := range tc.fields {
				if !slices.Contains(got, f) {
					t.Errorf("%s %s: details %v lack %s", tc.method, tc.path, got, f)
				}
			}
		}
		// Nothing changed on the way.
		if n := len(v.get(t, operator, "/api/v1/instruments?isin=XS0000000000", http.StatusOK).array(t)); n != 0 {
			t.Errorf("a rejected instrument was created")
		}
	})
}
