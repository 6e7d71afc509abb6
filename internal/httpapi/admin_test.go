package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestAdminParticipants covers onboarding participants and accounts and
// setting counterparty relations and risk limits.
func TestAdminParticipants(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		prefix := "5299009ORDNXS7P4K2"
		lei := prefix + venue.LEICheckDigits(prefix)
		created := v.run(t, call{name: "admin_participants_create", as: operator, method: "POST", path: "/api/v1/admin/participants",
			body: map[string]any{"name": "Nordic Fixed Income AB", "lei": lei, "country": "SE", "city": "Stockholm",
				"category_name": "wholesale", "id": missingID, "default_settlement_provider_id": missingID,
				"createdAt": "2020-01-01 00:00:00", "accounts": []any{}, "unknown": 1}, want: 200}).object(t)
		pid := created["id"].(string)
		if pid == missingID || created["default_settlement_provider_id"] != nil || created["status"] != "active" ||
			created["kyc_status"] != "successful" || created["type"] != "legal_entity" {
			t.Errorf("created participant = %v", created)
		}
		v.runAll(t, []call{
			{name: "admin_participants_duplicate", as: operator, method: "POST", path: "/api/v1/admin/participants",
				body: map[string]any{"name": "Copy", "lei": lei, "country": "SE"}, want: 409},
			{name: "admin_participants_invalid", as: operator, method: "POST", path: "/api/v1/admin/participants",
				body: map[string]any{"name": "", "lei": "529900T8BM49AURSDO56", "country": "Sweden", "status": "gone"}, want: 400},
			{as: operator, method: "POST", path: "/api/v1/admin/participants", body: raw(`{"name": true}`), want: 400},
			{as: operator, method: "POST", path: "/api/v1/admin/participants", body: raw(`{}`), want: 400},
			{name: "admin_participants_update", as: operator, method: "PUT", path: "/api/v1/admin/participants/" + pid,
				body: map[string]any{"entity": map[string]any{"city": "Göteborg", "status": "suspended", "id": missingID, "createdAt": "2020-01-01"}}, want: 200},
			{as: operator, method: "PUT", path: "/api/v1/admin/participants/" + missingID, body: map[string]any{"entity": map[string]any{"city": "x"}}, want: 404},
			{as: operator, method: "PUT", path: "/api/v1/admin/participants/" + pid, body: map[string]any{"city": "x"}, want: 400},
			{as: operator, method: "PUT", path: "/api/v1/admin/participants/" + pid, body: map[string]any{"entity": map[string]any{"lei": v.creds.Participants[0].LEI}}, want: 409},
			{as: admin(0), method: "PUT", path: "/api/v1/admin/participants/" + v.participant(0), body: map[string]any{"entity": map[string]any{"city": "x"}}, want: 403},

			{name: "admin_accounts_create", as: operator, method: "POST", path: "/api/v1/admin/accounts",
				body: map[string]any{"participant_id": pid, "number": "NFI-0001", "type": "principal", "id": missingID, "status": "closed"}, want: 200},
			{as: operator, method: "POST", path: "/api/v1/admin/accounts", body: map[string]any{"participant_id": pid, "number": "NFI-0002", "type": "omnibus"}, want: 200},
			{as: operator, method: "POST", path: "/api/v1/admin/accounts", body: map[string]any{"participant_id": pid, "number": "NFI-0003"}, want: 200},
			{name: "admin_accounts_duplicate", as: operator, method: "POST", path: "/api/v1/admin/accounts",
				body: map[string]any{"participant_id": pid, "number": "NFI-0001"}, want: 409},
			{name: "admin_accounts_invalid", as: operator, method: "POST", path: "/api/v1/admin/accounts",
				body: map[string]any{"participant_id": "nope", "number": "", "type": "savings"}, want: 400},
			{as: operator, method: "POST", path: "/api/v1/admin/accounts", body: map[string]any{"participant_id": missingID, "number": "X-1"}, want: 404},

			{name: "admin_counterparties_enable", as: operator, method: "PUT", path: "/api/v1/admin/counterparties",
				body: map[string]any{"participant_id": v.participant(0), "counterparty_id": v.participant(3), "enabled": true}, want: 200},
			{as: admin(0), method: "GET", path: "/api/v1/participants/" + v.participant(3), want: 200},
			{as: admin(3), method: "GET", path: "/api/v1/participants/" + v.participant(0), want: 200}, // symmetric
			{as: operator, method: "PUT", path: "/api/v1/admin/counterparties",
				body: map[string]any{"participant_id": v.participant(3), "counterparty_id": v.participant(0), "enabled": false}, want: 200},
			{as: admin(0), method: "GET", path: "/api/v1/participants/" + v.participant(3), want: 404},
			{name: "admin_counterparties_invalid", as: operator, method: "PUT", path: "/api/v1/admin/counterparties",
				body: map[string]any{"participant_id": v.participant(0), "counterparty_id": v.participant(0), "enabled": true}, want: 400},
			{name: "admin_counterparties_no_enabled", as: operator, method: "PUT", path: "/api/v1/admin/counterparties",
				body: map[string]any{"participant_id": v.participant(0), "counterparty_id": v.participant(3)}, want: 400},
			{as: operator, method: "PUT", path: "/api/v1/admin/counterparties",
				body: map[string]any{"participant_id": v.participant(0), "counterparty_id": missingID, "enabled": true}, want: 404},
			{as: operator, method: "PUT", path: "/api/v1/admin/counterparties", body: raw(`{"participant_id": 1, "enabled": true}`), want: 400},

			{name: "admin_risk_limits_set", as: operator, method: "PUT", path: "/api/v1/admin/participants/" + v.participant(0) + "/risk-limits/MAX_OFFER",
				body: map[string]any{"value": 25000000}, want: 200},
			{as: operator, method: "PUT", path: "/api/v1/admin/participants/" + v.participant(0) + "/risk-limits/ALL_OFFER_SUM",
				body: map[string]any{"value": "125000000.50"}, want: 200},
			{name: "admin_risk_limits_invalid", as: operator, method: "PUT", path: "/api/v1/admin/participants/" + v.participant(0) + "/risk-limits/MAX_OFFER",
				body: map[string]any{"value": "lots"}, want: 400},
			{as: operator, method: "PUT", path: "/api/v1/admin/participants/" + v.participant(0) + "/risk-limits/MAX_OFFER", body: map[string]any{"value": -1}, want: 400},
			{as: operator, method: "PUT", path: "/api/v1/admin/participants/" + v.participant(0) + "/risk-limits/MAX_OFFER", body: map[string]any{"value": 1e30}, want: 400},
			{as: operator, method: "PUT", path: "/api/v1/admin/participants/" + v.participant(0) + "/risk-limits/MAX_OFFER", body: raw(`{}`), want: 400},
			{as: operator, method: "PUT", path: "/api/v1/admin/participants/" + v.participant(0) + "/risk-limits/MAX_OFFER", body: raw(`{"value": null}`), want: 400},
			{name: "admin_risk_limits_unknown_name", as: operator, method: "PUT", path: "/api/v1/admin/participants/" + v.participant(0) + "/risk-limits/MAX_FUN",
				body: map[string]any{"value": 1}, want: 400},
			{as: operator, method: "PUT", path: "/api/v1/admin/participants/" + missingID + "/risk-limits/MAX_OFFER", body: map[string]any{"value": 1}, want: 404},
			{name: "risk_limits_after_set", as: viewer(0), method: "GET", path: "/api/v1/participant/risk-limits", want: 200},
		})

		t.Run("new participant in the index", func(t *testing.T) {
			var found map[string]any
			for _, p := range v.get(t, operator, "/api/v1/participants", http.StatusOK).array(t) {
				if p["id"] == pid {
					found = p
				}
			}
			if found == nil {
				t.Fatal("operator's index lacks the new participant")
			}
			if n := len(found["risk_limits"].([]any)); n != 4 {
				t.Errorf("new participant has %d risk limits, want 4", n)
			}
			if n := len(found["accounts"].([]any)); n != 3 {
				t.Errorf("new participant has %d accounts, want 3", n)
			}
			if found["city"] != "Göteborg" || found["status"] != "suspended" {
				t.Errorf("updated participant city %v status %v", found["city"], found["status"])
			}
		})
	})
}

// TestAdminUsers covers users and credentials, by the operator and by a
// participant admin for its own firm.
func TestAdminUsers(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		created := v.run(t, call{name: "admin_users_create", as: operator, method: "POST", path: "/api/v1/admin/users",
			body: map[string]any{"participant_id": v.participant(3), "email": "Desk@Danube-AM.example", "role": "PARTICIPANT_TRADER",
				"id": missingID, "status": "active", "last_active": "2020-01-01"}, want: 200}).object(t)
		if created["email"] != "desk@danube-am.example" || created["last_active"] != nil {
			t.Errorf("created user = %v, want the e-mail lower-cased and never active", created)
		}
		byAdmin := v.run(t, call{name: "admin_users_create_by_admin", as: admin(0), method: "POST", path: "/api/v1/admin/users",
			body: map[string]any{"email": "ops@hanseatic-cm.example", "role": "PARTICIPANT_VIEWER", "locale": "de"}, want: 200}).object(t)
		if byAdmin["participant_id"] != v.participant(0) {
			t.Errorf("admin's new user belongs to %v, want its own firm", byAdmin["participant_id"])
		}
		uid := byAdmin["id"].(string)

		v.runAll(t, []call{
			{name: "admin_users_create_operator_role", as: admin(0), method: "POST", path: "/api/v1/admin/users",
				body: map[string]any{"email": "root@hanseatic-cm.example", "role": "VENUE_OPERATOR"}, want: 403},
			{name: "admin_users_create_other_firm", as: admin(0), method: "POST", path: "/api/v1/admin/users",
				body: map[string]any{"participant_id": v.participant(1), "email": "spy@hanseatic-cm.example", "role": "PARTICIPANT_VIEWER"}, want: 404},
			{name: "admin_users_duplicate", as: admin(0), method: "POST", path: "/api/v1/admin/users",
				body: map[string]any{"email": "OPS@hanseatic-cm.example", "role": "PARTICIPANT_VIEWER"}, want: 409},
			{name: "admin_users_invalid", as: operator, method: "POST", path: "/api/v1/admin/users",
				body: map[string]any{"participant_id": v.participant(0), "email": "not-an-address", "role": "VENUE_OPERATOR", "locale": "x"}, want: 400},
			{as: operator, method: "POST", path: "/api/v1/admin/users", body: map[string]any{"email": "p@x.example", "role": "PARTICIPANT_VIEWER"}, want: 400},
			{as: operator, method: "POST", path: "/api/v1/admin/users", body: map[string]any{"email": "p@x.example", "role": "KING"}, want: 400},
			{as: operator, method: "POST", path: "/api/v1/admin/users", body: raw(`{"email": ["a"]}`), want: 400},
			{as: operator, method: "POST", path: "/api/v1/admin/users", body: map[string]any{"email": "ops2@bondvenue.example", "role": "VENUE_OPERATOR"}, want: 200},
			{as: trader(0), method: "POST", path: "/api/v1/admin/users", body: map[string]any{"email": "t@hanseatic-cm.example", "role": "PARTICIPANT_VIEWER"}, want: 403},

			{name: "admin_users_update", as: admin(0), method: "PUT", path: "/api/v1/admin/users/" + uid,
				body: map[string]any{"entity": map[string]any{"role": "PARTICIPANT_TRADER", "locale": "fr", "participant_id": v.participant(1), "id": missingID}}, want: 200},
			{name: "admin_users_update_grant_operator", as: admin(0), method: "PUT", path: "/api/v1/admin/users/" + uid,
				body: map[string]any{"entity": map[string]any{"role": "VENUE_OPERATOR"}}, want: 403},
			{as: admin(0), method: "PUT", path: "/api/v1/admin/users/" + uid, body: map[string]any{"entity": map[string]any{"status": "asleep"}}, want: 400},
			{as: admin(0), method: "PUT", path: "/api/v1/admin/users/" + uid, body: map[string]any{"entity": map[string]any{"email": "admin@hanseatic-cm.example"}}, want: 409},
			{as: admin(0), method: "PUT", path: "/api/v1/admin/users/" + v.user(viewer(1)), body: map[string]any{"entity": map[string]any{"locale": "en"}}, want: 404},
			{as: admin(0), method: "PUT", path: "/api/v1/admin/users/" + v.creds.Operator.UserID, body: map[string]any{"entity": map[string]any{"locale": "en"}}, want: 404},
			{as: admin(0), method: "PUT", path: "/api/v1/admin/users/" + uid, body: map[string]any{"role": "PARTICIPANT_TRADER"}, want: 400},
		})

		t.Run("credentials", func(t *testing.T) {
			issued := v.run(t, call{name: "admin_credentials_issue", as: admin(0), method: "POST", path: "/api/v1/admin/users/" + uid + "/credentials", want: 200})
			if cc := issued.header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", cc)
			}
			var c struct {
				ClientID     string `json:"client_id"`
				ClientSecret string `json:"client_secret"`
			}
			issued.decode(t, &c)
			grant := map[string]string{"grant_type": "client_credentials", "client_id": c.ClientID, "client_secret": c.ClientSecret}
			tok := v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token", body: grant, want: 200}).object(t)["access_token"].(string)
			me := v.do(t, anon, "GET", "/api/v1/users/"+uid, nil, map[string]string{"Authorization": "Bearer " + tok})
			if me.status != http.StatusOK || me.object(t)["role"] != "PARTICIPANT_TRADER" {
				t.Errorf("the new credential does not act as its user: %d %s", me.status, me.body)
			}

			list := v.run(t, call{name: "admin_credentials_list", as: admin(0), method: "GET", path: "/api/v1/admin/users/" + uid + "/credentials", want: 200}).array(t)
			if len(list) != 1 || list[0]["client_id"] != c.ClientID {
				t.Errorf("credentials = %v, want the one issued", list)
			}
			for _, l := range list {
				if _, ok := l["client_secret"]; ok {
					t.Error("credential list shows a secret")
				}
			}
			v.runAll(t, []call{
				{as: admin(0), method: "GET", path: "/api/v1/admin/users/" + v.user(admin(1)) + "/credentials", want: 404},
				{as: admin(0), method: "POST", path: "/api/v1/admin/users/" + v.user(admin(1)) + "/credentials", want: 404},
				{as: admin(0), method: "POST", path: "/api/v1/admin/users/not-an-id/credentials", want: 404},
				{as: admin(1), method: "DELETE", path: "/api/v1/admin/credentials/" + c.ClientID, want: 404},
				{name: "admin_credentials_revoke_missing", as: admin(0), method: "DELETE", path: "/api/v1/admin/credentials/bv_missingmissingmi", want: 404},
				{as: operator, method: "GET", path: "/api/v1/admin/users/" + v.creds.Operator.UserID + "/credentials", want: 200},
				{as: operator, method: "DELETE", path: "/api/v1/admin/credentials/" + c.ClientID, want: 200},
			})
			v.do(t, anon, "GET", "/api/v1/markets", nil, map[string]string{"Authorization": "Bearer " + tok})
			v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token", body: grant, want: 401})
		})
	})
}

// TestAdminReferenceData covers markets, instruments, public buckets and
// news.
func TestAdminReferenceData(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		ms := v.markets(t)
		ins := v.instruments(t)
		market := v.run(t, call{name: "admin_markets_create", as: operator, method: "POST", path: "/api/v1/admin/markets",
			body: map[string]any{"name": "bondvenue Block RFQ", "facility_type": "OTC", "settlement_lag": 3, "id": missingID, "createdAt": "2020-01-01"}, want: 200}).object(t)
		mid := market["id"].(string)
		isin := "XS2810000001"
		for d := '0'; d <= '9'; d++ {
			if venue.ValidISIN(isin[:11] + string(d)) {
				isin = isin[:11] + string(d)
			}
		}
		instrument := map[string]any{"isin": isin, "name": "ACME 4.125 15/03/2031", "issuer": "ACME Industries SE", "currency": "EUR",
			"coupon": "4.125", "coupon_frequency": "Annual", "day_count": "ACT/ACT ICMA", "maturity": "2031-03-15",
			"interest_accrual_date": "2024-03-15", "first_coupon_date": "2025-03-15", "min_piece": "100000", "min_increment": 1000,
			"par_amount": "1000", "market_ids": []string{mid, ms[0].ID}, "static_data": map[string]any{"ticker": "ACME", "unit_traded": true},
			"id": missingID, "instrument_limits": map[string]any{"ask": []any{}}, "createdAt": "2020-01-01", "unknown": "x"}
		created := v.run(t, call{name: "admin_instruments_create", as: operator, method: "POST", path: "/api/v1/admin/instruments", body: instrument, want: 200}).object(t)
		iid := created["id"].(string)
		if iid == missingID || created["min_piece"] != float64(100000) {
			t.Errorf("created instrument id %v min_piece %#v", iid, created["min_piece"])
		}

		badISIN := map[string]any{}
		for k, val := range instrument {
			badISIN[k] = val
		}
		badISIN["isin"], badISIN["min_piece"], badISIN["coupon_frequency"] = "XS2810000000X", "1500", "Fortnightly"
		v.runAll(t, []call{
			{name: "admin_markets_duplicate", as: operator, method: "POST", path: "/api/v1/admin/markets",
				body: map[string]any{"name": "bondvenue Block RFQ", "facility_type": "OTC"}, want: 409},
			{name: "admin_markets_invalid", as: operator, method: "POST", path: "/api/v1/admin/markets",
				body: map[string]any{"name": "", "facility_type": "auction", "timezone": "Mars/Olympus", "settlement_lag": 31, "calendar": "NYSE"}, want: 400},
			{as: operator, method: "POST", path: "/api/v1/admin/markets", body: raw(`{"name": "x", "facility_type": "OTC", "settlement_lag": "2"}`), want: 400},
			{name: "admin_markets_update", as: operator, method: "PUT", path: "/api/v1/admin/markets/" + mid,
				body: map[string]any{"entity": map[string]any{"is_partial_fill_allowed": false, "is_enabled": false, "id": missingID}}, want: 200},
			{as: operator, method: "PUT", path: "/api/v1/admin/markets/" + missingID, body: map[string]any{"entity": map[string]any{"is_enabled": true}}, want: 404},
			{as: operator, method: "PUT", path: "/api/v1/admin/markets/" + mid, body: map[string]any{"entity": map[string]any{"name": ms[0].Name}}, want: 409},
			{as: viewer(0), method: "GET", path: "/api/v1/markets/" + mid, want: 200},

			{name: "admin_instruments_duplicate", as: operator, method: "POST", path: "/api/v1/admin/instruments", body: instrument, want: 409},
			{name: "admin_instruments_invalid", as: operator, method: "POST", path: "/api/v1/admin/instruments", body: badISIN, want: 400},
			{as: operator, method: "POST", path: "/api/v1/admin/instruments", body: raw(`{"isin": "XS0000000000", "min_piece": "lots"}`), want: 400},
			{as: operator, method: "POST", path: "/api/v1/admin/instruments", body: raw(`{"isin": 5}`), want: 400},
			{as: operator, method: "POST", path: "/api/v1/admin/instruments", body: raw(`[]`), want: 400},
			{name: "admin_instruments_update", as: operator, method: "PUT", path: "/api/v1/admin/instruments/" + iid,
				body: map[string]any{"entity": map[string]any{"note": "Callable from 2029", "min_piece": 2000, "market_ids": []string{mid}, "id": missingID}}, want: 200},
			{as: operator, method: "PUT", path: "/api/v1/admin/instruments/" + iid, body: map[string]any{"entity": map[string]any{"min_piece": 1500}}, want: 400},
			{as: operator, method: "PUT", path: "/api/v1/admin/instruments/" + iid, body: map[string]any{"entity": map[string]any{"market_ids": []string{missingID}}}, want: 400},
			{as: operator, method: "PUT", path: "/api/v1/admin/instruments/" + iid, body: map[string]any{"note": "flat"}, want: 400},
			{as: operator, method: "PUT", path: "/api/v1/admin/instruments/" + missingID, body: map[string]any{"entity": map[string]any{"note": "x"}}, want: 404},
			{name: "instruments_get_created", as: viewer(2), method: "GET", path: "/api/v1/instruments/" + iid, want: 200},

			{name: "admin_buckets_create", as: operator, method: "POST", path: "/api/v1/admin/buckets",
				body: map[string]any{"name": "Corporates", "type": "private", "participant_id": v.participant(0), "id": missingID,
					"instruments": []map[string]any{{"id": iid}, {"id": ins[len(ins)-1]}}}, want: 202},
			{as: operator, method: "POST", path: "/api/v1/admin/buckets", body: map[string]any{"name": "x", "instruments": []map[string]any{{"id": missingID}}}, want: 400},

			{name: "admin_news_create", as: operator, method: "POST", path: "/api/v1/admin/news",
				body: map[string]any{"title": "ACME 2031 listed", "body": "ACME Industries SE 4.125% 2031 is listed on every market.",
					"url": "https://bondvenue.example/notices/42", "id": missingID, "published_at": "2020-01-01"}, want: 200},
			{name: "admin_news_invalid", as: operator, method: "POST", path: "/api/v1/admin/news",
				body: map[string]any{"title": " ", "body": "", "url": "ftp://example.com"}, want: 400},
			{name: "news_list_after_create", as: viewer(1), method: "GET", path: "/api/v1/news?limit=1", want: 200},
		})

		t.Run("the index nests the enabled markets", func(t *testing.T) {
			p := v.get(t, viewer(0), "/api/v1/participants", http.StatusOK).array(t)[0]
			got := ids(toObjects(p["markets"]))
			if len(got) != len(ms) || contains(got, mid) {
				t.Errorf("nested markets %v, want the %d enabled ones without the disabled %s", got, len(ms), mid)
			}
			if n := len(v.get(t, viewer(0), "/api/v1/markets", http.StatusOK).array(t)); n != len(ms)+1 {
				t.Errorf("GET /markets lists %d, want every market (%d)", n, len(ms)+1)
			}
		})

		t.Run("public bucket reaches every participant", func(t *testing.T) {
			for i := range 4 {
				found := false
				for _, b := range v.get(t, viewer(i), "/api/v1/participant/buckets", http.StatusOK).array(t) {
					found = found || b["name"] == "Corporates"
				}
				if !found {
					t.Errorf("participant %d does not see the new public bucket", i)
				}
			}
		})
	})
}
