package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bondvenue/bondvenue/internal/clock"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/idempotency"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// healthz answers 200 while the process is alive, with the clock's last
// check when the venue watches it: status degraded when the clock is,
// still 200, since a load balancer must not take the venue out for a
// clock alarm (docs/operations.md, "Clock synchronisation").
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	if s.clock == nil {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return nil
	}
	c := clockHealthOf(s.clock.Status())
	status := "ok"
	if c.Status == "degraded" {
		status = "degraded"
	}
	writeJSON(w, http.StatusOK, struct {
		Status string      `json:"status"`
		Clock  clockHealth `json:"clock"`
	}{status, c})
	return nil
}

// clockHealth is the clock's part of GET /healthz (the OpenAPI document's
// ClockHealth); the kernel's figures are left out while its state is
// unknown, the latency's p99 until there is a sample.
type clockHealth struct {
	Status              string `json:"status"`
	Reason              string `json:"reason,omitempty"`
	Synchronised        *bool  `json:"synchronised,omitempty"`
	EstimatedErrorUS    *int64 `json:"estimated_error_us,omitempty"`
	MaxErrorUS          *int64 `json:"max_error_us,omitempty"`
	ToleranceUS         int64  `json:"tolerance_us"`
	Tier                string `json:"tier"`
	GatewayLatencyP99US *int64 `json:"gateway_latency_p99_us,omitempty"`
	LatencySamples      int    `json:"latency_samples"`
}

func clockHealthOf(st clock.Status) clockHealth {
	c := clockHealth{Status: st.Health(), Reason: st.Reason, ToleranceUS: st.Tolerance.Microseconds(), Tier: st.Basis,
		LatencySamples: st.LatencySamples}
	if st.Known {
		est, maxErr := st.State.EstimatedError.Microseconds(), st.State.MaxError.Microseconds()
		c.Synchronised, c.EstimatedErrorUS, c.MaxErrorUS = &st.State.Synchronised, &est, &maxErr
	}
	if st.LatencySamples > 0 {
		p99 := st.LatencyP99.Microseconds()
		c.GatewayLatencyP99US = &p99
	}
	return c
}

// readyz answers 200 when the database is reachable and migrated and the
// sequencer runs holding its lease; otherwise 503 with the error body
// every failure carries, plus the probe's status and checks.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	checks, err := s.cl.Readiness(r.Context())
	if err == nil {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "engine": s.cl.Engine(), "role": checks["role"]})
		return nil
	}
	s.log.WarnContext(r.Context(), "not ready", "err", err.Error())
	status, body := s.errorResponse(w, r, &venue.Error{Kind: venue.KindNotReady,
		Message: fmt.Sprintf("not ready: database %s, engine %s", checks["database"], checks["engine"])})
	writeJSON(w, status, struct {
		errorBody
		Status string            `json:"status"`
		Engine string            `json:"engine"`
		Checks map[string]string `json:"checks"`
	}{body, "unavailable", s.cl.Engine(), checks})
	return nil
}

// unmatched answers a request no route takes: 405 with Allow when the path
// exists for other methods, else 404.
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request) error {
	var allow []string
	for _, m := range []string{"GET", "POST", "PUT", "DELETE"} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "/" && pattern != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{ID: requestID(r.Context()), Timestamp: ts(s.now()),
			StatusCode: http.StatusMethodNotAllowed, Message: "Method Not Allowed",
			Error: "method " + r.Method + " not allowed; use " + strings.Join(allow, ", "), Path: r.URL.Path})
		return nil
	}
	return venue.NotFound("route " + r.Method + " " + r.URL.Path)
}

// noFile answers a path under the web app's that its build lacks.
func (s *Server) noFile(w http.ResponseWriter, r *http.Request) error {
	return venue.NotFound("file " + r.URL.Path)
}

// token implements the OAuth 2.0 client-credentials grant with the client
// authenticating by JSON body, form body, or HTTP Basic.
func (s *Server) token(w http.ResponseWriter, r *http.Request) error {
	if wait := s.perAddr.Allow(clientAddr(r), s.now()); wait > 0 {
		return &venue.Error{Kind: venue.KindRateLimited, Message: "rate limit exceeded; retry after the Retry-After delay",
			RetryAfter: wait}
	}
	var req struct {
		GrantType    string `json:"grant_type"`
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		b, err := readBody(r)
		if err != nil {
			return err
		}
		form, err := url.ParseQuery(string(b))
		if err != nil {
			return venue.Invalid("malformed form body")
		}
		req.GrantType, req.ClientID, req.ClientSecret = form.Get("grant_type"), form.Get("client_id"), form.Get("client_secret")
	case strings.HasPrefix(ct, "application/json") || ct == "":
		b, err := readBody(r)
		if err != nil {
			return err
		}
		if len(strings.TrimSpace(string(b))) > 0 {
			if err := decodeBytes(b, &req); err != nil {
				return err
			}
		}
	default:
		return venue.InvalidField("Content-Type", "must be application/json or application/x-www-form-urlencoded")
	}
	if id, secret, ok := r.BasicAuth(); ok {
		req.ClientID, req.ClientSecret = id, secret
	}
	if req.GrantType == "" && req.ClientID != "" {
		req.GrantType = "client_credentials"
	}
	var v venue.Validator
	v.Check(req.GrantType == "client_credentials", "grant_type", "must be client_credentials")
	v.Check(req.ClientID != "", "client_id", "is required (in the body or with HTTP Basic)")
	v.Check(req.ClientSecret != "", "client_secret", "is required (in the body or with HTTP Basic)")
	if err := v.Err(); err != nil {
		return err
	}
	tok, err := s.access.IssueToken(r.Context(), req.ClientID, req.ClientSecret)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok.AccessToken, "token_type": "Bearer", "expires_in": tok.ExpiresIn})
	return nil
}

// renewToken issues a new access token to the bearer of a good one, in
// the token grant's answer: how a signed-in screen keeps its session. Like
// the grant it is never idempotent (an Idempotency-Key would keep the
// token at rest), so it authenticates the bearer itself.
func (s *Server) renewToken(w http.ResponseWriter, r *http.Request) error {
	if wait := s.perAddr.Allow(clientAddr(r), s.now()); wait > 0 {
		return &venue.Error{Kind: venue.KindRateLimited, Message: "rate limit exceeded; retry after the Retry-After delay",
			RetryAfter: wait}
	}
	p, err := s.authenticate(r)
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="bondvenue"`)
		return err
	}
	if err := checkQuery(r); err != nil {
		return err
	}
	// A key is checked as on every write, then not kept: a retry renews again.
	if key := r.Header.Get("Idempotency-Key"); key != "" {
		if err := idempotency.CheckKey(key); err != nil {
			return err
		}
	}
	tok, err := s.access.RenewToken(r.Context(), p)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok.AccessToken, "token_type": "Bearer", "expires_in": tok.ExpiresIn})
	return nil
}

// clientAddr is the caller's address for rate limiting (the direct peer;
// a proxy in front must do its own limiting).
func clientAddr(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i > 0 {
		host = host[:i]
	}
	return host
}

// me answers the caller's own user record, as GET /users/{userId} does:
// how a client learns its role, firm and accounts from its token alone.
func (s *Server) me(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	u, err := s.use(r).User(r.Context(), p, p.UserID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.UserRecordOf(u))
	return nil
}

func (s *Server) listParticipants(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	page, err := pageParams(r.URL.Query())
	if err != nil {
		return err
	}
	l, err := s.use(r).Participants(r.Context(), p, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, wire.ParticipantOf)
	return nil
}

func (s *Server) listAccounts(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := query{Values: r.URL.Query()}
	page := q.page()
	f := trading.AccountFilter{ParticipantID: q.id("participant_id", "a participant"),
		Status: oneOf(&q, "status", venue.AccountStatuses), Type: oneOf(&q, "type", venue.AccountTypes)}
	if err := q.v.Err(); err != nil {
		return err
	}
	l, err := s.use(r).Accounts(r.Context(), p, f, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, wire.AccountRecordOf)
	return nil
}

func (s *Server) listUsers(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := query{Values: r.URL.Query()}
	page := q.page()
	f := trading.UserFilter{ParticipantID: q.id("participant_id", "a participant"),
		Role: oneOf(&q, "role", venue.Roles), Status: oneOf(&q, "status", venue.UserStatuses)}
	if err := q.v.Err(); err != nil {
		return err
	}
	l, err := s.use(r).Users(r.Context(), p, f, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, wire.UserRecordOf)
	return nil
}

func (s *Server) listMarkets(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := query{Values: r.URL.Query()}
	page := q.page()
	f := trading.MarketFilter{FacilityType: oneOf(&q, "facility_type", venue.FacilityTypes), IsEnabled: q.boolean("is_enabled")}
	if err := q.v.Err(); err != nil {
		return err
	}
	l, err := s.use(r).Markets(r.Context(), p, f, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, func(m venue.Market) wire.Market { return wire.MarketInPhase(m, s.use(r).Phase(m)) })
	return nil
}

func (s *Server) getMarket(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	m, err := s.use(r).Market(r.Context(), p, r.PathValue("marketId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.MarketInPhase(m, s.use(r).Phase(m)))
	return nil
}

func (s *Server) listInstruments(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := query{Values: r.URL.Query()}
	page := q.page()
	f := trading.InstrumentFilter{MarketID: q.id("market_id", "a market"), BucketID: q.id("bucket_id", "a bucket"),
		ISIN: q.Get("isin"), Currency: q.Get("currency")}
	if err := q.v.Err(); err != nil {
		return err
	}
	l, err := s.use(r).Instruments(r.Context(), p, f, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, wire.InstrumentOf)
	return nil
}

func (s *Server) getInstrument(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	depth := feed.DefaultDepth
	if v := r.URL.Query().Get("market_depth"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1000 {
			return venue.InvalidField("market_depth", "must be an integer between 0 (all) and 1000")
		}
		depth = n
	}
	d, err := s.use(r).Instrument(r.Context(), p, r.PathValue("instrument_id"), depth)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.InstrumentDetailOf(d))
	return nil
}

func (s *Server) listNews(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	page, err := pageParams(r.URL.Query())
	if err != nil {
		return err
	}
	l, err := s.use(r).News(r.Context(), p, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, wire.NewsOf)
	return nil
}

func (s *Server) listRiskLimits(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	ls, err := s.use(r).RiskLimits(r.Context(), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapSlice(ls, wire.RiskLimitUseOf))
	return nil
}

// bucketBody is the bucket create body (a whole Bucket record; only name,
// is_enabled, type, participant_id and the instrument ids are read).
type bucketBody struct {
	Name          *string `json:"name"`
	Type          *string `json:"type"`
	ParticipantID *string `json:"participant_id"`
	IsEnabled     *bool   `json:"is_enabled"`
	Instruments   *[]struct {
		ID string `json:"id"`
	} `json:"instruments"`
}

func (b bucketBody) input() trading.BucketInput {
	in := trading.BucketInput{Name: b.Name, Type: b.Type, ParticipantID: b.ParticipantID, IsEnabled: b.IsEnabled}
	if b.Instruments != nil {
		ids := make([]string, 0, len(*b.Instruments))
		for _, i := range *b.Instruments {
			ids = append(ids, i.ID)
		}
		in.InstrumentIDs = &ids
	}
	return in
}

func (s *Server) createBucket(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body bucketBody
	if err := decode(r, &body); err != nil {
		return err
	}
	in := body.input()
	in.Type = nil // server-owned: a participant's bucket is private (the document: ignored)
	b, err := s.use(r).CreateBucket(r.Context(), p, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, wire.BucketOf(b))
	return nil
}

func (s *Server) listBuckets(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := query{Values: r.URL.Query()}
	page := q.page()
	f := trading.BucketFilter{Type: oneOf(&q, "type", venue.BucketTypes), IsEnabled: q.boolean("is_enabled")}
	if err := q.v.Err(); err != nil {
		return err
	}
	l, err := s.use(r).Buckets(r.Context(), p, f, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, wire.BucketOf)
	return nil
}

// entity decodes the spec's update body {"entity": {...}} into v.
func entity(r *http.Request, v any) error {
	var body struct {
		Entity json.RawMessage `json:"entity"`
	}
	if err := decode(r, &body); err != nil {
		return err
	}
	if len(body.Entity) == 0 || string(body.Entity) == "null" {
		return venue.InvalidField("entity", `is required: send {"entity": {…the changed fields…}}`)
	}
	return decodeBytes(body.Entity, v)
}

func (s *Server) updateBucket(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body bucketBody
	if err := entity(r, &body); err != nil {
		return err
	}
	in := body.input()
	in.Type, in.ParticipantID = nil, nil // server-owned on update
	b, err := s.use(r).UpdateBucket(r.Context(), p, r.PathValue("bucketId"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.BucketOf(b))
	return nil
}

func (s *Server) listProviders(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := query{Values: r.URL.Query()}
	page := q.page()
	f := trading.ProviderFilter{ParticipantID: q.id("participant_id", "a participant"),
		AccountID: q.id("account_id", "an account"), Enabled: q.boolean("enabled")}
	if err := q.v.Err(); err != nil {
		return err
	}
	l, err := s.use(r).SettlementProviders(r.Context(), p, f, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, wire.ProviderOf)
	return nil
}

func (s *Server) accountDefaultProvider(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	v, err := s.use(r).SetAccountDefaultProvider(r.Context(), p, r.PathValue("id"), r.PathValue("accountId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ProviderOf(v))
	return nil
}

func (s *Server) participantDefaultProvider(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	v, err := s.use(r).SetParticipantDefaultProvider(r.Context(), p, r.PathValue("id"), r.PathValue("participantId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ProviderOf(v))
	return nil
}

// onPathID adapts a use case on the one record the path's {param} names:
// it answers 200 with the record's view for the caller.
func onPathID[T, J any](s *Server, param string, use func(*trading.Service, context.Context, venue.Principal, string) (T, error),
	view func(T) J) authedFunc {
	return func(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
		v, err := use(s.use(r), r.Context(), p, r.PathValue(param))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, view(v)) // the use case answered it as the caller may see it
		return nil
	}
}
