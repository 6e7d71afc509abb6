package httpapi_test

import (
	"net/http"
	"testing"
)

// TestSettlementProviders covers creating providers and the toggle and
// default operations, in order on a fresh venue per engine.
func TestSettlementProviders(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		demoProvider := v.provider(t, 0)
		created := v.run(t, call{name: "settlement_providers_create", as: admin(0), method: "POST", path: "/api/v1/admin/settlement-providers",
			body: map[string]any{"provider": "Euroclear Bank", "type": "icsd", "pset": "MGTCBEBEECL", "agent_bic": "MGTCBEBEXXX",
				"id": missingID, "status": "default", "account_id": nil, "createdAt": "2020-01-01", "unknown": true}, want: 200}).object(t)
		sp := created["id"].(string)
		if sp == missingID || created["status"] != "active" || created["participant_id"] != v.participant(0) || created["enabled"] != true {
			t.Errorf("created provider = %v, want a new active provider of firm 0", created)
		}
		path := "/api/v1/settlement-providers/" + sp

		v.runAll(t, []call{
			{name: "settlement_providers_create_invalid", as: admin(0), method: "POST", path: "/api/v1/admin/settlement-providers",
				body: map[string]any{"provider": " ", "account_id": "nope"}, want: 400},
			{as: admin(0), method: "POST", path: "/api/v1/admin/settlement-providers", body: raw(`{"provider": 1}`), want: 400},
			{as: admin(0), method: "POST", path: "/api/v1/admin/settlement-providers",
				body: map[string]any{"provider": "X", "account_id": v.account(1)}, want: 404}, // another firm's account
			{as: operator, method: "POST", path: "/api/v1/admin/settlement-providers", body: map[string]any{"provider": "X"}, want: 400}, // the operator names the firm

			{name: "settlement_providers_toggle", as: admin(0), method: "PUT", path: path + "/toggle", want: 200},
			{name: "settlement_providers_account_default_disabled", as: admin(0), method: "PUT", path: path + "/account/" + v.account(0) + "/default", want: 409},
			{as: admin(0), method: "PUT", path: path + "/participant/" + v.participant(0) + "/default", want: 409},
			{as: admin(0), method: "PUT", path: path + "/toggle", want: 200},
			{name: "settlement_providers_toggle_default", as: admin(0), method: "PUT", path: "/api/v1/settlement-providers/" + demoProvider + "/toggle", want: 409},
			{as: trader(0), method: "PUT", path: path + "/toggle", want: 403},
			{as: admin(1), method: "PUT", path: path + "/toggle", want: 404},
			{as: admin(0), method: "PUT", path: "/api/v1/settlement-providers/not-an-id/toggle", want: 404},
			{as: admin(0), method: "PUT", path: path + "/toggle", body: raw(`{"ignored": true}`), want: 200}, // a body is ignored
			{as: admin(0), method: "PUT", path: path + "/toggle", want: 200},

			{name: "settlement_providers_account_default", as: admin(0), method: "PUT", path: path + "/account/" + v.account(0) + "/default", want: 200},
			{name: "settlement_providers_toggle_account_default", as: admin(0), method: "PUT", path: path + "/toggle", want: 409},
			{name: "settlement_providers_account_default_other_firm", as: admin(0), method: "PUT", path: path + "/account/" + v.account(1) + "/default", want: 404},
			{as: admin(0), method: "PUT", path: path + "/account/" + missingID + "/default", want: 404},
			{as: admin(0), method: "PUT", path: path + "/account/not-an-id/default", want: 404},
			{as: operator, method: "PUT", path: path + "/account/" + v.account(3) + "/default", want: 404}, // the account must be the provider's firm's

			{name: "settlement_providers_participant_default", as: admin(0), method: "PUT", path: path + "/participant/" + v.participant(0) + "/default", want: 200},
			{as: admin(0), method: "PUT", path: path + "/participant/" + v.participant(1) + "/default", want: 404},
			{as: admin(0), method: "PUT", path: path + "/participant/not-an-id/default", want: 404},
			{as: admin(3), method: "PUT", path: path + "/participant/" + v.participant(3) + "/default", want: 404},
			{as: viewer(0), method: "PUT", path: path + "/participant/" + v.participant(0) + "/default", want: 403},
			{name: "settlement_providers_after_defaults", as: viewer(0), method: "GET", path: "/api/v1/settlement-providers", want: 200},
		})

		t.Run("defaults are visible on the records", func(t *testing.T) {
			acc := v.get(t, viewer(0), "/api/v1/accounts/"+v.account(0), http.StatusOK).object(t)
			if acc["default_settlement_provider_id"] != sp {
				t.Errorf("account default = %v, want %s", acc["default_settlement_provider_id"], sp)
			}
			p := v.get(t, viewer(0), "/api/v1/participants/"+v.participant(0), http.StatusOK).object(t)
			if p["default_settlement_provider_id"] != sp {
				t.Errorf("participant default = %v, want %s", p["default_settlement_provider_id"], sp)
			}
			status := map[string]any{}
			for _, x := range v.get(t, viewer(0), "/api/v1/settlement-providers", http.StatusOK).array(t) {
				status[x["id"].(string)] = x["status"]
			}
			if status[sp] != "default" || status[demoProvider] != "active" {
				t.Errorf("statuses = %v, want the new default and the old one active", status)
			}
			// The former default may now be disabled, once no account
			// has it as its default; the new one may not.
			for _, acc := range v.creds.Participants[0].AccountIDs[1:] {
				v.run(t, call{as: admin(0), method: "PUT", path: path + "/account/" + acc + "/default", want: 200})
			}
			v.run(t, call{as: admin(0), method: "PUT", path: "/api/v1/settlement-providers/" + demoProvider + "/toggle", want: 200})
			v.run(t, call{as: admin(0), method: "PUT", path: path + "/toggle", want: 409})
		})
	})
}
