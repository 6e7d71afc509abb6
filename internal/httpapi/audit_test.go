package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bondvenue/bondvenue/internal/audit"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// auditedWrite is a write the audit trail records: the matrix's request of
// one caller on one object that succeeds, and the entry it must write.
type auditedWrite struct {
	caller     who
	obj        string
	action     string
	entityType string
	// entity is the entity's id, from the request's path and its answer.
	entity           func(f *fixture, path string, answer map[string]any) string
	created, deleted bool // no state before, or after
}

func answerField(name string) func(*fixture, string, map[string]any) string {
	return func(_ *fixture, _ string, answer map[string]any) string { s, _ := answer[name].(string); return s }
}

// pathPart is the n-th segment of the path (after /api/v1/).
func pathPart(n int) func(*fixture, string, map[string]any) string {
	return func(_ *fixture, path string, _ map[string]any) string {
		p, _, _ := strings.Cut(strings.TrimPrefix(path, "/api/v1/"), "?")
		return strings.Split(p, "/")[n]
	}
}

// auditedWrites are every write the trail records, by route: each route of
// routes.go that s.reasoned wraps, and every write under /admin.
var auditedWrites = map[string]auditedWrite{
	"PUT /api/v1/participant/kill-switch": {caller: admin(0), obj: noObject, action: "killswitch.set", entityType: "kill_switch",
		entity: func(f *fixture, _ string, _ map[string]any) string { return f.v.participant(0) }},
	"PUT /api/v1/participant/buckets/{bucketId}": {caller: operator, obj: publicObject, action: "bucket.update", entityType: "bucket",
		entity: answerField("id")},
	"DELETE /api/v1/participant/buckets/{bucketId}": {caller: operator, obj: ownObject, action: "bucket.delete", entityType: "bucket",
		entity: answerField("id"), deleted: true},
	"PUT /api/v1/settlement-providers/{id}/toggle": {caller: admin(0), obj: ownObject, action: "settlement_provider.toggle",
		entityType: "settlement_provider", entity: answerField("id")},
	"PUT /api/v1/settlement-providers/{id}/account/{accountId}/default": {caller: admin(0), obj: ownObject,
		action: "account.default_provider", entityType: "account", entity: pathPart(3)},
	"PUT /api/v1/settlement-providers/{id}/participant/{participantId}/default": {caller: admin(0), obj: ownObject,
		action: "participant.default_provider", entityType: "participant", entity: pathPart(3)},
	"POST /api/v1/admin/participants": {caller: operator, obj: noObject, action: "participant.create", entityType: "participant",
		entity: answerField("id"), created: true},
	"PUT /api/v1/admin/participants/{participantId}": {caller: operator, obj: otherObject, action: "participant.update",
		entityType: "participant", entity: answerField("id")},
	"POST /api/v1/admin/accounts": {caller: operator, obj: ownObject, action: "account.create", entityType: "account",
		entity: answerField("id"), created: true},
	"POST /api/v1/admin/users": {caller: admin(0), obj: ownObject, action: "user.create", entityType: "user",
		entity: answerField("id"), created: true},
	"PUT /api/v1/admin/users/{userId}": {caller: admin(0), obj: ownObject, action: "user.update", entityType: "user",
		entity: answerField("id")},
	"POST /api/v1/admin/users/{userId}/credentials": {caller: admin(0), obj: ownObject, action: "credential.issue",
		entityType: "credential", entity: answerField("client_id"), created: true},
	"DELETE /api/v1/admin/credentials/{clientId}": {caller: operator, obj: cptyObject, action: "credential.revoke",
		entityType: "credential", entity: pathPart(2)},
	"PUT /api/v1/admin/counterparties": {caller: operator, obj: noObject, action: "counterparty.set", entityType: "counterparty",
		entity: func(_ *fixture, _ string, a map[string]any) string {
			return fmt.Sprintf("%s/%s", a["participant_id"], a["counterparty_id"])
		}},
	"PUT /api/v1/admin/participants/{participantId}/risk-limits/{name}": {caller: operator, obj: ownObject,
		action: "risk_limit.set", entityType: "risk_limit", entity: answerField("id")},
	"POST /api/v1/admin/settlement-providers": {caller: admin(0), obj: ownObject, action: "settlement_provider.create",
		entityType: "settlement_provider", entity: answerField("id"), created: true},
	"PUT /api/v1/admin/settlement-links": {caller: operator, obj: noObject, action: "settlement_links.set",
		entityType: "settlement_links", entity: func(*fixture, string, map[string]any) string { return "venue" }},
	"POST /api/v1/admin/markets": {caller: operator, obj: noObject, action: "market.create", entityType: "market",
		entity: answerField("id"), created: true},
	"PUT /api/v1/admin/markets/{marketId}": {caller: operator, obj: publicObject, action: "market.update", entityType: "market",
		entity: answerField("id")},
	"PUT /api/v1/admin/markets/{marketId}/instruments/{instrument_id}/halt": {caller: operator, obj: publicObject,
		action: "instrument.resume", entityType: "halt", entity: func(_ *fixture, path string, _ map[string]any) string {
			return pathPart(2)(nil, path, nil) + "/" + pathPart(4)(nil, path, nil)
		}},
	"PUT /api/v1/admin/participants/{participantId}/kill-switch": {caller: operator, obj: otherObject, action: "killswitch.set",
		entityType: "kill_switch", entity: pathPart(2)},
	"POST /api/v1/admin/instruments": {caller: operator, obj: noObject, action: "instrument.create", entityType: "instrument",
		entity: answerField("id"), created: true},
	"PUT /api/v1/admin/instruments/{instrument_id}": {caller: operator, obj: publicObject, action: "instrument.update",
		entityType: "instrument", entity: answerField("id")},
	"POST /api/v1/admin/buckets": {caller: operator, obj: noObject, action: "bucket.create", entityType: "bucket",
		entity: answerField("id"), created: true},
	"POST /api/v1/admin/news": {caller: operator, obj: noObject, action: "news.create", entityType: "news",
		entity: answerField("id"), created: true},
}

// TestAuditedWritesCoverRoutes: the table above names exactly the routes
// routes.go marks as audited, and those are every write under /admin.
func TestAuditedWritesCoverRoutes(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	reasoned := map[string]bool{}
	for _, m := range regexp.MustCompile(`m\.Handle\("([A-Z]+) "\+v1\+"([^"]*)", s\.authed\(s\.reasoned\(`).FindAllStringSubmatch(string(src), -1) {
		reasoned[m[1]+" /api/v1"+m[2]] = true
	}
	for _, rt := range routes(t) {
		key := rt.method + " " + rt.path
		if strings.HasPrefix(rt.path, "/api/v1/admin/") && rt.method != "GET" && !reasoned[key] {
			t.Errorf("%s changes the venue but is not marked s.reasoned in routes.go", key)
		}
	}
	for key := range reasoned {
		if _, ok := auditedWrites[key]; !ok {
			t.Errorf("%s is audited but has no row in auditedWrites", key)
		}
	}
	for key := range auditedWrites {
		if !reasoned[key] {
			t.Errorf("auditedWrites row %s is not an audited route of routes.go", key)
		}
	}
}

// auditLog reads the whole trail after seq through the API, as the
// operator, page by page.
func (v *env) auditLog(t *testing.T, query string, after int64) []wire.AuditEntry {
	t.Helper()
	var out []wire.AuditEntry
	for {
		r := v.get(t, operator, fmt.Sprintf("/api/v1/admin/audit-log?limit=1000&after=%d%s", after, query), 200)
		var page []wire.AuditEntry
		r.decode(t, &page)
		out = append(out, page...)
		if len(page) < 1000 {
			return out
		}
		after = page[len(page)-1].Seq
	}
}

// lastAuditSeq is the number of the trail's newest entry.
func (v *env) lastAuditSeq(t *testing.T) int64 {
	t.Helper()
	all := v.auditLog(t, "", 0)
	if len(all) == 0 {
		return 0
	}
	return all[len(all)-1].Seq
}

// withReason adds a reason to a request: in its body, or as the query
// parameter when it has none.
func withReason(path string, body any, reason string) (string, any) {
	if m, ok := body.(map[string]any); ok {
		out := map[string]any{"reason": reason}
		for k, v := range m {
			out[k] = v
		}
		return path, out
	}
	return path + "?reason=" + url.QueryEscape(reason), body
}

// TestAuditTrailWrites sends every audited write of the authorization
// matrix through the real server, once as a caller the matrix refuses
// (nothing is written) and once as one it lets through: exactly one entry
// is written, by that caller over REST, with the action, entity, states and
// reason of the change; and the trail verifies.
func TestAuditTrailWrites(t *testing.T) {
	rows := map[string]authzRow{}
	for _, row := range authzTable() {
		rows[row.route] = row
	}
	fresh(t, func(t *testing.T, v *env) {
		f := newFixture(t, v)
		routes := make([]string, 0, len(auditedWrites))
		for route := range auditedWrites {
			routes = append(routes, route)
		}
		sort.Strings(routes)
		for _, route := range routes {
			w, row := auditedWrites[route], rows[route]
			t.Run(route, func(t *testing.T) {
				method := methodOf(row, w.obj)
				// A viewer may change nothing: its refused request writes no
				// entry. (The request is built first: building it may make
				// records, which the trail records.)
				path, body := row.req(t, f, w.obj, viewer(0))
				before := v.lastAuditSeq(t)
				if r := v.do(t, viewer(0), method, path, body, nil); r.status != 403 && r.status != 404 {
					t.Fatalf("%s %s as a viewer: %d, want a refusal", method, path, r.status)
				}
				if got := v.auditLog(t, "", before); len(got) != 0 {
					t.Fatalf("a refused request wrote %d audit entries: %+v", len(got), got)
				}

				reason := "audit test: " + route
				path, body = row.req(t, f, w.obj, w.caller)
				path, body = withReason(path, body, reason)
				before = v.lastAuditSeq(t)
				r := v.do(t, w.caller, method, path, body, nil)
				if r.status != 200 && r.status != 202 {
					t.Fatalf("%s %s as %s: %d\n%s", method, path, w.caller, r.status, r.body)
				}
				var answer map[string]any
				_ = json.Unmarshal(r.body, &answer)
				got := v.auditLog(t, "", before)
				if len(got) != 1 {
					t.Fatalf("%s %s wrote %d audit entries, want 1: %+v", method, path, len(got), got)
				}
				e := got[0]
				want := wire.AuditEntry{Seq: before + 1, At: e.At, UserID: v.user(w.caller), Role: string(w.caller.role), Channel: "rest",
					Action: w.action, EntityType: w.entityType, EntityID: w.entity(f, path, answer), Before: e.Before, After: e.After,
					Reason: reason, PrevHash: e.PrevHash, Hash: e.Hash}
				if d := cmp.Diff(want, e); d != "" {
					t.Errorf("entry (-want +got):\n%s", d)
				}
				if (string(e.Before) == "null") != w.created || (string(e.After) == "null") != w.deleted {
					t.Errorf("entry before = %s, after = %s; want a state before unless created, after unless deleted", e.Before, e.After)
				}
			})
		}
		verifyTrail(t, v)
	})
}

// verifyTrail walks the whole trail as the API answers it through the
// chain's verification.
func verifyTrail(t *testing.T, v *env) {
	t.Helper()
	var c audit.Chain
	for _, w := range v.auditLog(t, "", 0) {
		at, err := time.Parse(audit.TimeLayout, w.At)
		if err != nil {
			t.Fatal(err)
		}
		e := audit.Entry{Seq: w.Seq, At: at, UserID: w.UserID, Role: w.Role, Channel: w.Channel, Action: w.Action,
			EntityType: w.EntityType, EntityID: w.EntityID, Reason: w.Reason, PrevHash: w.PrevHash, Hash: w.Hash}
		if string(w.Before) != "null" {
			e.Before = w.Before
		}
		if string(w.After) != "null" {
			e.After = w.After
		}
		if err := c.Add(e); err != nil {
			t.Fatalf("the trail as the API answers it breaks: %v", err)
		}
	}
	if c.Len() == 0 {
		t.Fatal("empty audit trail")
	}
}

// haltPath is the halt route of the demo's first instrument on its
// continuous market, and the route of its price collar there, which says
// whether it is halted.
func haltPath(t *testing.T, v *env) (halt, collar string) {
	t.Helper()
	book, ins := "", v.instruments(t)[0]
	for _, m := range v.markets(t) {
		if m.FacilityType != "OTC" && m.IsPartialFillAllowed {
			book = m.ID
		}
	}
	return "/api/v1/admin/markets/" + book + "/instruments/" + ins + "/halt",
		"/api/v1/instruments/" + ins + "/price-collar?market_id=" + book
}

// TestAuditHaltReason: the operator halts only with a reason — without one,
// or with a blank one, the answer is 400 naming reason, the instrument stays
// open and nothing is written — and the halt with its reason is written;
// a resume, and a kill switch on either route, need none and are written.
func TestAuditHaltReason(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		path, collar := haltPath(t, v)
		for _, body := range []map[string]any{{"halted": true}, {"halted": true, "reason": "  "}, {"halted": true, "reason": ""}} {
			before := v.lastAuditSeq(t)
			r := v.do(t, operator, "PUT", path, body, nil)
			if r.status != 400 || !strings.Contains(string(r.body), `"reason"`) {
				t.Errorf("halt with %v: %d %s, want 400 naming reason", body, r.status, r.body)
			}
			if got := v.auditLog(t, "", before); len(got) != 0 {
				t.Errorf("a refused halt wrote %d audit entries", len(got))
			}
			if c := v.get(t, trader(0), collar, 200).object(t); c["halted"] != false {
				t.Errorf("after a refused halt the collar reads %v, want not halted", c)
			}
		}
		steps := []struct {
			who    who
			method string
			path   string
			body   map[string]any
			action string
			reason string
			after  string
		}{
			{operator, "PUT", path, map[string]any{"halted": true, "reason": "issuer announcement pending"}, "instrument.halt",
				"issuer announcement pending", `"halted":true`},
			{operator, "PUT", path, map[string]any{"halted": false}, "instrument.resume", "", `"halted":false`},
			{operator, "PUT", "/api/v1/admin/participants/" + v.participant(1) + "/kill-switch", map[string]any{"enabled": true},
				"killswitch.set", "", `"enabled":true`},
			{admin(2), "PUT", "/api/v1/participant/kill-switch", map[string]any{"enabled": true}, "killswitch.set", "", `"enabled":true`},
			{admin(2), "PUT", "/api/v1/participant/kill-switch", map[string]any{"enabled": false, "reason": "desk back"},
				"killswitch.set", "desk back", `"enabled":false`},
		}
		for _, s := range steps {
			before := v.lastAuditSeq(t)
			if r := v.do(t, s.who, s.method, s.path, s.body, nil); r.status != 200 {
				t.Fatalf("%s %s %v as %s: %d %s", s.method, s.path, s.body, s.who, r.status, r.body)
			}
			got := v.auditLog(t, "", before)
			if len(got) != 1 || got[0].Action != s.action || got[0].Reason != s.reason || got[0].UserID != v.user(s.who) ||
				!strings.Contains(string(got[0].After), s.after) {
				t.Errorf("%s %s %v wrote %+v, want one %s entry by %s, reason %q, after with %s", s.method, s.path, s.body, got,
					s.action, s.who, s.reason, s.after)
			}
		}
		verifyTrail(t, v)
	})
}

// TestAuditLogFilters: the trail's list keeps the entries of a time window
// (from inclusive, to exclusive), of one type of entity or one entity, and
// pages in sequence order with a Link to the next page; bad filters are
// 400s naming them.
func TestAuditLogFilters(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		start := v.lastAuditSeq(t)
		market := v.markets(t)[0].ID
		if r := v.do(t, operator, "PUT", "/api/v1/admin/markets/"+market, map[string]any{"entity": map[string]any{"is_enabled": true}}, nil); r.status != 200 {
			t.Fatalf("update market: %d %s", r.status, r.body)
		}
		v.clock.Advance(time.Hour)
		v.signInAgain(operator) // the token has expired
		t2 := v.clock.Now()
		if r := v.do(t, operator, "PUT", "/api/v1/admin/participants/"+v.participant(0)+"/risk-limits/MAX_OFFER", map[string]any{"value": "1000000"}, nil); r.status != 200 {
			t.Fatalf("set risk limit: %d %s", r.status, r.body)
		}
		halt, _ := haltPath(t, v)
		if r := v.do(t, operator, "PUT", halt, map[string]any{"halted": true, "reason": "test"}, nil); r.status != 200 {
			t.Fatalf("halt: %d %s", r.status, r.body)
		}
		v.clock.Advance(time.Hour)
		v.signInAgain(operator)
		t3 := v.clock.Now()
		if r := v.do(t, operator, "PUT", "/api/v1/admin/markets/"+market, map[string]any{"entity": map[string]any{"is_enabled": true}}, nil); r.status != 200 {
			t.Fatalf("update market: %d %s", r.status, r.body)
		}
		iso := func(at time.Time) string { return url.QueryEscape(at.Format(time.RFC3339Nano)) }
		for _, tc := range []struct {
			query string
			want  []string // actions, in order
		}{
			{"", []string{"market.update", "risk_limit.set", "instrument.halt", "market.update"}},
			{"&from=" + iso(t2), []string{"risk_limit.set", "instrument.halt", "market.update"}},
			{"&to=" + iso(t2), []string{"market.update"}},
			{"&from=" + iso(t2) + "&to=" + iso(t3), []string{"risk_limit.set", "instrument.halt"}},
			{"&entity=market", []string{"market.update", "market.update"}},
			{"&entity=market:" + market, []string{"market.update", "market.update"}},
			{"&entity=market:" + v.markets(t)[1].ID, nil},
			{"&entity=halt", []string{"instrument.halt"}},
			{"&entity=risk_limit&from=" + iso(t3), nil},
		} {
			var got []string
			for _, e := range v.auditLog(t, tc.query, start) {
				got = append(got, e.Action)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("audit-log?after=%d%s (-want +got):\n%s", start, tc.query, d)
			}
		}
		r := v.get(t, operator, fmt.Sprintf("/api/v1/admin/audit-log?entity=market&limit=1&after=%d", start), 200)
		var page []wire.AuditEntry
		r.decode(t, &page)
		if len(page) != 1 || !strings.Contains(r.header.Get("Link"), fmt.Sprintf("after=%d", page[0].Seq)) ||
			!strings.Contains(r.header.Get("Link"), "entity=market") {
			t.Errorf("first page %+v, Link %q: want one entry and a Link after it, keeping the filter", page, r.header.Get("Link"))
		}
		for _, q := range []string{"entity=:x", "from=yesterday", "limit=0", "after=-1"} {
			if r := v.do(t, operator, "GET", "/api/v1/admin/audit-log?"+q, nil, nil); r.status != 400 {
				t.Errorf("audit-log?%s: %d, want 400", q, r.status)
			}
		}
	})
}
