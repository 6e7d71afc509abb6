package httpapi

import (
	"net/http"

	"github.com/bondvenue/bondvenue/internal/positions"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// listPositions answers a firm's positions by instrument and account.
func (s *Server) listPositions(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := r.URL.Query()
	ps, err := s.posns.Positions(r.Context(), p, positions.Query{ParticipantID: q.Get("participant_id"),
		InstrumentID: q.Get("instrument_id"), AccountID: q.Get("account_id")})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapSlice(ps, wire.PositionOf))
	return nil
}
