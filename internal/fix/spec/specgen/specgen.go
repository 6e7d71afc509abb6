// Package specgen makes the venue's FIX dictionary: it cuts the messages the
// venue supports out of the standard FIX 5.0 SP2 dictionary that quickfixgo
// ships, adds the tags the venue's clients send that the SP2 base lacks, and
// writes the dictionary's human reference. internal/fix/spec/gen runs it
// (go generate ./internal/fix/spec); the spec package's tests run it too, to
// check that the committed files are what it makes.
package specgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Module is the Go module whose spec folder holds the standard dictionaries.
const Module = "github.com/quickfixgo/quickfix"

// Command is how the generated files are made again.
const Command = "go generate ./internal/fix/spec"

// Message is an application message of the venue's dictionary.
type Message struct {
	Name    string
	MsgType string
}

// Messages are the application messages the venue supports; every other
// message of FIX 5.0 SP2 is left out of its dictionary.
var Messages = []Message{
	{"BusinessMessageReject", "j"},
	{"News", "B"},
	{"SecurityListRequest", "x"},
	{"SecurityList", "y"},
	{"NewOrderSingle", "D"},
	{"OrderCancelRequest", "F"},
	{"OrderCancelReplaceRequest", "G"},
	{"OrderStatusRequest", "H"},
	{"ExecutionReport", "8"},
	{"OrderCancelReject", "9"},
	{"QuoteRequest", "R"},
	{"Quote", "S"},
	{"QuoteCancel", "Z"},
	{"QuoteRequestReject", "AG"},
	{"QuoteResponse", "AJ"},
	{"QuoteStatusReport", "AI"},
	{"MarketDataRequest", "V"},
	{"MarketDataSnapshotFullRefresh", "W"},
	{"MarketDataIncrementalRefresh", "X"},
	{"MarketDataRequestReject", "Y"},
	{"TradeCaptureReportRequest", "AD"},
	{"TradeCaptureReportRequestAck", "AQ"},
	{"TradeCaptureReport", "AE"},
	{"OrderMassCancelRequest", "q"},
	{"OrderMassCancelReport", "r"},
	{"SecurityStatus", "f"},
	{"TradingSessionStatus", "h"},
	{"MassQuote", "i"},
	{"MassQuoteAcknowledgement", "b"},
	{"AllocationInstruction", "J"},
	{"AllocationInstructionAck", "P"},
}

// Field is a field definition the venue adds to the dictionary.
type Field struct {
	Tag  int
	Name string
	Type string
	Why  string
}

// CustomFields are the venue's own tags, in the user-defined range.
var CustomFields = []Field{
	{36010, "ReportingPartyLEI", "STRING",
		"the LEI of the party that reports or requests: the venue fills it in on what it sends"},
	{36011, "CounterpartyLEI", "STRING",
		"the LEI of the counterparty; on a QuoteRequest, the dealers asked (several separated by commas or spaces)"},
}

// Addition puts an optional field (required='N') into messages or groups
// that lack it.
type Addition struct {
	Field string
	// In are MsgTypes (a top-level field of that message) or
	// "Component/Group" paths (a member of a group defined in a component).
	// A target that already has the field as a direct member is left as it
	// is.
	In []string
	// After is the member the field follows. Empty: a top-level field goes
	// before the message's first component or group (clients that write
	// fields in dictionary order then never send it after a nested group,
	// which quickfixgo v0.9.10 parses wrongly, upstream #756); a group
	// member goes last in the group.
	After string
	Why   string
}

// Additions are the fields the venue adds to standard messages, in the
// order they are applied.
var Additions = []Addition{
	{Field: "ReportingPartyLEI", In: []string{"R", "S", "AJ", "AI", "AG", "8", "AE"},
		Why: "the venue's custom tag: parties are named by LEI, as in the FIX interface of the venue the specification describes"},
	{Field: "CounterpartyLEI", In: []string{"R", "S", "AJ", "AI", "AG", "8", "AE"},
		Why: "the venue's custom tag, likewise; on QuoteRequest R it names the dealers asked"},
	{Field: "QuoteReqID", In: []string{"R", "S", "AG", "AJ", "AI"}, After: "QuoteID",
		Why: "every message of the RFQ flow carries the request's id; later extension packs put it on QuoteResponse, SP2 lacks it there"},
	{Field: "MarketID", In: []string{"D", "G", "R", "V", "x", "AE", "8", "S"},
		Why: "the venue's market of an order, a quote request or quote, a subscription or a trade; when a client leaves it out the venue picks the instrument's market (for orders, its continuous market that allows partial fills)"},
	{Field: "ListID", In: []string{"R"},
		Why: "a QuoteRequest with 66 ListID asks for one portfolio (list) RFQ over all its 146 entries, quoted whole with MassQuote i, rather than one RFQ per entry"},
	{Field: "MarketID", In: []string{"QuotReqGrp/NoRelatedSym"},
		Why: "the gateway reads and writes the market of each instrument of a QuoteRequest inside its entry of 146 NoRelatedSym"},
}

// Value is an enum value the venue adds to a standard field.
type Value struct {
	Field       string
	Enum        string
	Description string
	Why         string
}

// Values are the enum values the venue adds: quickfixgo rejects a value its
// dictionary does not list (373=5) when it validates enums.
var Values = []Value{
	{"PartyIDSource", "N", "LEGAL_ENTITY_IDENTIFIER",
		"parties are named by LEI (447=N, added in a later extension pack); the SP2 base lists no LEI source"},
	{"PartyIDSource", "P", "SHORT_CODE_IDENTIFIER",
		"a firm names its client and decision makers by short code (447=P, added in a later extension pack)"},
	{"PartyRole", "122", "INVESTMENT_DECISION_MAKER",
		"an order names who decided the investment within the firm (452=122, added in a later extension pack); the SP2 base stops at 85"},
}

// Source is the standard dictionaries the venue's is made from.
type Source struct {
	Transport []byte // FIXT11.xml
	App       []byte // FIX50SP2.xml
	// Origin names where they come from, for the provenance comment: the
	// module path and version (no local path, so the output does not
	// depend on the machine).
	Origin string
}

// FindSource reads the standard dictionaries from the spec folder of the
// quickfixgo module the build uses (go list -m, run in dir).
func FindSource(dir string) (Source, error) {
	cmd := exec.Command("go", "list", "-m", "-json", Module)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Source{}, fmt.Errorf("go list -m %s: %w: %s", Module, err, strings.TrimSpace(stderr.String()))
	}
	var m struct {
		Path, Version, Dir string
		Replace            *struct{ Path, Version, Dir string }
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return Source{}, fmt.Errorf("go list -m %s: %w", Module, err)
	}
	origin, modDir := m.Path+" "+m.Version, m.Dir
	if m.Replace != nil {
		origin += " => " + strings.TrimSpace(m.Replace.Path+" "+m.Replace.Version)
		modDir = m.Replace.Dir
	}
	if modDir == "" {
		return Source{}, fmt.Errorf("%s is not in the module cache (go mod download %s)", Module, Module)
	}
	return ReadSource(filepath.Join(modDir, "spec"), origin)
}

// ReadSource reads FIXT11.xml and FIX50SP2.xml from dir.
func ReadSource(dir, origin string) (Source, error) {
	src := Source{Origin: origin}
	var err error
	if src.Transport, err = os.ReadFile(filepath.Join(dir, TransportFile)); err != nil {
		return Source{}, err
	}
	if src.App, err = os.ReadFile(filepath.Join(dir, AppFile)); err != nil {
		return Source{}, err
	}
	return src, nil
}

// The generated files' names.
const (
	TransportFile = "FIXT11.xml"
	AppFile       = "FIX50SP2.xml"
	ReferenceFile = "fix-dictionary.md"
)

// Output is what the generator makes.
type Output struct {
	Transport []byte // FIXT11.xml, unchanged
	App       []byte // the venue's FIX50SP2.xml
	Reference []byte // docs/fix-dictionary.md
}

// WriteFiles writes the dictionaries into specDir and the reference to
// referencePath.
func (o *Output) WriteFiles(specDir, referencePath string) error {
	for _, f := range []struct {
		path string
		data []byte
	}{
		{filepath.Join(specDir, TransportFile), o.Transport},
		{filepath.Join(specDir, AppFile), o.App},
		{referencePath, o.Reference},
	} {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Generate makes the venue's dictionary and its reference from src. The
// same src always gives the same bytes.
func Generate(src Source) (*Output, error) {
	d, err := parse(src.App)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", AppFile, err)
	}
	if err := d.cut(); err != nil {
		return nil, fmt.Errorf("%s: %w", AppFile, err)
	}
	sum := sha256.Sum256(src.App)
	prov := provenance{origin: src.Origin, sha256: hex.EncodeToString(sum[:])}
	app, err := d.xml(prov)
	if err != nil {
		return nil, err
	}
	ref, err := d.reference(prov)
	if err != nil {
		return nil, err
	}
	return &Output{Transport: src.Transport, App: app, Reference: ref}, nil
}

type provenance struct{ origin, sha256 string }

// node is an element of a QuickFIX dictionary: every attribute and child
// element is kept, in document order; text and comments are not.
type node struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []*node    `xml:",any"`
}

func (n *node) name() string { return n.XMLName.Local }

func (n *node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n *node) child(name string) *node {
	for _, c := range n.Children {
		if c.name() == name {
			return c
		}
	}
	return nil
}

// member is a direct child field, group or component named name.
func (n *node) member(name string) *node {
	for _, c := range n.Children {
		if c.attr("name") == name {
			return c
		}
	}
	return nil
}

func newNode(name string, attrs ...string) *node {
	n := &node{XMLName: xml.Name{Local: name}}
	for i := 0; i+1 < len(attrs); i += 2 {
		n.Attrs = append(n.Attrs, xml.Attr{Name: xml.Name{Local: attrs[i]}, Value: attrs[i+1]})
	}
	return n
}

// dict is a parsed dictionary and what the generator did to it.
type dict struct {
	root                         *node
	messages, components, fields *node
	fieldByName                  map[string]*node
	componentByName              map[string]*node
	messageByType                map[string]*node

	applied []applied // the additions made, in order
	dropped int       // application messages left out
}

// applied is an Addition, a CustomFields entry or a Values entry as made.
type applied struct {
	kind    string // "field" (a new field definition), "member", "value"
	field   string
	targets []string // member: where it was added
	enum    string   // value
	why     string
}

func parse(src []byte) (*dict, error) {
	root := new(node)
	dec := xml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(root); err != nil {
		return nil, err
	}
	if root.name() != "fix" {
		return nil, fmt.Errorf("root element is <%s>, want <fix>", root.name())
	}
	d := &dict{root: root, fieldByName: map[string]*node{}, componentByName: map[string]*node{}, messageByType: map[string]*node{}}
	for _, s := range []struct {
		name string
		dst  **node
	}{{"messages", &d.messages}, {"components", &d.components}, {"fields", &d.fields}} {
		if *s.dst = root.child(s.name); *s.dst == nil {
			return nil, fmt.Errorf("no <%s> section", s.name)
		}
	}
	tags := map[string]bool{}
	for _, f := range d.fields.Children {
		name, tag := f.attr("name"), f.attr("number")
		if d.fieldByName[name] != nil || tags[tag] {
			return nil, fmt.Errorf("field %s %s is defined twice", tag, name)
		}
		d.fieldByName[name], tags[tag] = f, true
	}
	for _, c := range d.components.Children {
		if d.componentByName[c.attr("name")] != nil {
			return nil, fmt.Errorf("component %s is defined twice", c.attr("name"))
		}
		d.componentByName[c.attr("name")] = c
	}
	return d, nil
}

// cut keeps the venue's messages, makes the venue's additions and drops
// the components and fields nothing kept uses.
func (d *dict) cut() error {
	want := map[string]string{}
	for _, m := range Messages {
		want[m.MsgType] = m.Name
	}
	var kept []*node
	for _, m := range d.messages.Children {
		name, ok := want[m.attr("msgtype")]
		if !ok {
			d.dropped++
			continue
		}
		if m.attr("name") != name {
			return fmt.Errorf("message %s is %s, want %s", m.attr("msgtype"), m.attr("name"), name)
		}
		if d.messageByType[m.attr("msgtype")] != nil {
			return fmt.Errorf("message %s is defined twice", m.attr("msgtype"))
		}
		d.messageByType[m.attr("msgtype")] = m
		kept = append(kept, m)
	}
	for _, m := range Messages {
		if d.messageByType[m.MsgType] == nil {
			return fmt.Errorf("no message %s %s", m.Name, m.MsgType)
		}
	}
	d.messages.Children = kept

	if err := d.add(); err != nil {
		return err
	}

	fields, components := map[string]bool{}, map[string]bool{}
	var walk func(n *node) error
	walk = func(n *node) error {
		for _, c := range n.Children {
			name := c.attr("name")
			switch c.name() {
			case "field", "group":
				if d.fieldByName[name] == nil {
					return fmt.Errorf("%s %s uses field %s, which is not defined", n.name(), n.attr("name"), name)
				}
				fields[name] = true
				if c.name() == "group" {
					if err := walk(c); err != nil {
						return err
					}
				}
			case "component":
				comp := d.componentByName[name]
				if comp == nil {
					return fmt.Errorf("%s %s uses component %s, which is not defined", n.name(), n.attr("name"), name)
				}
				if !components[name] {
					components[name] = true
					if err := walk(comp); err != nil {
						return err
					}
				}
			default:
				return fmt.Errorf("%s %s has an unknown element <%s>", n.name(), n.attr("name"), c.name())
			}
		}
		return nil
	}
	for _, section := range []string{"header", "trailer"} {
		if n := d.root.child(section); n != nil {
			if err := walk(n); err != nil {
				return err
			}
		}
	}
	for _, m := range kept {
		if err := walk(m); err != nil {
			return err
		}
	}
	d.components.Children = slices.DeleteFunc(d.components.Children, func(c *node) bool { return !components[c.attr("name")] })
	d.fields.Children = slices.DeleteFunc(d.fields.Children, func(f *node) bool { return !fields[f.attr("name")] })
	return nil
}

// add makes CustomFields, Values and Additions.
func (d *dict) add() error {
	for _, f := range CustomFields {
		if f.Tag < 5000 {
			return fmt.Errorf("custom field %d %s is not in the user-defined range", f.Tag, f.Name)
		}
		if d.fieldByName[f.Name] != nil {
			return fmt.Errorf("custom field %s is already defined", f.Name)
		}
		for _, g := range d.fields.Children {
			if g.attr("number") == strconv.Itoa(f.Tag) {
				return fmt.Errorf("custom field %d is already defined as %s", f.Tag, g.attr("name"))
			}
		}
		n := newNode("field", "number", strconv.Itoa(f.Tag), "name", f.Name, "type", f.Type)
		d.fields.Children = append(d.fields.Children, n)
		d.fieldByName[f.Name] = n
		d.applied = append(d.applied, applied{kind: "field", field: f.Name, why: f.Why})
	}
	for _, v := range Values {
		f := d.fieldByName[v.Field]
		if f == nil {
			return fmt.Errorf("value %s of field %s: no such field", v.Enum, v.Field)
		}
		if slices.ContainsFunc(f.Children, func(c *node) bool { return c.attr("enum") == v.Enum }) {
			continue
		}
		f.Children = append(f.Children, newNode("value", "enum", v.Enum, "description", v.Description))
		d.applied = append(d.applied, applied{kind: "value", field: v.Field, enum: v.Enum, why: v.Why})
	}
	for _, a := range Additions {
		if d.fieldByName[a.Field] == nil {
			return fmt.Errorf("addition of %s: no such field", a.Field)
		}
		done := applied{kind: "member", field: a.Field, why: a.Why}
		for _, target := range a.In {
			n, group, err := d.target(target)
			if err != nil {
				return fmt.Errorf("addition of %s: %w", a.Field, err)
			}
			if n.member(a.Field) != nil {
				continue
			}
			at := len(n.Children)
			switch {
			case a.After != "":
				i := slices.IndexFunc(n.Children, func(c *node) bool { return c.attr("name") == a.After })
				if i < 0 {
					return fmt.Errorf("addition of %s to %s: no member %s to follow", a.Field, target, a.After)
				}
				at = i + 1
			case !group:
				if i := slices.IndexFunc(n.Children, func(c *node) bool { return c.name() != "field" }); i >= 0 {
					at = i
				}
			}
			n.Children = slices.Insert(n.Children, at, newNode("field", "name", a.Field, "required", "N"))
			done.targets = append(done.targets, target)
		}
		if len(done.targets) > 0 {
			d.applied = append(d.applied, done)
		}
	}
	return nil
}

// target is the message (a MsgType) or the group inside a component
// ("Component/Group/...") an addition goes to.
func (d *dict) target(path string) (n *node, group bool, err error) {
	parts := strings.Split(path, "/")
	if len(parts) == 1 {
		if m := d.messageByType[path]; m != nil {
			return m, false, nil
		}
		return nil, false, fmt.Errorf("no kept message %s", path)
	}
	n = d.componentByName[parts[0]]
	if n == nil {
		return nil, false, fmt.Errorf("no component %s", parts[0])
	}
	for _, g := range parts[1:] {
		c := n.member(g)
		if c == nil || c.name() != "group" {
			return nil, false, fmt.Errorf("no group %s in %s", g, path)
		}
		n = c
	}
	return n, true, nil
}

// xml writes the dictionary in the layout of quickfixgo's spec files
// (single-quoted attributes, one space of indent a level), after a comment
// that says where it comes from.
func (d *dict) xml(p provenance) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("<?xml version='1.0' encoding='UTF-8'?>\n")
	comment := d.comment(p)
	if strings.Contains(comment, "--") {
		return nil, errors.New("the provenance comment contains --, which XML forbids in a comment")
	}
	b.WriteString("<!--\n" + comment + "-->\n")
	writeNode(&b, d.root, 0)
	return b.Bytes(), nil
}

func (d *dict) comment(p provenance) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  The bondvenue FIX 5.0 SP2 application dictionary (QuickFIX XML format).\n")
	fmt.Fprintf(&b, "  Generated, do not edit: %s (internal/fix/spec/gen)\n", Command)
	fmt.Fprintf(&b, "  from spec/%s of %s\n  (sha256 %s).\n", AppFile, p.origin, p.sha256)
	fmt.Fprintf(&b, "  Kept: the %d application messages the venue supports, with their standard\n", len(Messages))
	fmt.Fprintf(&b, "  definitions, and the components and fields they use (%d other messages left out).\n", d.dropped)
	fmt.Fprintf(&b, "  Added:\n")
	for _, a := range d.applied {
		fmt.Fprintf(&b, "    %s\n", a.summary(d))
	}
	fmt.Fprintf(&b, "  Reference for client developers: docs/%s\n", ReferenceFile)
	return b.String()
}

func (a applied) summary(d *dict) string {
	f := d.fieldByName[a.field]
	switch a.kind {
	case "field":
		return fmt.Sprintf("field %s %s (%s), the venue's own", f.attr("number"), a.field, f.attr("type"))
	case "value":
		return fmt.Sprintf("value %s of %s %s", a.enum, f.attr("number"), a.field)
	default:
		return fmt.Sprintf("%s %s (optional) on %s", f.attr("number"), a.field, strings.Join(a.targets, " "))
	}
}

func writeNode(b *bytes.Buffer, n *node, depth int) {
	indent := strings.Repeat(" ", depth)
	b.WriteString(indent + "<" + n.name())
	for _, a := range n.Attrs {
		b.WriteString(" " + a.Name.Local + "='" + escape(a.Value) + "'")
	}
	if len(n.Children) == 0 {
		b.WriteString(" />\n")
		return
	}
	b.WriteString(">\n")
	for _, c := range n.Children {
		writeNode(b, c, depth+1)
	}
	b.WriteString(indent + "</" + n.name() + ">\n")
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "'", "&apos;", "\t", "&#9;", "\n", "&#10;", "\r", "&#13;")

func escape(s string) string { return escaper.Replace(s) }
