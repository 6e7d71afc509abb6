package httpapi_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
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
