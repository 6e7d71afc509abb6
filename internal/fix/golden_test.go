package fix_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of outbound messages")

// Golden files hold one outbound message of each type (and variant) as the
// venue writes it, field by field in wire order, with what changes from
// run to run replaced by placeholders: the session header (9, 34, 49, 52,
// 56, 10), ids, times, today's dates and the amounts that depend on them.
var (
	uuidRE   = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRE   = regexp.MustCompile(`^\d{8}-\d{2}:\d{2}:\d{2}(\.\d{3})?$`)
	execRE   = regexp.MustCompile(`^\d+-<id>$`)
	hexIDRE  = regexp.MustCompile(`^[RS]-[0-9a-f]+$`)
	goldenMu sync.Mutex
	// variable are tags whose value differs between runs or days.
	variable = map[string]string{"9": "<len>", "10": "<sum>", "34": "<seq>", "52": "<time>", "49": "<comp>", "56": "<comp>",
		"64": "<date>", "75": "<date>", "159": "<amount>", "119": "<amount>", "880": "<trdmatch>", "42": "<time>",
		"122": "<time>", "126": "<time>", "62": "<time>", "1": "<account>", "1301": "<market>", "36010": "<lei>", "36011": "<lei>",
		"322": "<id>", "131": "<reqid>", "693": "<id>", "553": "<client>", "554": "<secret>"}
)

// normalize renders a raw message for a golden file.
func normalize(raw string) string {
	var b strings.Builder
	for _, f := range strings.Split(strings.TrimSuffix(raw, "|"), "|") {
		tag, val, _ := strings.Cut(f, "=")
		if v, ok := variable[tag]; ok {
			val = v
		} else {
			val = uuidRE.ReplaceAllString(val, "<id>")
			switch {
			case timeRE.MatchString(val):
				val = "<time>"
			case execRE.MatchString(val):
				val = "<seq>-<id>"
			case hexIDRE.MatchString(val):
				val = val[:2] + "<id>"
			}
		}
		b.WriteString(tag + "=" + val + "\n")
	}
	return b.String()
}

// golden compares a received message with testdata/golden/<name>.txt.
func golden(t *testing.T, name string, l fixLine) {
	t.Helper()
	goldenMu.Lock()
	defer goldenMu.Unlock()
	path := filepath.Join("testdata", "golden", name+".txt")
	got := normalize(l.Raw)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (go test ./internal/fix -update writes it)", name, err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\ngot:\n%s\nwant:\n%s", name, path, got, want)
	}
}
