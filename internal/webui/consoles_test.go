package webui_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/apidoc"
	"github.com/google/go-cmp/cmp"
)

// consoleExceptions are the operator's and firm admin's routes that have
// no screen, each with the reason.
var consoleExceptions = map[string]string{}

// TestConsoleRoutes holds the operator's and the firm admin's consoles to
// the API: every operation of the OpenAPI document under /admin/, and
// every other operation only a VENUE_OPERATOR or a PARTICIPANT_ADMIN may
// call (its x-roles), is called by the web app's source (web/src) or
// listed in consoleExceptions with the reason it has no screen.
func TestConsoleRoutes(t *testing.T) {
	doc, err := apidoc.Load()
	if err != nil {
		t.Fatal(err)
	}
	var duties []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var roles []string
			if raw, ok := op.Extensions["x-roles"]; ok {
				b, _ := json.Marshal(raw)
				if err := json.Unmarshal(b, &roles); err != nil {
					t.Fatalf("%s %s: x-roles: %v", method, path, err)
				}
			}
			if strings.HasPrefix(path, "/api/v1/admin/") || consoleOnly(roles) {
				duties = append(duties, method+" "+template(strings.TrimPrefix(path, "/api/v1")))
			}
		}
	}
	slices.Sort(duties)
	if len(duties) < 20 {
		t.Fatalf("found %d operator and admin operations in the OpenAPI document, want the /admin/ routes and more: %v", len(duties), duties)
	}
	called := sourceCalls(t, filepath.Join("..", "..", "web", "src"))
	var missing []string
	for _, d := range duties {
		method, path, _ := strings.Cut(d, " ")
		if called[d] || called["* "+path] {
			if _, ok := consoleExceptions[d]; ok {
				t.Errorf("%s has a screen now: drop it from consoleExceptions", d)
			}
			continue
		}
		if _, ok := consoleExceptions[d]; !ok {
			missing = append(missing, method+" "+path)
		}
	}
	if len(missing) > 0 {
		t.Errorf("operator and admin routes no screen calls (give them one, or say why in consoleExceptions):\n%s", strings.Join(missing, "\n"))
	}
	for d := range consoleExceptions {
		if !slices.Contains(duties, d) {
			t.Errorf("consoleExceptions lists %s, which is not an operator or admin route", d)
		}
	}
}

// consoleOnly reports whether only the operator or a firm's admin may
// call an operation with these roles.
func consoleOnly(roles []string) bool {
	return len(roles) > 0 && !slices.ContainsFunc(roles, func(r string) bool {
		return r != "VENUE_OPERATOR" && r != "PARTICIPANT_ADMIN"
	})
}

var (
	// A call of the REST client: api.call("PUT", `/admin/…`), api.get<T>("/…"), api.download(`/…`).
	callRe = regexp.MustCompile(`\.(call|get|download|csv)(?:<[^()]*?>)?\(\s*(?:"(GET|PUT|POST|DELETE)",\s*)?("[^"]*"|` + "`[^`]*`" + `)`)
	// Any other API path in a string (a path handed to a component that calls it).
	literalRe = regexp.MustCompile(`("/[a-z][^"]*"|` + "`/[a-z][^`]*`" + `)`)
	paramRe   = regexp.MustCompile(`\{[^}]*\}`)
)

// sourceCalls lists the routes web/src calls, as "METHOD /path/{}" with
// parameters unnamed; a path named outside a call is "* /path/{}".
func sourceCalls(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".ts") || strings.HasSuffix(p, ".tsx")) {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		src := string(b)
		for _, m := range callRe.FindAllStringSubmatch(src, -1) {
			method := m[2]
			if method == "" {
				method = "GET" // get, download and csv read
			}
			out[method+" "+sourcePath(m[3])] = true
		}
		for _, m := range literalRe.FindAllString(src, -1) {
			out["* "+sourcePath(m)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sourcePath is a quoted or template path of the source with its
// parameters unnamed and its query dropped: `/users/${u.id}?x=1` is
// /users/{}.
func sourcePath(lit string) string {
	s := lit[1 : len(lit)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], "${") {
			depth := 0
			for ; i < len(s); i++ {
				if s[i] == '{' {
					depth++
				} else if s[i] == '}' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			b.WriteString("{}")
			continue
		}
		if s[i] == '?' {
			break
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// template is an OpenAPI path with its parameters unnamed.
func template(path string) string { return paramRe.ReplaceAllString(path, "{}") }

func TestSourcePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"/admin/audit-log"`, "/admin/audit-log"},
		{"`/admin/markets/${m.id}/instruments/${ins.id}/halt`", "/admin/markets/{}/instruments/{}/halt"},
		{"`/admin/credentials/${encodeURIComponent(c.client_id)}?reason=${encodeURIComponent(reason)}`", "/admin/credentials/{}"},
		{"`/users?participant_id=${id}&limit=1000`", "/users"},
		{"`/x/${f({ a: 1 })}/y`", "/x/{}/y"},
	}
	for _, tt := range tests {
		got := sourcePath(tt.in)
		if got != tt.want {
			t.Errorf("sourcePath(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if diff := cmp.Diff([]string{"/admin/markets/{}"}, []string{template("/admin/markets/{marketId}")}); diff != "" {
		t.Errorf("template (-want +got):\n%s", diff)
	}
}
