package httpapi

import (
	"net/http"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// The pre-trade controls: a firm's kill switch, an instrument's halt on a
// market and the price collar a client checks a price against.

func (s *Server) getKillSwitch(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	k, err := s.use(r).KillSwitch(r.Context(), p, r.PathValue("participantId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.KillSwitchOf(k))
	return nil
}

func (s *Server) setKillSwitch(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body struct {
		Enabled *bool `json:"enabled"`
	}
	if err := decode(r, &body); err != nil {
		return err
	}
	if body.Enabled == nil {
		return venue.InvalidField("enabled", "is required: true or false")
	}
	k, err := s.use(r).SetKillSwitch(r.Context(), p, r.PathValue("participantId"), *body.Enabled)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.KillSwitchOf(k))
	return nil
}

func (s *Server) adminSetHalt(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body struct {
		Halted *bool  `json:"halted"`
		Reason string `json:"reason"`
	}
	if err := decode(r, &body); err != nil {
		return err
	}
	h, err := s.use(r).SetHalt(r.Context(), p, r.PathValue("marketId"), r.PathValue("instrument_id"),
		trading.HaltInput{Halted: body.Halted, Reason: body.Reason})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.Halt{MarketID: h.MarketID, InstrumentID: h.InstrumentID, Halted: h.Halted, Reason: h.Reason,
		UpdatedAt: wire.Time(h.UpdatedAt)})
	return nil
}

func (s *Server) priceCollar(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	c, err := s.use(r).PriceCollar(r.Context(), p, r.PathValue("instrument_id"), r.URL.Query().Get("market_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.CollarOf(c))
	return nil
}

// settlementLinks is the settlement links' body and answer: pairs of CSD
// BIC11s.
type settlementLinks struct {
	Links [][]string `json:"links"`
}

func settlementLinksOf(ls []venue.SettlementLink) settlementLinks {
	out := settlementLinks{Links: make([][]string, len(ls))}
	for i, l := range ls {
		out.Links[i] = []string{l.A, l.B}
	}
	return out
}

func (s *Server) getSettlementLinks(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	ls, err := s.use(r).SettlementLinks(r.Context(), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, settlementLinksOf(ls))
	return nil
}

func (s *Server) setSettlementLinks(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body settlementLinks
	if err := decode(r, &body); err != nil {
		return err
	}
	ls, err := s.use(r).SetSettlementLinks(r.Context(), p, body.Links)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, settlementLinksOf(ls))
	return nil
}
