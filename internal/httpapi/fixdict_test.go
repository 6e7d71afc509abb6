package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/fix/spec"
	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
)

// TestFIXDictionary: GET /api/v1/fix/dictionary serves the dictionary the
// FIX engine validates with, both parts, without authentication; a wrong
// part is a 400 in the venue's error shape.
func TestFIXDictionary(t *testing.T) {
	core := testenv.Service(t, store.SQLite, testenv.Config{Trading: trading.Config{}})
	svc := core.Svc
	srv := httptest.NewServer(httpapi.New(httpapi.Deps{Trading: svc, Live: core.Live, Cluster: core.Cluster, Engine: core.Sequencer, Keys: core.Keys, Access: core.Access, Records: core.Records}, httpapi.Config{}).Handler())
	t.Cleanup(srv.Close)
	for part, want := range map[string][]byte{"": spec.Application, "?part=transport": spec.Transport} {
		r, err := http.Get(srv.URL + "/api/v1/fix/dictionary" + part)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/xml") || !bytes.Equal(b, want) {
			t.Errorf("dictionary %q: %d %s, %d bytes", part, r.StatusCode, r.Header.Get("Content-Type"), len(b))
		}
	}
	if !bytes.Contains(spec.Application, []byte("36011")) {
		t.Error("the served dictionary lacks 36011 CounterpartyLEI")
	}
	r, err := http.Get(srv.URL + "/api/v1/fix/dictionary?part=other")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		StatusCode int `json:"statusCode"`
		Details    []struct{ Field string }
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || r.StatusCode != http.StatusBadRequest || body.StatusCode != 400 ||
		len(body.Details) != 1 || body.Details[0].Field != "part" {
		t.Errorf("a wrong part: %d %+v %v", r.StatusCode, body, err)
	}
	r.Body.Close()
}
