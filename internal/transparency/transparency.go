// Package transparency holds the venue's post-trade transparency: when the
// public tape shows a trade's price and its size. A deferral table (data,
// deferrals.json; docs/guide.md, "The public tape") sorts each instrument
// into a class and each trade of a class into a size band, and the band
// says how long its price and its volume wait.
package transparency

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
)

//go:embed deferrals.json
var defaultTable []byte

// Table is a deferral table.
type Table struct {
	Name    string  `json:"name"`
	Classes []Class `json:"classes"`
	Bands   []Band  `json:"bands"`
}

// Class sorts instruments: the first class whose conditions an instrument
// meets is its class; a class without conditions takes every instrument.
type Class struct {
	Class string `json:"class"`
	// Industries, when set, are the instrument industries of the class.
	Industries []string `json:"industries,omitempty"`
	// MinAmtIssue, when set, is the least issued amount of the class.
	MinAmtIssue string `json:"min_amt_issue,omitempty"`
	About       string `json:"about,omitempty"`
}

// Band is a size band of a class: trades of From or more (up to the next
// band's From) wait Price before their price shows and Volume before their
// size does. A delay is "now", minutes ("15m"), "eod" (the end of the
// trading day: 19:00 on the trade date in the market's time zone, or 09:00 on
// the next TARGET2 business day for a trade after 19:00), or weeks ("2w":
// 19:00 there on the trade date that many weeks on, moved
// to the next TARGET2 business day).
type Band struct {
	ID     string `json:"id"`
	Class  string `json:"class"`
	From   string `json:"from"`
	Price  string `json:"price"`
	Volume string `json:"volume"`
	from   udecimal.Decimal
}

var delay = regexp.MustCompile(`^(now|eod|[1-9][0-9]{0,3}m|[1-9][0-9]?w)$`)

// Default is the deferral table the venue ships: the 2026 bond regime's
// shape, as deferrals.json calibrates it.
func Default() *Table {
	t, err := Parse(defaultTable)
	if err != nil {
		panic(err) // the embedded table is checked by the package's tests
	}
	return t
}

// Parse reads and checks a deferral table.
func Parse(data []byte) (*Table, error) {
	var t Table
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&t); err != nil {
		return nil, fmt.Errorf("deferral table: %w", err)
	}
	classes := map[string]bool{}
	for _, c := range t.Classes {
		if c.Class == "" || classes[c.Class] {
			return nil, fmt.Errorf("deferral table: class %q is empty or listed twice", c.Class)
		}
		if c.MinAmtIssue != "" {
			if _, err := udecimal.Parse(c.MinAmtIssue); err != nil {
				return nil, fmt.Errorf("deferral table: class %s: min_amt_issue %q: %w", c.Class, c.MinAmtIssue, err)
			}
		}
		classes[c.Class] = true
	}
	if n := len(t.Classes); n == 0 || len(t.Classes[n-1].Industries) > 0 || t.Classes[n-1].MinAmtIssue != "" {
		return nil, fmt.Errorf("deferral table: the last class must take every instrument (no conditions)")
	}
	zero := map[string]bool{}
	for i := range t.Bands {
		b := &t.Bands[i]
		var err error
		if b.from, err = udecimal.Parse(b.From); err != nil || b.from.IsNeg() {
			return nil, fmt.Errorf("deferral table: band %s: from %q is not a nominal", b.ID, b.From)
		}
		if !classes[b.Class] || b.ID == "" || !delay.MatchString(b.Price) || !delay.MatchString(b.Volume) {
			return nil, fmt.Errorf("deferral table: band %q: needs an id, a known class and delays of now, Nm, eod or Nw", b.ID)
		}
		if wait(b.Price) > wait(b.Volume) {
			return nil, fmt.Errorf("deferral table: band %s: the price may not wait longer than the volume", b.ID)
		}
		zero[b.Class] = zero[b.Class] || b.from.IsZero()
	}
	for c := range classes {
		if !zero[c] {
			return nil, fmt.Errorf("deferral table: class %s has no band from 0", c)
		}
	}
	// Each class's bands by size, largest first, for the lookup.
	slices.SortStableFunc(t.Bands, func(a, b Band) int { return b.from.Cmp(a.from) })
	return &t, nil
}

// wait orders delays for the table's check.
func wait(d string) int {
	switch {
	case d == "now":
		return 0
	case d == "eod":
		return 1_000_000
	case d[len(d)-1] == 'm':
		n, _ := strconv.Atoi(d[:len(d)-1])
		return n
	}
	n, _ := strconv.Atoi(d[:len(d)-1])
	return 2_000_000 + n
}

// ClassOf is an instrument's class.
func (t *Table) ClassOf(in venue.Instrument) string {
	for _, c := range t.Classes {
		if len(c.Industries) > 0 && !slices.Contains(c.Industries, in.Terms.Industry) {
			continue
		}
		if c.MinAmtIssue != "" {
			amt, err := udecimal.Parse(in.Terms.AmtIssue)
			if err != nil || amt.LessThan(udecimal.MustParse(c.MinAmtIssue)) {
				continue
			}
		}
		return c.Class
	}
	return t.Classes[len(t.Classes)-1].Class
}

// Publication is when a trade of quantity in in made at tradeTime shows on
// the public tape.
func (t *Table) Publication(in venue.Instrument, quantity udecimal.Decimal, tradeTime time.Time, loc *time.Location) venue.Publication {
	class := t.ClassOf(in)
	for _, b := range t.Bands {
		if b.Class == class && quantity.GreaterThanOrEqual(b.from) {
			return venue.Publication{Deferral: b.ID, PriceDueAt: due(b.Price, tradeTime, loc), VolumeDueAt: due(b.Volume, tradeTime, loc)}
		}
	}
	return venue.Publication{PriceDueAt: tradeTime, VolumeDueAt: tradeTime} // unreachable: every class has a band from 0
}

// due is when a delay ends for a trade at at on a market in time zone
// loc (its trading day ends at 19:00 there).
func due(d string, at time.Time, loc *time.Location) time.Time {
	at = at.UTC()
	switch {
	case d == "now":
		return at
	case d == "eod":
		local := at.In(loc)
		y, m, dd := local.Date()
		close := time.Date(y, m, dd, 19, 0, 0, 0, loc)
		if at.Before(close) {
			return close.UTC()
		}
		next := bondmath.TARGET2.AddBusinessDays(bondmath.MustDate(y, m, dd), 1).Time()
		return time.Date(next.Year(), next.Month(), next.Day(), 9, 0, 0, 0, loc).UTC()
	case d[len(d)-1] == 'm':
		n, _ := strconv.Atoi(d[:len(d)-1])
		return at.Add(time.Duration(n) * time.Minute)
	}
	n, _ := strconv.Atoi(d[:len(d)-1])
	y, m, dd := at.In(loc).Date()
	day := bondmath.MustDate(y, m, dd).AddDays(7 * n)
	adj := bondmath.TARGET2.Adjust(day, bondmath.Following).Time()
	return time.Date(adj.Year(), adj.Month(), adj.Day(), 19, 0, 0, 0, loc).UTC()
}
