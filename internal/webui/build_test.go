package webui

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tests of this file run the app's own toolchain in web/ (Node, with
// its packages installed by npm ci --prefix web). Without it they skip,
// unless BONDVENUE_TEST_REQUIRE_NODE is set (CI sets it), which makes its
// absence a failure.

// webDir returns the app's source folder, two directories up, once its
// packages are installed.
func webDir(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	web := filepath.Join(root, "web")
	var missing []string
	if _, err := exec.LookPath("npm"); err != nil {
		missing = append(missing, "npm is not on the PATH")
	}
	if _, err := os.Stat(filepath.Join(web, "node_modules")); err != nil {
		missing = append(missing, "web/node_modules is missing")
	}
	if len(missing) > 0 {
		why := strings.Join(missing, " and ")
		if os.Getenv("BONDVENUE_TEST_REQUIRE_NODE") != "" {
			t.Fatalf("the web app's toolchain is required (BONDVENUE_TEST_REQUIRE_NODE is set), but %s: "+
				"install Node.js and npm, then run npm ci --prefix web", why)
		}
		t.Skipf("%s (install Node.js and npm, then run npm ci --prefix web)", why)
	}
	return web
}

// TestEmbeddedBuildMatchesSources rebuilds the app from web/ and checks
// that the embedded build is exactly what its sources make, so the binary
// never serves an app its sources do not describe.
func TestEmbeddedBuildMatchesSources(t *testing.T) {
	web := webDir(t)
	out := t.TempDir()
	// npm appends the arguments after -- to the script, tsc -p . && vite
	// build, that is to vite build.
	cmd := exec.Command("npm", "run", "build", "--prefix", web, "--", "--outDir", out, "--emptyOutDir")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm run build --prefix web: %v\n%s", err, b)
	}
	built, err := tree(os.DirFS(out))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := tree(sub)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffTrees(embedded, built); len(diff) > 0 {
		t.Errorf("the embedded build (internal/webui/dist) differs from a build of web/:\n  %s\n"+
			"rebuild with: npm ci --prefix web && npm run build --prefix web, and commit internal/webui/dist",
			strings.Join(diff, "\n  "))
	}
}

// tree reads every file of fsys by its slash-separated path.
func tree(fsys fs.FS) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, name)
		out[name] = b
		return err
	})
	return out, err
}

// diffTrees names each file that differs between the embedded build and
// a fresh one, sorted.
func diffTrees(embedded, built map[string][]byte) []string {
	var out []string
	for name, b := range embedded {
		switch fresh, ok := built[name]; {
		case !ok:
			out = append(out, name+": embedded, but the sources no longer build it")
		case !bytes.Equal(b, fresh):
			out = append(out, name+": contents differ")
		}
	}
	for name := range built {
		if _, ok := embedded[name]; !ok {
			out = append(out, name+": built from the sources, but not embedded")
		}
	}
	slices.Sort(out)
	return out
}

func TestDiffTrees(t *testing.T) {
	embedded := map[string][]byte{"index.html": []byte("a"), "assets/index-1.js": []byte("x"), "favicon.svg": []byte("s")}
	built := map[string][]byte{"index.html": []byte("b"), "assets/index-2.js": []byte("x"), "favicon.svg": []byte("s")}
	got := diffTrees(embedded, built)
	want := []string{
		"assets/index-1.js: embedded, but the sources no longer build it",
		"assets/index-2.js: built from the sources, but not embedded",
		"index.html: contents differ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("diffTrees = %q, want %q", got, want)
	}
	if got := diffTrees(embedded, embedded); len(got) != 0 {
		t.Errorf("diffTrees of one tree = %q, want none", got)
	}
}

// TestWebUnit runs the app's unit tests (vitest, web/test/*.test.ts).
func TestWebUnit(t *testing.T) {
	web := webDir(t)
	var tests []string
	err := filepath.WalkDir(filepath.Join(web, "test"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".test.ts") || strings.HasSuffix(p, ".test.tsx")) {
			tests = append(tests, p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if len(tests) == 0 {
		t.Skip("web/test has no *.test.ts files yet")
	}
	cmd := exec.Command(filepath.Join(web, "node_modules", ".bin", "vitest"), "run")
	cmd.Dir = web
	cmd.Env = append(os.Environ(), "CI=1", "NO_COLOR=1") // one run, plain output
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("vitest run (in web/, %d test files): %v\n%s", len(tests), err, b)
	}
}
