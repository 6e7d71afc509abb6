package httpapi_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/socketio"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// asyncControl are the messages of every namespace besides its events:
// subscription and resync_required, which the server emits itself, and
// connect_error, the packet that refuses a connect.
var asyncControl = []string{"subscription", "resync_required", "connect_error"}

// TestAsyncAPIDocument checks the AsyncAPI document of the live streams
// against the server that serves them: GET /api/v1/asyncapi.json answers
// an AsyncAPI 3.0.0 document of the OpenAPI document's version with a ws
// server at /socket.io/; every $ref in it resolves; its channels are the
// namespaces socketio serves (socketio.Namespaces), each with a message
// for every event type the namespace emits, the control messages and
// nothing else, and with one receive operation over exactly those
// messages; every message example validates against the message's
// schemas; the auth object's intervals are the bar intervals of trading.
func TestAsyncAPIDocument(t *testing.T) {
	shared(t, func(t *testing.T, v *env) {
		d := loadAsyncAPI(t, v)

		if got := d.root["asyncapi"]; got != "3.0.0" {
			t.Errorf("asyncapi = %v, want 3.0.0", got)
		}
		oa, err := document()
		if err != nil {
			t.Fatal(err)
		}
		if got := d.path(t, "info", "version"); got != oa.Info.Version {
			t.Errorf("info.version = %v, want the OpenAPI document's %s", got, oa.Info.Version)
		}
		servers, _ := d.root["servers"].(map[string]any)
		if len(servers) == 0 {
			t.Error("no servers")
		}
		for id, s := range servers {
			s, _ := s.(map[string]any)
			if s["protocol"] != "ws" || s["pathname"] != "/socket.io/" || s["host"] == nil {
				t.Errorf("server %s = %v, want protocol ws, pathname /socket.io/ and a host", id, s)
			}
		}

		// Every reference resolves.
		refs := 0
		walkJSON(d.root, func(m map[string]any) {
			if ref, ok := m["$ref"].(string); ok {
				refs++
				if _, err := d.resolve(ref); err != nil {
					t.Errorf("$ref %s does not resolve: %v", ref, err)
				}
			}
		})
		if refs < 50 {
			t.Errorf("%d references in the document, want the channels' messages, payloads and schemas", refs)
		}

		// The channels are the namespaces, with the events each emits.
		ns := socketio.Namespaces()
		for nsp := range ns {
			if d.channels[nsp] == nil {
				t.Errorf("namespace %s has no channel", nsp)
			}
		}
		for nsp, ch := range d.channels {
			types, ok := ns[nsp]
			if !ok {
				t.Errorf("channel %s: the server has no such namespace", ch.id)
				continue
			}
			for name := range ch.messages {
				if !slices.Contains(asyncControl, name) && !emits(types, name) {
					t.Errorf("channel %s has message %s, which %s does not emit (it emits %v)", ch.id, name, nsp, types)
				}
			}
			for _, typ := range types {
				if !slices.ContainsFunc(slices.Collect(maps.Keys(ch.messages)), func(name string) bool { return emits([]string{typ}, name) }) {
					t.Errorf("channel %s has no message for %s, which %s emits", ch.id, typ, nsp)
				}
			}
			for _, name := range asyncControl {
				if ch.messages[name] == nil {
					t.Errorf("channel %s has no %s message", ch.id, name)
				}
			}
		}

		// One receive operation per channel, over exactly its messages.
		ops := map[string]int{}
		operations, _ := d.root["operations"].(map[string]any)
		for id, o := range operations {
			o, _ := o.(map[string]any)
			ref, _ := d.pathIn(o, "channel", "$ref").(string)
			chID, _ := strings.CutPrefix(ref, "#/channels/")
			ch := d.byID[chID]
			if o["action"] != "receive" || ch == nil {
				t.Errorf("operation %s: action %v on %s, want receive on a channel", id, o["action"], ref)
				continue
			}
			ops[chID]++
			var got []string
			list, _ := o["messages"].([]any)
			for _, m := range list {
				r, _ := m.(map[string]any)["$ref"].(string)
				got = append(got, r)
			}
			var want []string
			for _, key := range ch.keys {
				want = append(want, "#/channels/"+chID+"/messages/"+key)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("operation %s: messages %v, want the channel's %v", id, got, want)
			}
		}
		for id := range d.byID {
			if ops[id] != 1 {
				t.Errorf("channel %s has %d operations, want one receive", id, ops[id])
			}
		}

		// Every example validates.
		examples := 0
		for name, m := range d.messages(t) {
			list, _ := m["examples"].([]any)
			for i, ex := range list {
				ex, _ := ex.(map[string]any)
				if p, ok := ex["payload"]; ok {
					examples++
					if err := d.validate(m["payload"], p); err != nil {
						t.Errorf("message %s, example %d: payload: %v", name, i, err)
					}
				}
				if h, ok := ex["headers"]; ok {
					if err := d.validate(m["headers"], h); err != nil {
						t.Errorf("message %s, example %d: headers: %v", name, i, err)
					}
					if h.(map[string]any)["type"] != name {
						t.Errorf("message %s, example %d: meta.type %v", name, i, h.(map[string]any)["type"])
					}
				}
			}
		}
		if examples == 0 {
			t.Error("no message examples checked")
		}

		// The bar intervals /ohlc accepts.
		var intervals []string
		for _, x := range d.path(t, "components", "schemas", "SocketAuth", "properties", "interval", "enum").([]any) {
			intervals = append(intervals, fmt.Sprint(x))
		}
		if !slices.Equal(intervals, subscribe.BarIntervals()) {
			t.Errorf("SocketAuth.interval enum = %v, want %v", intervals, subscribe.BarIntervals())
		}
	})
}

// TestAsyncAPIRecords follows the operator's feed through a scenario that
// produces every kind of event the venue has (offers, RFQs and quotes
// created, updated and deleted; trades and their orders; an allocation;
// price changes; an indicative price created, updated and deleted; news)
// and checks each
// event against the document on every namespace that delivers it
// (socketio.Namespaces): the channel has its message, and the record and
// its meta validate against the message's payload and headers. An OHLC bar
// of the trades validates against /ohlc's ohlc.update. Each event message
// of the document must occur, so the document lists no event the server
// does not send. A broken record must fail the validation.
func TestAsyncAPIRecords(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		d := loadAsyncAPI(t, v)
		x := newTV(t, v)
		after, err := v.core.Live.LastEventSeq(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		sub, err := v.core.Live.Subscribe(t.Context(), v.principal(operator), after, feed.EventFilter{})
		if err != nil {
			t.Fatalf("Subscribe = %v", err)
		}
		t.Cleanup(sub.Close)
		feed := &feedLog{}
		go feed.read(sub)

		in, other := x.ins[0], x.ins[1]
		// Offers: created, amended, filled in part (a trade), cancelled.
		bid := x.create(t, trader(0), offer(in, x.book, "bid", "99", "100000"))
		x.obj(t, trader(0), "PUT", offersPath+"/"+id(bid), entity("quantity", "200000"), http.StatusOK)
		x.create(t, trader(1), offer(in, x.book, "ask", "99", "50000"))
		x.obj(t, trader(0), "DELETE", offersPath+"/"+id(bid), nil, http.StatusOK)
		// An RFQ amended, quoted twice, a quote amended and one accepted.
		rfq := obj{"instrument_id": other, "market_id": x.otc, "direction": "bid", "quantity": "1000000"}
		r := x.rfq(t, trader(0), rfq)
		x.obj(t, trader(0), "PUT", rfqPath+"/"+id(r), entity("notes", "size is firm"), http.StatusOK)
		quote := func(w who, r obj, price string) obj {
			return x.create(t, w, obj{"instrument_id": other, "market_id": x.otc, "direction": "ask", "price_per_unit": price,
				"quantity": "1000000", "matched_offer_id": id(r)})
		}
		q1, q2 := quote(trader(1), r, "100"), quote(trader(2), r, "101")
		x.obj(t, trader(2), "PUT", offersPath+"/"+id(q2), entity("price_per_unit", "100.5"), http.StatusOK)
		tr := x.obj(t, trader(0), "PUT", offersPath+"/"+id(q1)+"/accept", nil, http.StatusOK)
		// The buyer allocates its side to two accounts.
		x.obj(t, trader(0), "POST", "/api/v1/trades/"+id(tr)+"/allocations", obj{"allocations": []obj{
			{"account_id": v.creds.Participants[0].AccountIDs[1], "quantity": "600000"},
			{"account_id": v.creds.Participants[0].AccountIDs[2], "quantity": "400000"}}}, http.StatusOK)
		// Another RFQ: its quote withdrawn, then the RFQ cancelled.
		r2 := x.rfq(t, trader(0), rfq)
		x.obj(t, trader(1), "DELETE", offersPath+"/"+id(quote(trader(1), r2, "100")), nil, http.StatusOK)
		x.obj(t, trader(0), "DELETE", rfqPath+"/"+id(r2), nil, http.StatusOK)
		// A portfolio RFQ quoted and traded; another cancelled.
		list := obj{"market_id": x.otc, "counterparties": []string{x.participant(1)}, "lines": []obj{
			{"instrument_id": other, "direction": "bid", "quantity": "1000000"}, {"instrument_id": in, "direction": "ask", "quantity": "500000"}}}
		pr := x.obj(t, trader(0), "POST", portfolioPath, list, http.StatusOK)
		pq := x.obj(t, trader(1), "POST", portfolioPath+"/"+id(pr)+"/quotes", obj{"lines": []obj{
			{"line_id": "1", "price_per_unit": "100.1"}, {"line_id": "2", "price_per_unit": "99.9"}}}, http.StatusOK)
		x.send(t, trader(0), "PUT", portfolioPath+"/"+id(pr)+"/quotes/"+id(pq["quotes"].([]any)[0].(obj))+"/accept", nil, http.StatusOK, nil)
		x.obj(t, trader(0), "DELETE", portfolioPath+"/"+id(x.obj(t, trader(0), "POST", portfolioPath, list, http.StatusOK)), nil, http.StatusOK)
		// An indicative price published, changed and withdrawn; news.
		ip := x.obj(t, trader(1), "POST", indicativePath, obj{"instrument_id": in, "account_id": x.account(1), "bid_price": "98",
			"ask_price": "99.5"}, http.StatusOK)
		x.obj(t, trader(1), "PUT", indicativePath+"/"+id(ip), entity("bid_price", "98.25"), http.StatusOK)
		x.obj(t, trader(1), "DELETE", indicativePath+"/"+id(ip), nil, http.StatusOK)
		x.obj(t, operator, "POST", "/api/v1/admin/news", obj{"title": "Auction results", "body": "Results."}, http.StatusOK)
		// A firm's kill switch on (cancelling its resting bid) and off.
		x.create(t, trader(2), offer(in, x.book, "bid", "90", "100000"))
		kill := "/api/v1/admin/participants/" + x.participant(2) + "/kill-switch"
		x.obj(t, operator, "PUT", kill, obj{"enabled": true, "reason": "runaway algorithm"}, http.StatusOK)
		x.obj(t, operator, "PUT", kill, obj{"enabled": false, "reason": "desk back"}, http.StatusOK)
		// An instrument halted on a market, and let trade again.
		halt := "/api/v1/admin/markets/" + x.book + "/instruments/" + x.ins[2] + "/halt"
		x.obj(t, operator, "PUT", halt, obj{"halted": true, "reason": "pending announcement"}, http.StatusOK)
		x.obj(t, operator, "PUT", halt, obj{"halted": false}, http.StatusOK)
		// The market with trading hours closes (17:30 in Frankfurt, 16:30
		// UTC): the next order the engine takes announces it.
		v.clock.Advance(time.Date(2026, 11, 20, 16, 30, 0, 0, time.UTC).Sub(v.clock.Now()))
		for _, w := range everyone {
			v.signInAgain(w)
		}
		x.refused(t, trader(1), "POST", offersPath, offer(in, x.hours, "bid", "99", "100000"), http.StatusConflict)

		logged := x.list(t, operator, fmt.Sprintf("/api/v1/events?after=%d&limit=1000", after))
		evs := feed.await(t, operator, len(logged))

		ns := socketio.Namespaces()
		delivered := map[string]int{} // "namespace event" → records checked
		var anOffer map[string]any
		for _, e := range evs {
			rec := jsonValue(t, wire.RecordOf(e))
			meta := jsonValue(t, map[string]any{"seq": e.Seq, "type": e.Type, "occurred_at": wire.Time(e.OccurredAt)})
			for nsp, types := range ns {
				if emits(types, e.Type) {
					d.checkRecord(t, nsp, e.Type, rec, meta)
					delivered[nsp+" "+e.Type]++
				}
			}
			if e.Type == "offer.create" {
				anOffer = rec.(map[string]any)
			}
		}

		// The bar /ohlc emits after the book's trade.
		bars, err := v.core.Live.OHLC(t.Context(), v.principal(operator), in, subscribe.OHLCQuery{Interval: "1m", MarketID: x.book})
		if err != nil || len(bars) == 0 {
			t.Fatalf("OHLC = %v bars, %v; want the trade's", len(bars), err)
		}
		seq := evs[len(evs)-1].Seq
		for nsp, types := range ns {
			if emits(types, "ohlc.update") {
				d.checkRecord(t, nsp, "ohlc.update", jsonValue(t, wire.BarOf(bars[len(bars)-1])),
					jsonValue(t, map[string]any{"seq": seq, "type": "ohlc.update", "occurred_at": wire.Time(pinned)}))
				delivered[nsp+" ohlc.update"]++
			}
		}

		for nsp, ch := range d.channels {
			for name := range ch.messages {
				if !slices.Contains(asyncControl, name) && delivered[nsp+" "+name] == 0 {
					t.Errorf("channel %s documents %s, which the scenario did not deliver there", ch.id, name)
				}
			}
		}

		// The validation can fail.
		if anOffer == nil {
			t.Fatal("no offer.create record")
		}
		payload := d.channels["/offers"].messages["offer.create"]["payload"]
		for field, bad := range map[string]any{"status": "open", "quantity": nil, "id": 7} {
			broken := map[string]any{}
			for k, x := range anOffer {
				broken[k] = x
			}
			broken[field] = bad
			if err := d.validate(payload, broken); err == nil {
				t.Errorf("an offer with %s %v validates", field, bad)
			}
		}
	})
}

// asyncAPI is the served AsyncAPI document with its channels at hand.
type asyncAPI struct {
	root     map[string]any
	channels map[string]*asyncChannel // by address: the namespace
	byID     map[string]*asyncChannel
}

type asyncChannel struct {
	id       string
	messages map[string]map[string]any // by name (the event), resolved
	keys     []string                  // the keys of the channel's messages
}

// loadAsyncAPI GETs the document and indexes its channels.
func loadAsyncAPI(t *testing.T, v *env) *asyncAPI {
	t.Helper()
	r := v.get(t, anon, "/api/v1/asyncapi.json", http.StatusOK)
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	d := &asyncAPI{channels: map[string]*asyncChannel{}, byID: map[string]*asyncChannel{}}
	r.decode(t, &d.root)
	channels, ok := d.root["channels"].(map[string]any)
	if !ok || len(channels) == 0 {
		t.Fatalf("no channels in %.300s", r.body)
	}
	for id, c := range channels {
		c, _ := c.(map[string]any)
		addr, _ := c["address"].(string)
		if d.channels[addr] != nil {
			t.Errorf("channels %s and %s have address %q", d.channels[addr].id, id, addr)
		}
		ch := &asyncChannel{id: id, messages: map[string]map[string]any{}}
		msgs, _ := c["messages"].(map[string]any)
		for key, m := range msgs {
			msg, err := d.object(m)
			if err != nil {
				t.Fatalf("channel %s, message %s: %v", id, key, err)
			}
			name, _ := msg["name"].(string)
			if name != key {
				t.Errorf("channel %s: message %s is named %q", id, key, name)
			}
			ch.messages[name] = msg
			ch.keys = append(ch.keys, key)
		}
		d.channels[addr], d.byID[id] = ch, ch
	}
	return d
}

// messages returns every message of the document's channels by name.
func (d *asyncAPI) messages(t *testing.T) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, ch := range d.channels {
		for name, m := range ch.messages {
			out[name] = m
		}
	}
	return out
}

// checkRecord validates an event's record and meta against its message on
// namespace nsp.
func (d *asyncAPI) checkRecord(t *testing.T, nsp, event string, rec, meta any) {
	t.Helper()
	ch := d.channels[nsp]
	if ch == nil {
		t.Errorf("%s delivers %s, and has no channel", nsp, event)
		return
	}
	m := ch.messages[event]
	if m == nil {
		t.Errorf("%s delivers %s, which its channel has no message for", nsp, event)
		return
	}
	if err := d.validate(m["payload"], rec); err != nil {
		t.Errorf("%s %s: the record does not match the payload schema: %v\n%v", nsp, event, err, rec)
	}
	if err := d.validate(m["headers"], meta); err != nil {
		t.Errorf("%s %s: meta does not match the headers schema: %v\n%v", nsp, event, err, meta)
	}
}

// resolve follows a reference into the document (a JSON pointer).
func (d *asyncAPI) resolve(ref string) (any, error) {
	ptr, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, fmt.Errorf("not a reference into the document")
	}
	var cur any = d.root
	for _, tok := range strings.Split(ptr, "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("no %q", tok)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("no item %q", tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("%q inside a %T", tok, cur)
		}
	}
	return cur, nil
}

// object returns v, an object or a reference to one, resolved.
func (d *asyncAPI) object(v any) (map[string]any, error) {
	for range 10 {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%T, not an object", v)
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, nil
		}
		var err error
		if v, err = d.resolve(ref); err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
	}
	return nil, fmt.Errorf("references too deep")
}

// path returns the value at keys from the document's root.
func (d *asyncAPI) path(t *testing.T, keys ...string) any {
	t.Helper()
	v := d.pathIn(d.root, keys...)
	if v == nil {
		t.Fatalf("document has no %s", strings.Join(keys, "."))
	}
	return v
}

func (d *asyncAPI) pathIn(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// inline returns schema v with every reference replaced by its target.
func (d *asyncAPI) inline(v any, depth int) (any, error) {
	if depth > 50 {
		return nil, fmt.Errorf("references nest too deep (a cycle?)")
	}
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			target, err := d.resolve(ref)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ref, err)
			}
			return d.inline(target, depth+1)
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			c, err := d.inline(x, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			c, err := d.inline(x, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

// validate checks value (decoded JSON) against a schema of the document,
// as JSON Schema (kin-openapi's JSON Schema 2020-12 validator, which reads
// the draft-07 subset the document uses alike).
func (d *asyncAPI) validate(schema, value any) error {
	if schema == nil {
		return fmt.Errorf("no schema")
	}
	in, err := d.inline(schema, 0)
	if err != nil {
		return err
	}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	var s openapi3.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	return s.VisitJSON(value, openapi3.EnableJSONSchema2020())
}

// emits reports whether a namespace that emits types (socketio.Namespaces:
// event types, or families ending in a dot) emits event typ, matched as
// feed.EventFilter matches them.
func emits(types []string, typ string) bool {
	return slices.ContainsFunc(types, func(t string) bool {
		return t == typ || (strings.HasSuffix(t, ".") && strings.HasPrefix(typ, t))
	})
}

// jsonValue is v as encoding/json renders and decodes it.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// walkJSON calls fn on every object in v.
func walkJSON(v any, fn func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		fn(v)
		for _, x := range v {
			walkJSON(x, fn)
		}
	case []any:
		for _, x := range v {
			walkJSON(x, fn)
		}
	}
}
