package fix

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestRejectTable checks the error table of docs/fix-rules-of-engagement.md
// row by row against the one the gateway answers with: every kind has its
// row, each reason code is the documented one, and the text a client gets
// is the domain error's message (never an internal error's detail).
func TestRejectTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/fix-rules-of-engagement.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "## Errors")
	if start < 0 {
		t.Fatal("the rules of engagement have no Errors section")
	}
	rows := map[string][]string{} // row label → its four codes
	for _, line := range strings.Split(doc[start:], "\n") {
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if len(cells) != 5 || strings.HasPrefix(strings.TrimSpace(cells[1]), "-") || strings.Contains(cells[0], "Error kind") {
			continue
		}
		var codes []string
		for _, c := range cells[1:] {
			codes = append(codes, strings.Fields(c)[0]) // the code, before its name
		}
		rows[strings.TrimSpace(cells[0])] = codes
	}
	labels := map[venue.Kind]string{
		venue.KindInvalid:         "invalid input (400)",
		venue.KindUnauthenticated: "not authenticated (401)",
		venue.KindForbidden:       "forbidden (403)",
		venue.KindNotFound:        "not found (404)",
		venue.KindConflict:        "conflict (409)",
		venue.KindLimit:           "risk limit (422)",
		venue.KindMismatch:        "duplicate (422, reused key)",
		venue.KindRateLimited:     "rate limited (429)",
		venue.KindUnavailable:     "unavailable, not ready, internal (5xx)",
		venue.KindNotReady:        "unavailable, not ready, internal (5xx)",
		venue.KindInternal:        "unavailable, not ready, internal (5xx)",
		venue.KindTooLarge:        "invalid input (400)",
	}
	for kind, r := range rejects {
		label, ok := labels[kind]
		if !ok {
			t.Errorf("kind %d has a reject row in the code but no label in this test", kind)
			continue
		}
		doc, ok := rows[label]
		if !ok {
			t.Errorf("the rules of engagement have no row %q", label)
			continue
		}
		got := []string{r.OrdRejReason, r.CxlRejReason, r.BusinessReason, r.QuoteRejectReason}
		for i := range got {
			// The 5xx row documents "4 (0 for internal)" for 380.
			want := doc[i]
			if kind == venue.KindInternal && i == 2 {
				want = "0"
			}
			if got[i] != want {
				t.Errorf("%s, column %d: code %s, documented %s", label, i+1, got[i], want)
			}
		}
		// The text: the domain error's own message, or nothing of an
		// internal one.
		e := &venue.Error{Kind: kind, Message: "the message"}
		if _, text := rejectOf(e); kind == venue.KindInternal && text != "internal error" || kind != venue.KindInternal && text != "the message" {
			t.Errorf("%s: text %q", label, text)
		}
	}
	for _, kind := range []venue.Kind{venue.KindInvalid, venue.KindUnauthenticated, venue.KindForbidden, venue.KindNotFound,
		venue.KindConflict, venue.KindLimit, venue.KindMismatch, venue.KindRateLimited, venue.KindUnavailable,
		venue.KindTooLarge, venue.KindNotReady, venue.KindInternal} {
		if _, ok := rejects[kind]; !ok {
			t.Errorf("kind %d has no reject codes", kind)
		}
	}
	if r, text := rejectOf(errors.New("disk on fire")); text != "internal error" || r != rejects[venue.KindInternal] {
		t.Errorf("a plain error: %+v %q", r, text)
	}
}
