package httpapi

import (
	"net/http"

	"github.com/bondvenue/bondvenue/internal/fix/spec"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// fixDictionary serves the FIX gateway's dictionary (QuickFIX XML): the
// FIX 5.0 SP2 application dictionary, or with ?part=transport the FIXT.1.1
// one (docs/fix-rules-of-engagement.md).
func (s *Server) fixDictionary(w http.ResponseWriter, r *http.Request) error {
	body, name := spec.Application, "FIX50SP2.xml"
	switch r.URL.Query().Get("part") {
	case "", "application":
	case "transport":
		body, name = spec.Transport, "FIXT11.xml"
	default:
		return venue.InvalidField("part", "must be application or transport")
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Header().Set("Content-Disposition", `inline; filename="bondvenue-`+name+`"`)
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, err := w.Write(body)
	return err
}
