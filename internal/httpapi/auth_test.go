package httpapi_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/google/go-cmp/cmp"
)

// testTokenEndpoint covers POST /api/v1/auth/token: JSON, form and HTTP
// Basic client authentication and every way a grant fails.
func testTokenEndpoint(t *testing.T, v *env) {
	u := v.userCred(trader(0))
	form := func(vals url.Values) raw { return raw(vals.Encode()) }
	formCT := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(u.ClientID+":"+u.ClientSecret))
	v.runAll(t, []call{
		{name: "token_json", as: anon, method: "POST", path: "/api/v1/auth/token",
			body: map[string]string{"grant_type": "client_credentials", "client_id": u.ClientID, "client_secret": u.ClientSecret}, want: 200},
		{name: "token_form", as: anon, method: "POST", path: "/api/v1/auth/token", header: formCT,
			body: form(url.Values{"grant_type": {"client_credentials"}, "client_id": {u.ClientID}, "client_secret": {u.ClientSecret}}), want: 200},
		{name: "token_basic", as: anon, method: "POST", path: "/api/v1/auth/token",
			header: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": basic},
			body:   form(url.Values{"grant_type": {"client_credentials"}}), want: 200},
		{as: anon, method: "POST", path: "/api/v1/auth/token", header: map[string]string{"Authorization": basic}, body: raw(`{}`), want: 200},
		{as: anon, method: "POST", path: "/api/v1/auth/token", header: map[string]string{"Content-Type": "application/json; charset=utf-8"},
			body: map[string]any{"grant_type": "client_credentials", "client_id": u.ClientID, "client_secret": u.ClientSecret, "scope": "all"}, want: 200},
		{name: "token_wrong_secret", as: anon, method: "POST", path: "/api/v1/auth/token",
			body: map[string]string{"grant_type": "client_credentials", "client_id": u.ClientID, "client_secret": u.ClientSecret + "x"}, want: 401},
		{name: "token_unknown_client", as: anon, method: "POST", path: "/api/v1/auth/token",
			body: map[string]string{"grant_type": "client_credentials", "client_id": "bv_unknownunknownu", "client_secret": u.ClientSecret}, want: 401},
		{as: anon, method: "POST", path: "/api/v1/auth/token",
			header: map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(u.ClientID+":wrong"))}, want: 401},
		{as: anon, method: "POST", path: "/api/v1/auth/token",
			body: map[string]string{"grant_type": "client_credentials", "client_id": u.ClientID, "client_secret": strings.Repeat("s", 300)}, want: 401},
		{name: "token_missing_fields", as: anon, method: "POST", path: "/api/v1/auth/token", body: raw(`{}`), want: 400},
		{as: anon, method: "POST", path: "/api/v1/auth/token", want: 400}, // no body at all
		{name: "token_wrong_grant", as: anon, method: "POST", path: "/api/v1/auth/token",
			body: map[string]string{"grant_type": "password", "client_id": u.ClientID, "client_secret": u.ClientSecret}, want: 400},
		{name: "token_malformed_json", as: anon, method: "POST", path: "/api/v1/auth/token", body: raw(`{"grant_type": "client_credentials",`), want: 400},
		{name: "token_wrong_type", as: anon, method: "POST", path: "/api/v1/auth/token",
			body: raw(`{"grant_type": "client_credentials", "client_id": 42, "client_secret": "x"}`), want: 400},
		{as: anon, method: "POST", path: "/api/v1/auth/token", body: raw(`["client_credentials"]`), want: 400},
		{name: "token_content_type", as: anon, method: "POST", path: "/api/v1/auth/token",
			header: map[string]string{"Content-Type": "text/plain"}, body: raw("grant_type=client_credentials"), want: 400},
		{as: anon, method: "POST", path: "/api/v1/auth/token", header: formCT, body: raw("grant_type=%zz"), want: 400},
	})

	t.Run("token answer", func(t *testing.T) {
		r := v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token",
			body: map[string]string{"grant_type": "client_credentials", "client_id": u.ClientID, "client_secret": u.ClientSecret}, want: 200})
		var tok struct {
			AccessToken string `json:"access_token"`
			TokenType   string `json:"token_type"`
			ExpiresIn   int    `json:"expires_in"`
		}
		r.decode(t, &tok)
		if len(tok.AccessToken) < 32 || tok.TokenType != "Bearer" || tok.ExpiresIn != 900 {
			t.Errorf("token = %+v, want an opaque Bearer token for 900 s", tok)
		}
		if cc := r.header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control = %q, want no-store", cc)
		}
		// The token acts as its user.
		us := v.do(t, anon, "GET", "/api/v1/users/"+u.UserID, nil, map[string]string{"Authorization": "Bearer " + tok.AccessToken})
		if us.status != http.StatusOK {
			t.Errorf("GET own user with the new token: %d", us.status)
		}
	})

	t.Run("wrong secret and unknown client answer alike", func(t *testing.T) {
		a := v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token",
			body: map[string]string{"grant_type": "client_credentials", "client_id": u.ClientID, "client_secret": "nope"}, want: 401}).object(t)
		b := v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token",
			body: map[string]string{"grant_type": "client_credentials", "client_id": "bv_nobodynobodynob", "client_secret": "nope"}, want: 401}).object(t)
		if a["error"] != b["error"] || a["message"] != b["message"] {
			t.Errorf("wrong secret %v vs unknown client %v: the answers tell them apart", a["error"], b["error"])
		}
	})
}

// testBearer covers the bearer token on authenticated routes.
func testBearer(t *testing.T, v *env) {
	tok := v.token(t, viewer(0))
	v.runAll(t, []call{
		{name: "bearer_missing", as: anon, method: "GET", path: "/api/v1/markets", want: 401},
		{name: "bearer_invalid", as: anon, method: "GET", path: "/api/v1/markets",
			header: map[string]string{"Authorization": "Bearer not-a-token"}, want: 401},
		{as: anon, method: "GET", path: "/api/v1/markets", header: map[string]string{"Authorization": "Bearer " + strings.Repeat("t", 300)}, want: 401},
		{as: anon, method: "GET", path: "/api/v1/markets", header: map[string]string{"Authorization": "Bearer"}, want: 401},
		{as: anon, method: "GET", path: "/api/v1/markets", header: map[string]string{"Authorization": tok}, want: 401},
		{as: anon, method: "GET", path: "/api/v1/markets", header: map[string]string{"Authorization": "Token " + tok}, want: 401},
		{as: anon, method: "GET", path: "/api/v1/markets",
			header: map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("a:b"))}, want: 401},
		{as: anon, method: "GET", path: "/api/v1/markets", header: map[string]string{"Authorization": "bearer " + tok}, want: 200},
		{as: anon, method: "GET", path: "/api/v1/markets", header: map[string]string{"Authorization": "Bearer  " + tok}, want: 200},
		{as: anon, method: "POST", path: "/api/v1/participant/buckets", body: raw(`{`), want: 401}, // authentication comes first
	})
	t.Run("401 carries WWW-Authenticate", func(t *testing.T) {
		r := v.get(t, anon, "/api/v1/participants", http.StatusUnauthorized)
		if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("WWW-Authenticate = %q, want Bearer", r.header.Get("WWW-Authenticate"))
		}
	})
}

// TestTokenExpiry: a token stops working when it expires.
func TestTokenExpiry(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		v.get(t, trader(1), "/api/v1/markets", http.StatusOK)
		v.clock.Advance(15*time.Minute - time.Millisecond)
		v.get(t, trader(1), "/api/v1/markets", http.StatusOK)
		v.clock.Advance(time.Millisecond)
		v.run(t, call{name: "bearer_expired", as: trader(1), method: "GET", path: "/api/v1/markets", want: 401})
		// A new grant works again.
		u := v.userCred(trader(1))
		v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token",
			body: map[string]string{"grant_type": "client_credentials", "client_id": u.ClientID, "client_secret": u.ClientSecret}, want: 200})
	})
}

// TestTokenRenewal: the bearer of a good token gets a new one for its
// client (how a signed-in screen keeps its session past the token's
// lifetime); an expired token, a revoked credential or a disabled user
// renews nothing.
func TestTokenRenewal(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		grant := func(t *testing.T, w who) string {
			u := v.userCred(w)
			r := v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token",
				body: map[string]string{"grant_type": "client_credentials", "client_id": u.ClientID, "client_secret": u.ClientSecret}, want: 200})
			return r.object(t)["access_token"].(string)
		}
		bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
		renew := func(t *testing.T, name, tok string, want int) string {
			r := v.run(t, call{name: name, as: anon, method: "POST", path: "/api/v1/auth/renew", header: bearer(tok), want: want})
			if want != http.StatusOK {
				return ""
			}
			got := r.object(t)
			if fmt.Sprint(got["expires_in"]) != "900" || got["token_type"] != "Bearer" || r.header.Get("Cache-Control") != "no-store" {
				t.Errorf("renew: %v (Cache-Control %q), want a Bearer token for 900 s, not stored", got, r.header.Get("Cache-Control"))
			}
			return got["access_token"].(string)
		}
		me := func(t *testing.T, tok string, want int) {
			v.run(t, call{as: anon, method: "GET", path: "/api/v1/auth/me", header: bearer(tok), want: want})
		}

		// A revoked credential or a disabled user ends the session: no
		// renewal.
		u := v.userCred(viewer(2))
		revoked := grant(t, viewer(2))
		v.run(t, call{as: admin(2), method: "DELETE", path: "/api/v1/admin/credentials/" + u.ClientID, want: 200})
		renew(t, "", revoked, http.StatusUnauthorized)
		w := v.userCred(viewer(1))
		disabled := grant(t, viewer(1))
		v.run(t, call{as: admin(1), method: "PUT", path: "/api/v1/admin/users/" + w.UserID,
			body: map[string]any{"entity": map[string]any{"status": "disabled"}}, want: 200})
		renew(t, "", disabled, http.StatusUnauthorized)

		first := grant(t, trader(0))
		v.clock.Advance(10 * time.Minute)
		second := renew(t, "auth_renew", first, http.StatusOK)
		if second == first {
			t.Fatal("renewal answered the same token")
		}
		v.clock.Advance(10 * time.Minute) // the first has expired, the renewed one holds
		me(t, first, http.StatusUnauthorized)
		me(t, second, http.StatusOK)
		renew(t, "auth_renew_expired", first, http.StatusUnauthorized)
		third := renew(t, "", second, http.StatusOK)
		v.clock.Advance(14 * time.Minute)
		me(t, third, http.StatusOK)
		renew(t, "", "not-a-token", http.StatusUnauthorized)
	})
}

// TestRevocation: revoking credentials ends their tokens and grants; a
// disabled user can neither use its tokens nor get new ones.
func TestRevocation(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		u := v.userCred(trader(0))
		v.get(t, trader(0), "/api/v1/markets", http.StatusOK)
		v.run(t, call{name: "admin_credentials_revoke", as: admin(0), method: "DELETE", path: "/api/v1/admin/credentials/" + u.ClientID, want: 200})
		v.run(t, call{name: "bearer_revoked", as: trader(0), method: "GET", path: "/api/v1/markets", want: 401})
		v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token",
			body: map[string]string{"grant_type": "client_credentials", "client_id": u.ClientID, "client_secret": u.ClientSecret}, want: 401})
		// Revoking again answers the same record.
		again := v.run(t, call{as: admin(0), method: "DELETE", path: "/api/v1/admin/credentials/" + u.ClientID, want: 200}).object(t)
		if again["revoked_at"] != pinned.Format("2006-01-02T15:04:05.000Z") {
			t.Errorf("revoked_at = %v, want the pinned instant", again["revoked_at"])
		}
		// The firm's other users are untouched.
		v.get(t, viewer(0), "/api/v1/markets", http.StatusOK)

		w := v.userCred(viewer(1))
		v.get(t, viewer(1), "/api/v1/markets", http.StatusOK)
		v.run(t, call{name: "admin_users_disable", as: admin(1), method: "PUT", path: "/api/v1/admin/users/" + w.UserID,
			body: map[string]any{"entity": map[string]any{"status": "disabled"}}, want: 200})
		v.get(t, viewer(1), "/api/v1/markets", http.StatusUnauthorized)
		v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token",
			body: map[string]string{"grant_type": "client_credentials", "client_id": w.ClientID, "client_secret": w.ClientSecret}, want: 401})
		v.run(t, call{as: admin(1), method: "PUT", path: "/api/v1/admin/users/" + w.UserID,
			body: map[string]any{"entity": map[string]any{"status": "active"}}, want: 200})
		v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token",
			body: map[string]string{"grant_type": "client_credentials", "client_id": w.ClientID, "client_secret": w.ClientSecret}, want: 200})
	})
}

// TestAuthMe: GET /api/v1/auth/me answers every caller, the operator
// too, its own user record exactly as GET /api/v1/users/{userId} does;
// without a token, or with one that no longer holds, 401.
func TestAuthMe(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		golden := map[who]string{trader(0): "auth_me", operator: "auth_me_operator"}
		for _, w := range everyone {
			t.Run(w.String(), func(t *testing.T) {
				got := v.run(t, call{name: golden[w], as: w, method: "GET", path: "/api/v1/auth/me", want: http.StatusOK}).object(t)
				if got["id"] != v.user(w) || got["role"] != string(w.role) {
					t.Errorf("me as %s: id %v, role %v; want %s, %s", w, got["id"], got["role"], v.user(w), w.role)
				}
				accounts, _ := got["accounts"].([]any)
				if w.participant() {
					participant, _ := got["participant"].(map[string]any)
					if got["participant_id"] != v.participant(w.firm) || participant["id"] != v.participant(w.firm) || len(accounts) == 0 {
						t.Errorf("me as %s: participant_id %v, participant %v, %d accounts; want firm %s in full with its accounts",
							w, got["participant_id"], participant["id"], len(accounts), v.participant(w.firm))
					}
				} else if got["participant_id"] != nil || got["participant"] != nil || len(accounts) != 0 {
					t.Errorf("me as the operator: participant_id %v, participant %v, %d accounts; want null, null, none",
						got["participant_id"], got["participant"], len(accounts))
				}
				byID := v.get(t, w, "/api/v1/users/"+v.user(w), http.StatusOK).object(t)
				if diff := cmp.Diff(byID, got); diff != "" {
					t.Errorf("me as %s differs from its GET /api/v1/users/{userId} (-users +me):\n%s", w, diff)
				}
			})
		}

		v.runAll(t, []call{
			{name: "auth_me_no_token", as: anon, method: "GET", path: "/api/v1/auth/me", want: http.StatusUnauthorized},
			{as: anon, method: "GET", path: "/api/v1/auth/me", header: map[string]string{"Authorization": "Bearer not-a-token"},
				want: http.StatusUnauthorized},
		})

		t.Run("revoked", func(t *testing.T) {
			// A credential of its own, so the callers' tokens above stay.
			w := viewer(2)
			cred, err := v.svc.IssueCredential(context.Background(), trading.System, v.user(w))
			if err != nil {
				t.Fatal(err)
			}
			var tok struct {
				AccessToken string `json:"access_token"`
			}
			v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token", want: http.StatusOK,
				body: map[string]string{"grant_type": "client_credentials", "client_id": cred.ClientID, "client_secret": cred.Secret}}).decode(t, &tok)
			bearer := map[string]string{"Authorization": "Bearer " + tok.AccessToken}
			me := v.run(t, call{as: anon, method: "GET", path: "/api/v1/auth/me", header: bearer, want: http.StatusOK}).object(t)
			if me["id"] != v.user(w) {
				t.Errorf("me with %s's new token: id %v, want %s", w, me["id"], v.user(w))
			}
			v.run(t, call{as: admin(2), method: "DELETE", path: "/api/v1/admin/credentials/" + cred.ClientID, want: http.StatusOK})
			r := v.run(t, call{as: anon, method: "GET", path: "/api/v1/auth/me", header: bearer, want: http.StatusUnauthorized})
			if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate = %q, want Bearer", r.header.Get("WWW-Authenticate"))
			}
			// The user's other credential still works.
			v.get(t, w, "/api/v1/auth/me", http.StatusOK)
		})
	})
}

// testRateLimit uses a venue, and a server on the shared one, with tiny
// limits.
func testRateLimit(t *testing.T, base *env) {
	t.Run("per credential", func(t *testing.T) {
		v := newEnv(t, base.engine, options{rateLimit: 1, rateBurst: 2}) // the service's budget, shared by every channel
		v.get(t, viewer(2), "/api/v1/markets", http.StatusOK)
		v.get(t, viewer(2), "/api/v1/markets", http.StatusOK)
		r := v.run(t, call{name: "rate_limited", as: viewer(2), method: "GET", path: "/api/v1/markets", want: 429})
		if r.header.Get("Retry-After") != "1" {
			t.Errorf("Retry-After = %q, want 1", r.header.Get("Retry-After"))
		}
		v.get(t, viewer(2), "/api/v1/participants", http.StatusTooManyRequests) // every route draws on one budget
		v.get(t, trader(2), "/api/v1/markets", http.StatusOK)                   // another credential has its own
		v.clock.Advance(time.Second)
		v.get(t, viewer(2), "/api/v1/markets", http.StatusOK)
		v.get(t, viewer(2), "/api/v1/markets", http.StatusTooManyRequests)
		v.clock.Advance(-time.Second)
	})
	t.Run("token grants per address", func(t *testing.T) {
		v := base.withServer(t, options{tokenRateLimit: 0.5, tokenRateBurst: 2})
		u := v.userCred(admin(2))
		grant := map[string]string{"grant_type": "client_credentials", "client_id": u.ClientID, "client_secret": u.ClientSecret}
		v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token", body: grant, want: 200})
		v.run(t, call{as: anon, method: "POST", path: "/api/v1/auth/token", body: map[string]string{"client_id": "x", "client_secret": "y"}, want: 401})
		r := v.run(t, call{name: "token_rate_limited", as: anon, method: "POST", path: "/api/v1/auth/token", body: grant, want: 429})
		if r.header.Get("Retry-After") != "2" {
			t.Errorf("Retry-After = %q, want 2", r.header.Get("Retry-After"))
		}
	})
}
