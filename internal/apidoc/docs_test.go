package apidoc

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// repoRoot is the repository's root, seen from this package's directory.
const repoRoot = "../.."

// maxREADME is the most the README may weigh: it is the front page (what
// the venue is, how to run and test it, the flags, a picture, links), and
// everything else belongs in docs/.
const maxREADME = 10_000

// markdownFiles are the documents whose links TestDocLinks checks.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "web/README.md"}
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		rel, err := filepath.Rel(repoRoot, d)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

var (
	// mdLink is an inline markdown link: [text](target).
	mdLink = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	// inlineCode is a code span, whose text is not markdown.
	inlineCode = regexp.MustCompile("`[^`]*`")
	// sectionRef is a source comment's pointer into a document:
	// docs/decisions.md, "The order book: slabs and handles".
	sectionRef = regexp.MustCompile(`((?:docs/[a-z0-9-]+|web/README)\.md), "([^"]+)"`)
)

// TestREADMESize keeps the README a front page.
func TestREADMESize(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > maxREADME {
		t.Errorf("README.md is %d bytes, want at most %d: move the detail into docs/", len(b), maxREADME)
	}
}

// TestDocLinks checks that every relative link in the README and docs/
// names a file that exists and, when it names a section of a markdown
// file, a heading that is there.
func TestDocLinks(t *testing.T) {
	for _, file := range markdownFiles(t) {
		text, err := os.ReadFile(filepath.Join(repoRoot, file))
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range proseLines(string(text)) {
			if line == "" {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.ToSlash(filepath.Join(filepath.Dir(file), path))
				}
				if _, err := os.Stat(filepath.Join(repoRoot, dest)); err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", file, n+1, target, dest)
					continue
				}
				if anchor == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				if !anchors(t, dest)[anchor] {
					t.Errorf("%s:%d: link %q: %s has no heading with anchor #%s", file, n+1, target, dest, anchor)
				}
			}
		}
	}
}

// TestSourceDocRefs checks the source's pointers into the documents
// (`docs/guide.md, "Trading"`): the document exists and has a heading of
// that name.
func TestSourceDocRefs(t *testing.T) {
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "third_party", "dist":
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".go" && ext != ".sql" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for n, line := range strings.Split(string(b), "\n") {
			for _, m := range sectionRef.FindAllStringSubmatch(line, -1) {
				doc, heading := m[1], m[2]
				if _, err := os.Stat(filepath.Join(repoRoot, doc)); err != nil {
					t.Errorf("%s:%d: %s does not exist", path, n+1, doc)
					continue
				}
				if !headings(t, doc)[heading] {
					t.Errorf("%s:%d: %s has no heading %q", path, n+1, doc, heading)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// proseLines returns the lines of a markdown text with those inside fenced
// code blocks blanked, keeping the line numbers.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// headings returns the text of every heading of a markdown file.
func headings(t *testing.T, file string) map[string]bool {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	hs := map[string]bool{}
	for _, l := range proseLines(string(text)) {
		if strings.HasPrefix(l, "#") {
			hs[strings.TrimSpace(strings.TrimLeft(l, "#"))] = true
		}
	}
	return hs
}

// anchors returns the anchors a markdown renderer gives the headings of a
// file, as GitHub makes them: lower case, spaces as hyphens, punctuation
// other than hyphens and underscores dropped, repeats numbered.
func anchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	as := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(string(text)) {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		a := slug(strings.TrimSpace(strings.TrimLeft(l, "#")))
		if n := seen[a]; n > 0 {
			as[a+"-"+strconv.Itoa(n)] = true
		} else {
			as[a] = true
		}
		seen[a]++
	}
	return as
}

// slug is a heading's anchor.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
