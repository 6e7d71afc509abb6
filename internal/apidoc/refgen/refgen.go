// Package refgen renders the REST reference (docs/rest-interface.md) from
// the OpenAPI document, so that the reference a client developer reads and
// the document the handlers are tested against cannot say different things.
//
// The reference has a hand-written head (what the reference is, the
// conventions, the quirks kept for compatibility) and a generated tail: the
// endpoints, the records and bodies, and the value types, each taken from
// the document in the order it lists them. Update keeps the head and
// replaces everything after Marker.
package refgen

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
)

// Marker is the line that ends the hand-written head of the reference.
// Everything after it is what Render makes.
const Marker = "<!-- Everything below this line is generated from internal/apidoc/openapi.yaml by `go generate ./internal/apidoc`: edit the OpenAPI document, not this text. -->"

// DocumentLink is the OpenAPI document's path as the reference links to it
// (the reference lives in docs/).
const DocumentLink = "../internal/apidoc/openapi.yaml"

// Update returns the reference with its head kept and its generated tail
// rendered again from spec, the OpenAPI document. It fails when the
// reference has no Marker or when two headings would get the same anchor.
func Update(reference, spec []byte) ([]byte, error) {
	i := bytes.Index(reference, []byte(Marker))
	if i < 0 {
		return nil, errors.New("reference has no generated part: the marker line is missing")
	}
	head := reference[:i+len(Marker)]
	tail, err := Render(spec)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Write(head)
	out.WriteString("\n\n")
	out.Write(tail)
	if err := uniqueAnchors(out.String()); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Render makes the generated part of the reference from spec. The same
// document always gives the same bytes.
func Render(spec []byte) ([]byte, error) {
	loader := openapi3.NewLoader()
	loader.IncludeOrigin = true // line numbers: the order of the document, and links into it
	doc, err := loader.LoadFromData(spec)
	if err != nil {
		return nil, fmt.Errorf("load openapi document: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("validate openapi document: %w", err)
	}
	g := &gen{doc: doc, objects: map[string]bool{}}
	for name, s := range doc.Components.Schemas {
		g.objects[name] = isObject(s.Value)
	}
	ops, err := g.operations()
	if err != nil {
		return nil, err
	}
	if err := g.endpoints(ops); err != nil {
		return nil, err
	}
	g.records()
	g.values()
	return append(bytes.TrimRight(g.out.Bytes(), "\n"), '\n'), nil
}

type gen struct {
	doc     *openapi3.T
	objects map[string]bool // component schema name → has fields (a section of its own)
	out     bytes.Buffer
}

func (g *gen) printf(format string, args ...any) { fmt.Fprintf(&g.out, format, args...) }

// operation is one method on one path.
type operation struct {
	method, path string
	line         int
	item         *openapi3.PathItem
	op           *openapi3.Operation
}

func (o operation) title() string { return o.method + " " + o.path }

// operations returns every operation of the document in document order.
func (g *gen) operations() ([]operation, error) {
	var ops []operation
	for path, item := range g.doc.Paths.Map() {
		for method, op := range item.Operations() {
			line := keyLine(op.Origin)
			if line == 0 {
				return nil, fmt.Errorf("%s %s: no line in the document", method, path)
			}
			ops = append(ops, operation{method: method, path: path, line: line, item: item, op: op})
		}
	}
	slices.SortFunc(ops, func(a, b operation) int { return cmp.Compare(a.line, b.line) })
	return ops, nil
}

func (g *gen) endpoints(ops []operation) error {
	byTag := map[string][]operation{}
	for _, o := range ops {
		if len(o.op.Tags) == 0 {
			return fmt.Errorf("%s: no tag", o.title())
		}
		byTag[o.op.Tags[0]] = append(byTag[o.op.Tags[0]], o)
	}
	var tags []*openapi3.Tag
	for _, t := range g.doc.Tags {
		if len(byTag[t.Name]) > 0 {
			tags = append(tags, t)
		}
		delete(byTag, t.Name)
	}
	if len(byTag) > 0 {
		return fmt.Errorf("operations tagged with undeclared tags %v", slices.Sorted(maps.Keys(byTag)))
	}
	groups := map[string][]operation{}
	for _, o := range ops {
		groups[o.op.Tags[0]] = append(groups[o.op.Tags[0]], o)
	}

	g.printf("## Endpoints\n\n")
	g.printf("Every operation of the OpenAPI document, grouped by its first tag, in the document's order. The\n")
	g.printf("roles are those allowed to call it; \"public\" needs no token. Each operation's section gives\n")
	g.printf("its parameters, body and answers, and links to its place in the document.\n\n")
	g.printf("| group | operation | what it does | roles |\n|---|---|---|---|\n")
	for _, t := range tags {
		for _, o := range groups[t.Name] {
			g.printf("| [%s](#%s) | [`%s`](#%s) | %s | %s |\n", t.Name, slug(t.Name), o.title(), slug(o.title()), cell(o.op.Summary), g.roles(o.op, true))
		}
	}
	g.printf("\n")
	g.sharedParameters()
	g.errorAnswers(ops)
	for _, t := range tags {
		g.printf("### %s\n\n", t.Name)
		if t.Description != "" {
			g.printf("%s\n\n", strings.TrimSpace(t.Description))
		}
		for _, o := range groups[t.Name] {
			g.operation(o)
		}
	}
	return nil
}

// sharedParameters lists the parameters the document defines once and
// many operations use.
func (g *gen) sharedParameters() {
	g.printf("### Shared parameters\n\n")
	g.printf("Parameters many operations take, described once here.\n\n")
	g.printf("| parameter | in | type | notes |\n|---|---|---|---|\n")
	for _, name := range g.componentOrder(paramLines(g.doc.Components.Parameters)) {
		p := g.doc.Components.Parameters[name].Value
		g.printf("| `%s` | %s | %s | %s |\n", p.Name, p.In, cell(g.typeOf(p.Schema)), cell(notes(p.Description, p.Schema)))
	}
	g.printf("\n")
}

// errorAnswers lists the failure answers the document defines once.
func (g *gen) errorAnswers(ops []operation) {
	g.printf("### Error answers\n\n")
	g.printf("The failures operations list, each with the [`Error`](#error) body.\n\n")
	g.printf("| answer | status | meaning |\n|---|---|---|\n")
	byName := map[string]string{}
	for _, o := range ops {
		for status, r := range o.op.Responses.Map() {
			if name, ok := strings.CutPrefix(r.Ref, "#/components/responses/"); ok {
				byName[name] = status
			}
		}
	}
	for _, name := range g.componentOrder(responseLines(g.doc.Components.Responses)) {
		r := g.doc.Components.Responses[name].Value
		status := byName[name]
		if status == "" {
			status = "–"
		}
		g.printf("| %s | %s | %s |\n", name, status, cell(deref(r.Description)))
	}
	g.printf("\n")
}

// operation writes one operation's section.
func (g *gen) operation(o operation) {
	op := o.op
	g.printf("#### %s\n\n", o.title())
	summary := strings.TrimSuffix(strings.TrimSpace(op.Summary), ".")
	g.printf("%s. %s. [In the OpenAPI document](%s#L%d).\n\n", summary, g.roles(op, false), DocumentLink, o.line)
	if d := withoutRoles(op.Description); d != "" {
		g.printf("%s\n\n", d)
	}

	params := slices.Concat(o.item.Parameters, op.Parameters)
	if len(params) > 0 {
		g.printf("| parameter | in | type | notes |\n|---|---|---|---|\n")
		for _, pr := range params {
			p := pr.Value
			name := "`" + p.Name + "`"
			note := notes(p.Description, p.Schema)
			if pr.Ref != "" {
				name = fmt.Sprintf("[`%s`](#shared-parameters)", p.Name)
				note = ""
			}
			if p.Required && p.In != "path" {
				note = joinNotes("required", note)
			}
			g.printf("| %s | %s | %s | %s |\n", name, p.In, cell(g.typeOf(p.Schema)), cell(note))
		}
		g.printf("\n")
	}

	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		req := "optional"
		if rb.Value.Required {
			req = "required"
		}
		g.printf("Body (%s): %s.\n\n", req, g.content(rb.Value.Content))
	}

	var errs []string
	statuses := slices.Sorted(maps.Keys(op.Responses.Map()))
	for _, status := range statuses {
		r := op.Responses.Map()[status]
		if strings.HasPrefix(r.Ref, "#/components/responses/") && status >= "400" {
			errs = append(errs, status)
			continue
		}
		line := fmt.Sprintf("- **%s** %s", status, collapse(deref(r.Value.Description)))
		if c := g.content(r.Value.Content); c != "" {
			line += " " + c + "."
		}
		if hs := slices.Sorted(maps.Keys(r.Value.Headers)); len(hs) > 0 {
			line += " Headers: `" + strings.Join(hs, "`, `") + "`."
		}
		g.printf("%s\n", line)
	}
	if len(errs) > 0 {
		g.printf("- [Errors](#error-answers): %s.\n", strings.Join(errs, ", "))
	}
	g.printf("\n")
}

// content describes a body: its schema for JSON, and the other media types.
func (g *gen) content(c openapi3.Content) string {
	var parts []string
	for _, mt := range slices.Sorted(maps.Keys(c)) {
		m := c[mt]
		var t string
		if m.Schema != nil {
			t = g.typeOf(m.Schema)
		}
		switch {
		case mt == "application/json" && t != "":
			parts = append(parts, "JSON "+t)
		case t != "" && t != "string" && t != "any":
			parts = append(parts, "`"+mt+"` "+t)
		default:
			parts = append(parts, "`"+mt+"`")
		}
	}
	return strings.Join(parts, "; ")
}

// roles names the roles an operation allows, short for the index table.
func (g *gen) roles(op *openapi3.Operation, short bool) string {
	if public(op) {
		if short {
			return "public"
		}
		return "No authentication"
	}
	raw, _ := op.Extensions["x-roles"].([]any)
	var rs []string
	for _, r := range raw {
		s := fmt.Sprint(r)
		if short {
			s = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(s, "PARTICIPANT_"), "VENUE_"))
		} else {
			s = "`" + s + "`"
		}
		rs = append(rs, s)
	}
	if len(rs) == 0 {
		if short {
			return "any"
		}
		return "Any authenticated caller"
	}
	if short {
		return strings.Join(rs, ", ")
	}
	return "Roles: " + strings.Join(rs, ", ")
}

// public tells whether an operation may be called without a bearer token:
// it requires no security, or lists an empty requirement among its
// alternatives.
func public(op *openapi3.Operation) bool {
	if op.Security == nil {
		return false
	}
	if len(*op.Security) == 0 {
		return true
	}
	return slices.ContainsFunc(*op.Security, func(r openapi3.SecurityRequirement) bool { return len(r) == 0 })
}

// withoutRoles drops the "Roles: …" paragraph of a description: the
// reference states the roles from x-roles.
func withoutRoles(d string) string {
	var keep []string
	for _, para := range strings.Split(strings.TrimSpace(d), "\n\n") {
		if strings.HasPrefix(strings.TrimSpace(para), "Roles:") {
			continue
		}
		keep = append(keep, strings.TrimSpace(para))
	}
	return strings.Join(keep, "\n\n")
}

// records writes a section per component schema that has fields.
func (g *gen) records() {
	g.printf("## Records and bodies\n\n")
	g.printf("Every record the venue answers and every body it reads, in the document's order. \"required\"\n")
	g.printf("means, in an answer, that the field is always present (perhaps null), and in a body that it\n")
	g.printf("must be sent. A type's name links to its record here or to the [value types](#value-types).\n\n")
	for _, name := range g.componentOrder(schemaLines(g.doc.Components.Schemas)) {
		if g.objects[name] {
			g.record(name, g.doc.Components.Schemas[name].Value)
		}
	}
}

func (g *gen) record(name string, s *openapi3.Schema) {
	g.printf("### %s\n\n", name)
	if d := strings.TrimSpace(s.Description); d != "" {
		g.printf("%s\n\n", d)
	}
	bases, own, required := g.parts(s)
	if len(bases) > 0 {
		links := make([]string, len(bases))
		for i, b := range bases {
			links[i] = g.link(b)
		}
		g.printf("Every field of %s", joinAnd(links))
		if len(own) > 0 {
			g.printf(", and the fields below")
		}
		g.printf(".")
		var inherited, all []string
		for _, b := range bases {
			all = append(all, g.flatFields(b)...)
		}
		ownNames := map[string]bool{}
		for _, f := range own {
			ownNames[f.name] = true
		}
		for _, r := range required {
			if !ownNames[r] {
				inherited = append(inherited, r)
			}
		}
		switch {
		case len(inherited) == 0:
		case len(inherited) == len(all) && len(all) > 0:
			g.printf(" All of %s's fields are required here.", joinAnd(links))
		default:
			g.printf(" Required here: `%s`.", strings.Join(inherited, "`, `"))
		}
		g.printf("\n\n")
	}
	if len(own) == 0 {
		return
	}
	req := map[string]bool{}
	for _, r := range required {
		req[r] = true
	}
	g.printf("| field | type | required | notes |\n|---|---|---|---|\n")
	for _, f := range own {
		g.fieldRows(f.name, f.schema, req[f.name])
	}
	g.printf("\n")
}

// fieldRows writes a field's row and, for an inline object or an array of
// inline objects, a row per field inside it (`a.b`, `a[].b`).
func (g *gen) fieldRows(name string, r *openapi3.SchemaRef, required bool) {
	yes := ""
	if required {
		yes = "yes"
	}
	desc := ""
	if r.Ref == "" && r.Value != nil {
		desc = r.Value.Description
	}
	var inner *openapi3.Schema
	var prefix, typ string
	switch v := r.Value; {
	case r.Ref != "" || v == nil:
	case len(v.Properties) > 0:
		inner, prefix, typ = v, name+".", "object"
	case v.Items != nil && v.Items.Ref == "" && v.Items.Value != nil && len(v.Items.Value.Properties) > 0:
		inner, prefix, typ = v.Items.Value, name+"[].", "array of objects"
	}
	if inner == nil {
		typ = g.typeOf(r)
	} else if r.Value.Nullable {
		typ += " or null"
	}
	g.printf("| `%s` | %s | %s | %s |\n", name, cell(typ), yes, cell(notes(desc, r)))
	if inner == nil {
		return
	}
	req := map[string]bool{}
	for _, n := range inner.Required {
		req[n] = true
	}
	for _, f := range ordered(inner.Properties) {
		g.fieldRows(prefix+f.name, f.schema, req[f.name])
	}
}

// values writes the table of the schemas without fields of their own.
func (g *gen) values() {
	g.printf("## Value types\n\n")
	g.printf("The named types fields refer to.\n\n")
	g.printf("| type | is | notes |\n|---|---|---|\n")
	for _, name := range g.componentOrder(schemaLines(g.doc.Components.Schemas)) {
		if g.objects[name] {
			continue
		}
		ref := g.doc.Components.Schemas[name]
		s := ref.Value
		g.printf("| `%s` | %s | %s |\n", name, cell(g.typeOf(&openapi3.SchemaRef{Value: s})), cell(notes(s.Description, ref)))
	}
}

type field struct {
	name   string
	schema *openapi3.SchemaRef
}

// parts splits a schema into the named schemas it includes (allOf), its
// own fields in document order, and the names it requires.
func (g *gen) parts(s *openapi3.Schema) (bases []string, own []field, required []string) {
	required = slices.Clone(s.Required)
	props := map[string]*openapi3.SchemaRef{}
	maps.Copy(props, s.Properties)
	for _, p := range s.AllOf {
		if name, ok := strings.CutPrefix(p.Ref, "#/components/schemas/"); ok {
			bases = append(bases, name)
			continue
		}
		if p.Value != nil {
			maps.Copy(props, p.Value.Properties)
			required = append(required, p.Value.Required...)
		}
	}
	return bases, ordered(props), unique(required)
}

// flatFields returns every field name of a component schema, its bases'
// included.
func (g *gen) flatFields(name string) []string {
	s := g.doc.Components.Schemas[name].Value
	bases, own, _ := g.parts(s)
	var names []string
	for _, b := range bases {
		names = append(names, g.flatFields(b)...)
	}
	for _, f := range own {
		names = append(names, f.name)
	}
	return unique(names)
}

// typeOf describes a schema in a few words, linking named schemas.
func (g *gen) typeOf(r *openapi3.SchemaRef) string {
	if r == nil {
		return "any"
	}
	if name, ok := strings.CutPrefix(r.Ref, "#/components/schemas/"); ok {
		return g.link(name)
	}
	s := r.Value
	if s == nil {
		return "any"
	}
	t := g.bare(s)
	if s.Nullable && t != "any" && !strings.HasSuffix(t, " or null") {
		t += " or null"
	}
	return t
}

func (g *gen) bare(s *openapi3.Schema) string {
	if len(s.AllOf) > 0 && s.Type.IsEmpty() && len(s.Properties) == 0 {
		ts := make([]string, len(s.AllOf))
		for i, p := range s.AllOf {
			ts[i] = g.typeOf(p)
		}
		return strings.Join(ts, " and ")
	}
	for _, alts := range []openapi3.SchemaRefs{s.AnyOf, s.OneOf} {
		if len(alts) > 0 {
			ts := make([]string, len(alts))
			for i, a := range alts {
				ts[i] = g.typeOf(a)
			}
			return strings.Join(ts, " or ")
		}
	}
	switch {
	case s.Type.Is("array"):
		return "array of " + g.typeOf(s.Items)
	case s.Type.Is("object") || (s.Type.IsEmpty() && len(s.Properties) > 0):
		if len(s.Properties) > 0 {
			names := make([]string, 0, len(s.Properties))
			for _, f := range ordered(s.Properties) {
				names = append(names, "`"+f.name+"`")
			}
			return "object with " + strings.Join(names, ", ")
		}
		if s.AdditionalProperties.Schema != nil {
			return "object of " + g.typeOf(s.AdditionalProperties.Schema)
		}
		return "object"
	case s.Type.IsEmpty():
		return "any"
	}
	t := strings.Join(s.Type.Slice(), " or ")
	if s.Format != "" {
		t += " (" + s.Format + ")"
	}
	var vals []string
	for _, v := range s.Enum {
		if v != nil {
			vals = append(vals, "`"+fmt.Sprint(v)+"`")
		}
	}
	if len(vals) > 0 {
		t += ": " + strings.Join(vals, ", ")
	}
	return t
}

// link is a named schema as a link to its section, or to the value types.
func (g *gen) link(name string) string {
	if g.objects[name] {
		return fmt.Sprintf("[`%s`](#%s)", name, slug(name))
	}
	return fmt.Sprintf("[`%s`](#value-types)", name)
}

// notes is a field's description followed by its bounds and default.
func notes(desc string, r *openapi3.SchemaRef) string {
	n := collapse(desc)
	if r == nil || r.Ref != "" || r.Value == nil {
		return n
	}
	s := r.Value
	var bounds []string
	if s.MinLength == 1 && s.MaxLength == nil {
		bounds = append(bounds, "not empty")
	} else if s.MinLength > 0 && s.MaxLength != nil {
		bounds = append(bounds, fmt.Sprintf("%d to %d characters", s.MinLength, *s.MaxLength))
	} else if s.MaxLength != nil {
		bounds = append(bounds, fmt.Sprintf("at most %d characters", *s.MaxLength))
	} else if s.MinLength > 0 {
		bounds = append(bounds, fmt.Sprintf("at least %d characters", s.MinLength))
	}
	switch {
	case s.Min != nil && s.Max != nil && !s.ExclusiveMin.IsTrue() && !s.ExclusiveMax.IsTrue():
		bounds = append(bounds, fmt.Sprintf("%s to %s", num(*s.Min), num(*s.Max)))
	default:
		if s.Min != nil {
			bounds = append(bounds, bound("at least", "above", *s.Min, s.ExclusiveMin))
		}
		if s.Max != nil {
			bounds = append(bounds, bound("at most", "below", *s.Max, s.ExclusiveMax))
		}
	}
	if s.MinItems > 0 {
		bounds = append(bounds, fmt.Sprintf("at least %d items", s.MinItems))
	}
	if s.MaxItems != nil {
		bounds = append(bounds, fmt.Sprintf("at most %d items", *s.MaxItems))
	}
	if s.Default != nil {
		bounds = append(bounds, fmt.Sprintf("default `%v`", s.Default))
	}
	if len(bounds) > 0 {
		b := strings.Join(bounds, "; ")
		n = joinNotes(n, strings.ToUpper(b[:1])+b[1:]+".")
	}
	return n
}

func bound(inclusive, exclusive string, v float64, excl openapi3.ExclusiveBound) string {
	if excl.IsTrue() {
		return exclusive + " " + num(v)
	}
	return inclusive + " " + num(v)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	if !strings.HasSuffix(a, ".") {
		a += "."
	}
	return a + " " + b
}

// ordered returns a schema's properties in the order the document lists them.
func ordered(props openapi3.Schemas) []field {
	fs := make([]field, 0, len(props))
	for name, r := range props {
		fs = append(fs, field{name, r})
	}
	slices.SortFunc(fs, func(a, b field) int {
		return cmp.Or(cmp.Compare(keyLine(a.schema.Origin), keyLine(b.schema.Origin)), strings.Compare(a.name, b.name))
	})
	return fs
}

// componentOrder returns component names in the order of their lines.
func (g *gen) componentOrder(lines map[string]int) []string {
	names := slices.Collect(maps.Keys(lines))
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(lines[a], lines[b]), strings.Compare(a, b))
	})
	return names
}

func schemaLines(m openapi3.Schemas) map[string]int {
	lines := map[string]int{}
	for name, r := range m {
		lines[name] = cmp.Or(keyLine(r.Origin), originOf(r.Value))
	}
	return lines
}

func paramLines(m openapi3.ParametersMap) map[string]int {
	lines := map[string]int{}
	for name, r := range m {
		lines[name] = cmp.Or(keyLine(r.Origin), keyLine(r.Value.Origin))
	}
	return lines
}

func responseLines(m openapi3.ResponseBodies) map[string]int {
	lines := map[string]int{}
	for name, r := range m {
		lines[name] = cmp.Or(keyLine(r.Origin), keyLine(r.Value.Origin))
	}
	return lines
}

func originOf(s *openapi3.Schema) int {
	if s == nil {
		return 0
	}
	return keyLine(s.Origin)
}

func keyLine(o *openapi3.Origin) int {
	if o == nil || o.Key == nil {
		return 0
	}
	return o.Key.Line
}

// isObject tells a schema with fields (a record or body of its own) from a
// value type.
func isObject(s *openapi3.Schema) bool {
	if s == nil {
		return false
	}
	if len(s.Properties) > 0 {
		return true
	}
	for _, p := range s.AllOf {
		if p.Ref != "" || (p.Value != nil && len(p.Value.Properties) > 0) {
			return true
		}
	}
	return false
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// collapse joins a multi-line description into one line.
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// cell makes text safe inside a table cell.
func cell(s string) string {
	return strings.ReplaceAll(collapse(s), "|", `\|`)
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

func unique(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// slug is the anchor a markdown renderer gives a heading, as GitHub makes
// it: lower case, spaces as hyphens, other punctuation but hyphens and
// underscores dropped.
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

// uniqueAnchors fails when two headings of a markdown text share an anchor,
// so that no link of the reference lands on the wrong section.
func uniqueAnchors(text string) error {
	seen := map[string]string{}
	fenced := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		a := slug(strings.ReplaceAll(h, "`", ""))
		if prev, dup := seen[a]; dup {
			return fmt.Errorf("headings %q and %q share the anchor #%s", prev, h, a)
		}
		seen[a] = h
	}
	return nil
}
