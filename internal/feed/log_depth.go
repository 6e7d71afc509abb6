package feed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// The log keeps a book's ladder compactly. A busy book writes one with
// every batch that changes any of its top levels, up to MaxStreamDepth a
// side, so the field names of each level would be most of the row: each
// level is instead an array [offer_id, party, limit, quantity], party an
// index into the ladder's "parties" (a fifth element 1 marks a market
// order). A party is a participant with the CSD the offer settles at:
// "csds", when any is known, lists each party's. The row of an offer entered on a book 50 deep on both sides
// is about a third of what the same levels cost as objects.

// MarshalJSON writes l in the log's compact form.
func (l logDepth) MarshalJSON() ([]byte, error) {
	parties, csds := make([]string, 0, 4), make([]string, 0, 4)
	index := make(map[[2]string]int, 4)
	anyCSD := false
	party := func(id, csd string) int {
		i, ok := index[[2]string{id, csd}]
		if !ok {
			i = len(parties)
			index[[2]string{id, csd}] = i
			parties, csds = append(parties, id), append(csds, csd)
			anyCSD = anyCSD || csd != ""
		}
		return i
	}
	var levels [2][]byte
	for s, side := range [2][]logBest{l.Bid, l.Ask} {
		b := make([]byte, 0, 64*len(side)+2)
		b = append(b, '[')
		for i := range side {
			lv := &side[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendQuote(b, lv.OfferID)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(party(lv.ParticipantID, lv.CSD)), 10)
			b = append(b, ',')
			b = append(b, lv.Limit...)
			b = append(b, ',')
			b = append(b, lv.Quantity...)
			if lv.MarketOrder {
				b = append(b, ",1"...)
			}
			b = append(b, ']')
		}
		levels[s] = append(b, ']')
	}
	if !anyCSD {
		csds = nil
	}
	head, err := json.Marshal(struct {
		InstrumentID string   `json:"instrument_id"`
		MarketID     string   `json:"market_id"`
		From         int      `json:"from"`
		Parties      []string `json:"parties"`
		CSDs         []string `json:"csds,omitempty"`
	}{l.InstrumentID, l.MarketID, l.From, parties, csds})
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(head)+len(levels[0])+len(levels[1])+16)
	out = append(out, head[:len(head)-1]...)
	out = append(out, `,"bid":`...)
	out = append(out, levels[0]...)
	out = append(out, `,"ask":`...)
	out = append(out, levels[1]...)
	return append(out, '}'), nil
}

// UnmarshalJSON reads a ladder in the compact form, or with each level an
// object (logBest), as the first builds with instrument.depth wrote it.
func (l *logDepth) UnmarshalJSON(data []byte) error {
	var w struct {
		InstrumentID string            `json:"instrument_id"`
		MarketID     string            `json:"market_id"`
		From         int               `json:"from"`
		Parties      []string          `json:"parties"`
		CSDs         []string          `json:"csds"`
		Bid          []json.RawMessage `json:"bid"`
		Ask          []json.RawMessage `json:"ask"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	l.InstrumentID, l.MarketID, l.From = w.InstrumentID, w.MarketID, w.From
	side := func(raw []json.RawMessage) ([]logBest, error) {
		out := make([]logBest, len(raw))
		for i, r := range raw {
			if r = bytes.TrimSpace(r); len(r) > 0 && r[0] == '{' {
				if err := json.Unmarshal(r, &out[i]); err != nil {
					return nil, err
				}
				continue
			}
			var f []json.RawMessage
			if err := json.Unmarshal(r, &f); err != nil {
				return nil, err
			}
			if len(f) < 4 {
				return nil, fmt.Errorf("ladder level %s: want [offer_id, party, limit, quantity]", r)
			}
			var p int
			if err := json.Unmarshal(f[0], &out[i].OfferID); err != nil {
				return nil, err
			}
			if err := json.Unmarshal(f[1], &p); err != nil || p < 0 || p >= len(w.Parties) {
				return nil, fmt.Errorf("ladder level %s: no party %s", r, f[1])
			}
			out[i].ParticipantID = w.Parties[p]
			if p < len(w.CSDs) {
				out[i].CSD = w.CSDs[p]
			}
			out[i].Limit, out[i].Quantity = logNum(f[2]), logNum(f[3])
			out[i].MarketOrder = len(f) > 4 && string(f[4]) == "1"
		}
		return out, nil
	}
	var err error
	if l.Bid, err = side(w.Bid); err != nil {
		return fmt.Errorf("ladder bid: %w", err)
	}
	if l.Ask, err = side(w.Ask); err != nil {
		return fmt.Errorf("ladder ask: %w", err)
	}
	return nil
}
