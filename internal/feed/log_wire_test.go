package feed_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// TestEventLogFollowsWire ties the event log's stored records
// (log.go) to the records wire renders from them. The two are kept
// apart on purpose, but a field added to one must be decided for the
// other: every JSON field of the wire record is carried by the log record
// under the same name, or is listed in wireOnly (derived when the event is
// read, with the reason); every field of the log record is rendered by
// wire, or is listed in logOnly (kept for the venue, not rendered). The
// lists are exact, so a stale entry fails too.
func TestEventLogFollowsWire(t *testing.T) {
	tests := []struct {
		log      string
		wire     any
		wireOnly map[string]string // JSON field → why the log need not carry it
		logOnly  map[string]string // JSON field → why wire does not render it
	}{
		{
			log:  "offer",
			wire: wire.Offer{},
			wireOnly: map[string]string{
				"price_per_unit_clean": "the price again (OfferOf), read from price",
				"price_per_unit":       "the price as the spec's limit-price object (OfferOf), read from price",
			},
			logOnly: map[string]string{
				"client_order_id": "the owner's latest FIX ClOrdID, which a restart must restore; not in the REST record",
				"price_change":    "the book's top after the batch (feed.Event.moved), an event of its own on the streams",
				"depth":           "the book's ladder after the batch (feed.Event.depth), an event of its own on the streams",
			},
		},
		{
			log:  "trade",
			wire: wire.TradeRecord{},
			wireOnly: map[string]string{
				"ask_order_id": "ask_order.id (TradeOf), read from the order",
				"bid_order_id": "bid_order.id (TradeOf), read from the order",
			},
			logOnly: map[string]string{
				"price_change": "the book's top after the batch (feed.Event.moved), an event of its own on the streams",
				"depth":        "the book's ladder after the batch (feed.Event.depth), an event of its own on the streams",
			},
		},
		{
			log:  "order",
			wire: wire.Order{},
			wireOnly: map[string]string{
				"price": "price_per_unit as a number (OrderOf), read from price_per_unit",
			},
		},
		{log: "indicative", wire: wire.IndicativePrice{}},
		{log: "news", wire: wire.News{}},
	}
	for _, tt := range tests {
		t.Run(tt.log, func(t *testing.T) {
			rec, ok := feed.LogRecords[tt.log]
			if !ok {
				t.Fatalf("LogRecords[%q] is missing", tt.log)
			}
			logFields, wireFields := jsonFields(reflect.TypeOf(rec)), jsonFields(reflect.TypeOf(tt.wire))
			if diff := cmp.Diff(sortedKeys(tt.wireOnly), minus(wireFields, logFields)); diff != "" {
				t.Errorf("%T fields the log record does not carry, against wireOnly (-want +got):\n%s\n"+
					"decide each new field's stored form in log.go, or list it as derived at read time", tt.wire, diff)
			}
			if diff := cmp.Diff(sortedKeys(tt.logOnly), minus(logFields, wireFields)); diff != "" {
				t.Errorf("log record %q fields %T does not render, against logOnly (-want +got):\n%s", tt.log, tt.wire, diff)
			}
		})
	}
}

// jsonFields lists the JSON names encoding/json writes for a struct type,
// with embedded structs' fields promoted.
func jsonFields(typ reflect.Type) []string {
	var out []string
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// minus is the sorted names of a that are not in b.
func minus(a, b []string) []string {
	out := []string{}
	for _, n := range a {
		if !slices.Contains(b, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func sortedKeys(m map[string]string) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
