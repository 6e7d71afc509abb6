package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestStandbyPassesWrites: two instances on one PostgreSQL database. The
// standby passes a client's write to the leader as it came (credentials,
// Idempotency-Key, body) under one request id, and relays the answer; a
// retry through it replays the kept answer; reads and tokens it serves
// itself; a request that claims to be passed on without the instances'
// signature is refused. When the leader goes, the standby takes over and
// serves writes itself.
func TestStandbyPassesWrites(t *testing.T) {
	ctx := context.Background()
	url := testenv.DatabaseURL(t, store.Postgres)
	h := auth.FastHasher
	cfg := testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler), Hasher: &h}, CampaignInterval: 100 * time.Millisecond}
	quiet := httpapi.Config{Logger: slog.New(slog.DiscardHandler)}
	deps := func(v *testenv.Venue) httpapi.Deps {
		return httpapi.Deps{Trading: v.Svc, Live: v.Live, Cluster: v.Cluster, Engine: v.Sequencer, Keys: v.Keys, Access: v.Access, Records: v.Records}
	}
	leader, creds := testenv.Demo(t, testenv.OpenConfig(t, store.Config{URL: url}), cfg)
	srvA := httptest.NewServer(httpapi.New(deps(leader), quiet).Handler())
	t.Cleanup(srvA.Close)
	if err := leader.Cluster.Announce(ctx, srvA.URL); err != nil {
		t.Fatal(err)
	}
	standby := testenv.Started(t, testenv.OpenConfig(t, store.Config{URL: url}), cfg)
	srvB := httptest.NewServer(httpapi.New(deps(standby), quiet).Handler())
	t.Cleanup(srvB.Close)
	if err := standby.Cluster.Announce(ctx, srvB.URL); err != nil {
		t.Fatal(err)
	}

	call := func(base, method, path, token string, body any, hdr map[string]string) (*http.Response, []byte) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequestWithContext(ctx, method, base+path, rd)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, b
	}
	var u struct{ ClientID, ClientSecret string }
	p := creds.Participants[0]
	for _, x := range p.Users {
		if x.Role == string(venue.RoleTrader) {
			u.ClientID, u.ClientSecret = x.ClientID, x.ClientSecret
		}
	}
	resp, b := call(srvB.URL, "POST", "/api/v1/auth/token", "", map[string]string{"grant_type": "client_credentials",
		"client_id": u.ClientID, "client_secret": u.ClientSecret}, nil)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(b, &tok) != nil {
		t.Fatalf("a token from the standby: %d %s", resp.StatusCode, b)
	}
	resp, b = call(srvB.URL, "GET", "/readyz", "", nil, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"role":"standby"`) {
		t.Errorf("the standby's /readyz: %d %s", resp.StatusCode, b)
	}
	ms, err := standby.Svc.Markets(ctx, trading.System, trading.MarketFilter{FacilityType: venue.FacilityContinuous}, venue.Page{Limit: 10})
	if err != nil || len(ms.Items) == 0 {
		t.Fatal(err)
	}
	market := ms.Items[0].ID
	for _, m := range slices.Backward(ms.Items) {
		if m.Hours == nil { // a market open whenever the test runs
			market = m.ID
		}
	}
	ins, err := standby.Svc.Instruments(ctx, trading.System, trading.InstrumentFilter{MarketID: market}, venue.Page{Limit: 1})
	if err != nil || len(ins.Items) == 0 {
		t.Fatal(err)
	}
	offer := map[string]any{"account_id": p.AccountIDs[0], "instrument_id": ins.Items[0].ID, "market_id": market,
		"direction": "ask", "price_per_unit": "109.5", "quantity": ins.Items[0].MinPiece.String()}
	key := map[string]string{"Idempotency-Key": "standby-1"}
	resp, b = call(srvB.URL, "POST", "/api/v1/participant/offers", tok.AccessToken, offer, key)
	var made struct{ ID string }
	if resp.StatusCode != 200 || json.Unmarshal(b, &made) != nil || made.ID == "" {
		t.Fatalf("an offer through the standby: %d %s", resp.StatusCode, b)
	}
	id := resp.Header.Get("X-Request-Id")
	again, b2 := call(srvB.URL, "POST", "/api/v1/participant/offers", tok.AccessToken, offer, key)
	if again.StatusCode != 200 || again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(b, b2) {
		t.Errorf("the retry through the standby: %d replayed %q", again.StatusCode, again.Header.Get("Idempotent-Replayed"))
	}
	if id == "" || id == again.Header.Get("X-Request-Id") {
		t.Errorf("request ids %q, %q: each request its own, kept across the instances", id, again.Header.Get("X-Request-Id"))
	}
	resp, b = call(srvA.URL, "GET", "/api/v1/participant/offers/"+made.ID, tok.AccessToken, nil, nil)
	if resp.StatusCode != 200 {
		t.Errorf("the offer on the leader: %d %s", resp.StatusCode, b)
	}
	resp, b = call(srvA.URL, "POST", "/api/v1/participant/offers", tok.AccessToken, offer,
		map[string]string{"X-Bondvenue-Forwarded-By": "someone", "X-Bondvenue-Forward-Signature": "00", "X-Request-Id": "x"})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("an unsigned passed-on request: %d %s", resp.StatusCode, b)
	}

	// The leader goes; the standby takes over and serves writes itself.
	srvA.Close()
	leader.Close()
	testenv.Wait(t, "the standby's takeover", func() bool { return standby.Cluster.Role() == cluster.RoleLeader })
	offer["price_per_unit"] = "109.75"
	resp, b = call(srvB.URL, "POST", "/api/v1/participant/offers", tok.AccessToken, offer, nil)
	if resp.StatusCode != 200 {
		t.Errorf("a write on the new leader: %d %s", resp.StatusCode, b)
	}
}
