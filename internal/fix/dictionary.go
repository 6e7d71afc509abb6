package fix

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/bondvenue/bondvenue/internal/fix/spec"
)

// DictionaryHandler serves the venue's FIX dictionary (QuickFIX XML):
// GET /api/v1/fix/dictionary is the FIX 5.0 SP2 application dictionary,
// ?part=transport the FIXT.1.1 one. It needs no authentication, like the
// OpenAPI document.
func DictionaryHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		name := "FIX50SP2.xml"
		switch r.URL.Query().Get("part") {
		case "", "application":
			body = spec.Application
		case "transport":
			body, name = spec.Transport, "FIXT11.xml"
		default: // the venue's error shape (docs/design.md §3)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"id": newID(), "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
				"statusCode": http.StatusBadRequest, "message": "invalid query parameter", "error": "Bad Request",
				"path": r.URL.Path, "details": []map[string]string{{"field": "part", "issue": "must be application or transport"}}})
			return
		}
		w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		w.Header().Set("Content-Disposition", `inline; filename="bondvenue-`+name+`"`)
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(body)
	})
}
