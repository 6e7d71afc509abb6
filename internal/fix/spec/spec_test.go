package spec_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quickfixgo/quickfix"
	"github.com/quickfixgo/quickfix/datadictionary"

	"github.com/bondvenue/bondvenue/internal/fix/spec"
	"github.com/bondvenue/bondvenue/internal/fix/spec/specgen"
)

// standard is quickfixgo's standard dictionaries, which the venue's is made
// from (found once with go list -m).
var standard = sync.OnceValues(func() (specgen.Source, error) { return specgen.FindSource(".") })

func source(t *testing.T) specgen.Source {
	t.Helper()
	src, err := standard()
	if err != nil {
		t.Fatalf("the standard dictionaries: %v", err)
	}
	return src
}

func parse(t *testing.T, name string, src []byte) *datadictionary.DataDictionary {
	t.Helper()
	dd, err := datadictionary.ParseSrc(bytes.NewReader(src))
	if err != nil {
		t.Fatalf("datadictionary.ParseSrc(%s): %v", name, err)
	}
	return dd
}

func TestDictionariesParse(t *testing.T) {
	transport := parse(t, "Transport", spec.Transport)
	app := parse(t, "Application", spec.Application)
	if got := fmt.Sprintf("%s.%d.%d", transport.FIXType, transport.Major, transport.Minor); got != "FIXT.1.1" {
		t.Errorf("Transport is %s, want FIXT.1.1", got)
	}
	if got := fmt.Sprintf("%s.%d.%dSP%d", app.FIXType, app.Major, app.Minor, app.ServicePack); got != "FIX.5.0SP2" {
		t.Errorf("Application is %s, want FIX.5.0SP2", got)
	}

	// What quickfixgo reads is the files WriteFiles writes.
	dir := filepath.Join(t.TempDir(), "dict")
	transportPath, appPath, err := spec.WriteFiles(dir)
	if err != nil {
		t.Fatalf("WriteFiles: %v", err)
	}
	for _, path := range []string{transportPath, appPath} {
		if _, err := datadictionary.Parse(path); err != nil {
			t.Errorf("datadictionary.Parse(%s): %v", path, err)
		}
	}
	if filepath.Dir(appPath) != dir || filepath.Dir(transportPath) != dir {
		t.Errorf("WriteFiles(%s) = %s, %s: not in the folder", dir, transportPath, appPath)
	}
}

func TestMessages(t *testing.T) {
	app := parse(t, "Application", spec.Application)
	var got, want []string
	for msgType, m := range app.Messages {
		got = append(got, msgType+" "+m.Name)
	}
	for _, m := range specgen.Messages {
		want = append(want, m.MsgType+" "+m.Name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("application messages (-want +got):\n%s", diff)
	}
	if len(want) != 31 {
		t.Errorf("specgen.Messages has %d messages, want the venue's 31", len(want))
	}
}

// topLevel is the field with tag among a message's own fields (not inside
// a component or group).
func topLevel(m *datadictionary.MessageDef, tag int) *datadictionary.FieldDef {
	for _, p := range m.Parts {
		if f, ok := p.(*datadictionary.FieldDef); ok && f.Tag() == tag {
			return f
		}
	}
	return nil
}

func TestVenueTags(t *testing.T) {
	app := parse(t, "Application", spec.Application)
	for tag, name := range map[int]string{36010: "ReportingPartyLEI", 36011: "CounterpartyLEI"} {
		f := app.FieldTypeByTag[tag]
		if f == nil || f.Name() != name || f.Type != "STRING" {
			t.Errorf("field %d = %+v, want %s STRING", tag, f, name)
		}
	}

	tests := []struct {
		tag      int
		messages string // where the tag is an optional top-level field
	}{
		{36010, "R S AJ AI AG 8 AE"},
		{36011, "R S AJ AI AG 8 AE"},
		{131, "R S AG AJ AI Z"},
		{1301, "D G R V x AE 8 S"},
	}
	for _, tt := range tests {
		for _, msgType := range strings.Fields(tt.messages) {
			f := topLevel(app.Messages[msgType], tt.tag)
			switch {
			case f == nil:
				t.Errorf("%s: no top-level %d", msgType, tt.tag)
			case f.Required() && tt.tag != 131:
				t.Errorf("%s: %d is required, want optional", msgType, tt.tag)
			}
		}
	}
	// The LEI tags are on those messages only.
	for msgType, m := range app.Messages {
		if _, ok := m.Tags[36010]; ok != strings.Contains(" R S AJ AI AG 8 AE ", " "+msgType+" ") {
			t.Errorf("%s has 36010: %v", msgType, ok)
		}
	}

	// The gateway reads the market of each instrument of a QuoteRequest
	// inside its 146 entry.
	group := app.Messages["R"].Fields[146]
	if group == nil || !slices.ContainsFunc(group.Fields, func(f *datadictionary.FieldDef) bool { return f.Tag() == 1301 }) {
		t.Errorf("QuoteRequest R: no 1301 MarketID in 146 NoRelatedSym")
	}
	if _, ok := app.FieldTypeByTag[447].Enums["N"]; !ok {
		t.Errorf("447 PartyIDSource has no value N (LEI)")
	}
}

// TestReferences checks what quickfixgo's parser does not: tags and names
// defined once, every component and field defined is used (the dictionary
// is cut to what the venue's messages need) and every group is counted by a
// NUMINGROUP field. (The parser does refuse a reference to an undefined
// field or component, checked here too so that the message says which.)
func TestReferences(t *testing.T) {
	var doc datadictionary.XMLDoc
	if err := xml.Unmarshal(spec.Application, &doc); err != nil {
		t.Fatal(err)
	}
	fields := map[string]*datadictionary.XMLField{}
	tags := map[int]string{}
	for _, f := range doc.Fields {
		if fields[f.Name] != nil || tags[f.Number] != "" {
			t.Errorf("field %d %s is defined twice", f.Number, f.Name)
		}
		fields[f.Name], tags[f.Number] = f, f.Name
		values := map[string]bool{}
		for _, v := range f.Values {
			if values[v.Enum] {
				t.Errorf("field %s lists value %s twice", f.Name, v.Enum)
			}
			values[v.Enum] = true
		}
	}
	components := map[string]*datadictionary.XMLComponent{}
	for _, c := range doc.Components {
		if components[c.Name] != nil {
			t.Errorf("component %s is defined twice", c.Name)
		}
		components[c.Name] = c
	}

	// Counters of groups that the standard dictionary types wrongly (as
	// FIX 4.4 did); quickfixgo reads a group's count as an integer whatever
	// the type.
	mistyped := map[string]bool{"NoLegSecurityAltID": true, "NoDates": true}
	usedFields, usedComponents := map[string]bool{}, map[string]bool{}
	var walk func(where string, members []*datadictionary.XMLComponentMember)
	walk = func(where string, members []*datadictionary.XMLComponentMember) {
		seen := map[string]bool{}
		for _, m := range members {
			if seen[m.Name] {
				t.Errorf("%s lists %s twice", where, m.Name)
			}
			seen[m.Name] = true
			if m.Required != "Y" && m.Required != "N" {
				t.Errorf("%s: %s has required=%q", where, m.Name, m.Required)
			}
			switch m.XMLName.Local {
			case "component":
				c := components[m.Name]
				if c == nil {
					t.Errorf("%s uses component %s, which is not defined", where, m.Name)
					continue
				}
				if !usedComponents[m.Name] {
					usedComponents[m.Name] = true
					walk("component "+m.Name, c.Members)
				}
			case "field", "group":
				f := fields[m.Name]
				if f == nil {
					t.Errorf("%s uses field %s, which is not defined", where, m.Name)
					continue
				}
				usedFields[m.Name] = true
				if isGroup := m.XMLName.Local == "group"; isGroup != (f.Type == "NUMINGROUP") && !mistyped[m.Name] {
					t.Errorf("%s: %s is a %s of type %s", where, m.Name, m.XMLName.Local, f.Type)
				}
				if m.XMLName.Local == "group" {
					if len(m.Members) == 0 {
						t.Errorf("%s: group %s has no members", where, m.Name)
					}
					walk(where+"/"+m.Name, m.Members)
				}
			default:
				t.Errorf("%s: unknown element <%s>", where, m.XMLName.Local)
			}
		}
	}
	if doc.Header != nil {
		walk("header", doc.Header.Members)
	}
	if doc.Trailer != nil {
		walk("trailer", doc.Trailer.Members)
	}
	for _, m := range doc.Messages {
		walk("message "+m.MsgType, m.Members)
	}
	for name := range components {
		if !usedComponents[name] {
			t.Errorf("component %s is defined but no kept message uses it", name)
		}
	}
	for name := range fields {
		if !usedFields[name] {
			t.Errorf("field %s is defined but no kept message uses it", name)
		}
	}
}

// TestStandardDefinitions checks that the kept messages, components and
// fields are the standard ones, with nothing dropped and nothing added but
// the venue's additions.
func TestStandardDefinitions(t *testing.T) {
	src := source(t)
	var std, venue datadictionary.XMLDoc
	if err := xml.Unmarshal(src.App, &std); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(spec.Application, &venue); err != nil {
		t.Fatal(err)
	}
	added := map[string]bool{} // "target/Field"
	for _, a := range specgen.Additions {
		for _, in := range a.In {
			added[in+"/"+a.Field] = true
		}
	}
	// strip drops from got the members the venue added (those the
	// standard container does not have).
	var strip func(path string, got, std []*datadictionary.XMLComponentMember) []*datadictionary.XMLComponentMember
	strip = func(path string, got, std []*datadictionary.XMLComponentMember) []*datadictionary.XMLComponentMember {
		var out []*datadictionary.XMLComponentMember
		for _, g := range got {
			i := slices.IndexFunc(std, func(s *datadictionary.XMLComponentMember) bool { return s.Name == g.Name })
			if i < 0 {
				if !added[path+"/"+g.Name] {
					out = append(out, g) // not an addition: the diff shows it
				}
				continue
			}
			c := *g
			c.Members = strip(path+"/"+g.Name, g.Members, std[i].Members)
			out = append(out, &c)
		}
		return out
	}

	stdMessages := map[string]*datadictionary.XMLComponent{}
	for _, m := range std.Messages {
		stdMessages[m.MsgType] = m
	}
	for _, m := range venue.Messages {
		s := stdMessages[m.MsgType]
		if s == nil {
			t.Errorf("message %s is not in the standard dictionary", m.MsgType)
			continue
		}
		if diff := cmp.Diff(s, &datadictionary.XMLComponent{Name: m.Name, MsgCat: m.MsgCat, MsgType: m.MsgType,
			Members: strip(m.MsgType, m.Members, s.Members)}); diff != "" {
			t.Errorf("message %s differs from the standard (-standard +venue, additions left out):\n%s", m.MsgType, diff)
		}
	}
	stdComponents := map[string]*datadictionary.XMLComponent{}
	for _, c := range std.Components {
		stdComponents[c.Name] = c
	}
	for _, c := range venue.Components {
		s := stdComponents[c.Name]
		if s == nil {
			t.Errorf("component %s is not in the standard dictionary", c.Name)
			continue
		}
		if diff := cmp.Diff(s, &datadictionary.XMLComponent{Name: c.Name, Members: strip(c.Name, c.Members, s.Members)}); diff != "" {
			t.Errorf("component %s differs from the standard (-standard +venue, additions left out):\n%s", c.Name, diff)
		}
	}

	stdFields := map[string]*datadictionary.XMLField{}
	for _, f := range std.Fields {
		stdFields[f.Name] = f
	}
	for _, f := range venue.Fields {
		s := stdFields[f.Name]
		if s == nil {
			if !slices.ContainsFunc(specgen.CustomFields, func(c specgen.Field) bool {
				return c.Tag == f.Number && c.Name == f.Name && c.Type == f.Type
			}) {
				t.Errorf("field %d %s is neither standard nor the venue's", f.Number, f.Name)
			}
			continue
		}
		want := *s
		for _, v := range specgen.Values {
			if v.Field == f.Name && !slices.ContainsFunc(s.Values, func(x *datadictionary.XMLValue) bool { return x.Enum == v.Enum }) {
				want.Values = append(slices.Clone(want.Values), &datadictionary.XMLValue{Enum: v.Enum, Description: v.Description})
			}
		}
		if diff := cmp.Diff(&want, f); diff != "" {
			t.Errorf("field %s differs from the standard (-want +venue):\n%s", f.Name, diff)
		}
	}
}

// TestGenerated checks that the committed files are what the generator
// makes, and that it makes the same bytes every time.
func TestGenerated(t *testing.T) {
	src := source(t)
	first, err := specgen.Generate(src)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	second, err := specgen.Generate(src)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("two runs of the generator differ (-first +second):\n%s", diff)
	}
	if !bytes.Equal(first.Transport, src.Transport) {
		t.Errorf("the generated FIXT11.xml is not the standard one")
	}

	dir := t.TempDir()
	if err := first.WriteFiles(dir, filepath.Join(dir, specgen.ReferenceFile)); err != nil {
		t.Fatalf("WriteFiles: %v", err)
	}
	for _, f := range []struct{ generated, committed string }{
		{specgen.TransportFile, specgen.TransportFile},
		{specgen.AppFile, specgen.AppFile},
		{specgen.ReferenceFile, filepath.Join("..", "..", "..", "docs", specgen.ReferenceFile)},
	} {
		got, err := os.ReadFile(filepath.Join(dir, f.generated))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(f.committed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the generator makes: run %s\n%s", f.committed, specgen.Command, firstDiff(want, got))
		}
	}
}

// firstDiff shows the first line where two files differ.
func firstDiff(committed, generated []byte) string {
	c, g := strings.Split(string(committed), "\n"), strings.Split(string(generated), "\n")
	for i := 0; i < max(len(c), len(g)); i++ {
		var cl, gl string
		if i < len(c) {
			cl = c[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if cl != gl {
			return fmt.Sprintf("line %d:\ncommitted: %q\ngenerated: %q", i+1, cl, gl)
		}
	}
	return ""
}

// fixMessage is a raw FIXT.1.1 message from a client with the body's
// tag=value pairs.
func fixMessage(msgType string, body ...any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "35=%s\x0149=CLIENT\x0156=BONDVENUE\x0134=2\x0152=20260102-10:00:00.000\x01", msgType)
	for i := 0; i+1 < len(body); i += 2 {
		fmt.Fprintf(&b, "%v=%v\x01", body[i], body[i+1])
	}
	msg := "8=FIXT.1.1\x019=" + strconv.Itoa(b.Len()) + "\x01" + b.String()
	sum := 0
	for i := 0; i < len(msg); i++ {
		sum += int(msg[i])
	}
	return fmt.Sprintf("%s10=%03d\x01", msg, sum%256)
}

// validate is quickfixgo's strictest validation of a raw message: unknown
// and user-defined tags not in the dictionary are refused.
func validate(t *testing.T, transport, app *datadictionary.DataDictionary, raw string) quickfix.MessageRejectError {
	t.Helper()
	msg := quickfix.NewMessage()
	if err := quickfix.ParseMessageWithDataDictionary(msg, bytes.NewBufferString(raw), transport, app); err != nil {
		t.Fatalf("parse %q: %v", raw, err)
	}
	v := quickfix.NewValidator(quickfix.ValidatorSettings{
		CheckFieldsOutOfOrder: true, RejectInvalidMessage: true, CheckUserDefinedFields: true,
	}, app, transport)
	return v.Validate(msg)
}

// TestValidation runs client messages through quickfixgo's validation with
// the venue's dictionaries: what the venue added passes, what it left out
// or does not know is rejected with the reason a client sees (373).
func TestValidation(t *testing.T) {
	const lei, isin, now = "5493001KJTIIGC8Y1R12", "DE0001102580", "20260102-10:00:00.000"
	transport := parse(t, "Transport", spec.Transport)
	app := parse(t, "Application", spec.Application)
	std := parse(t, "standard FIX50SP2.xml", source(t).App)

	const ok = -1
	tests := []struct {
		name string
		raw  string
		want int // 373 SessionRejectReason, or ok
		// needsVenue: the standard SP2 dictionary rejects the message.
		needsVenue bool
	}{
		{"QuoteResponse with 131", fixMessage("AJ", 693, "RESP-1", 117, "Q-1", 131, "REQ-1", 694, 1, 60, now),
			ok, true},
		{"QuoteRequest with 1301 in the entry and 36011", fixMessage("R", 131, "REQ-1", 146, 1, 55, "[N/A]", 48, isin, 22, 4,
			54, 1, 38, 100000, 1, "ACC-1", 1301, "M-1", 36011, lei), ok, true},
		{"QuoteRequest with 1301 before the group", fixMessage("R", 131, "REQ-1", 1301, "M-1", 146, 2,
			55, "[N/A]", 48, isin, 22, 4, 54, 1, 38, 100000, 55, "[N/A]", 48, isin, 22, 4, 54, 2, 38, 50000), ok, true},
		{"Quote with 1301 and the LEIs", fixMessage("S", 131, "REQ-1", 117, "Q-1", 537, 1, 55, "[N/A]", 48, isin, 22, 4,
			132, "99.5", 134, 100000, 62, now, 1301, "M-1", 36010, lei, 36011, lei), ok, true},
		{"NewOrderSingle with 1301 and a party by LEI", fixMessage("D", 11, "C-1", 453, 1, 448, lei, 447, "N", 452, 13,
			1, "ACC-1", 55, "[N/A]", 48, isin, 22, 4, 54, 2, 60, now, 38, 100000, 40, 2, 44, "99.5", 59, 1, 1301, "M-1"), ok, true},
		{"NewOrderSingle with its client, decision makers and capacity", fixMessage("D", 11, "C-1", 453, 3,
			448, lei, 447, "N", 452, 3, 448, "pm1", 447, "P", 452, 122, 448, "algo-7", 447, "P", 452, 12,
			1, "ACC-1", 55, "[N/A]", 48, isin, 22, 4, 54, 2, 60, now, 38, 100000, 40, 2, 44, "99.5", 528, "A"), ok, true},
		{"an OrderCapacity not in its list", fixMessage("D", 11, "C-1", 1, "ACC-1", 55, "[N/A]", 48, isin, 22, 4, 54, 2,
			60, now, 38, 100000, 40, 2, 44, "99.5", 528, "X"), 5, false},
		{"ExecutionReport with 1301 and the LEIs", fixMessage("8", 37, "O-1", 17, "E-1", 150, "F", 39, 2, 55, "[N/A]",
			48, isin, 22, 4, 54, 1, 38, 100000, 32, 100000, 31, "99.5", 151, 0, 14, 100000, 6, "99.5",
			1301, "M-1", 36010, lei, 36011, lei), ok, true},
		{"MarketDataRequest with 1301", fixMessage("V", 262, "MD-1", 263, 1, 264, 0, 1301, "M-1", 267, 2, 269, 0, 269, 1,
			146, 1, 55, "[N/A]", 48, isin, 22, 4), ok, true},
		{"SecurityListRequest", fixMessage("x", 320, "SL-1", 559, 4), ok, false},
		{"a message the venue left out: NewOrderList", fixMessage("E", 66, "L-1", 394, 1, 68, 0), 11, false},
		{"MassQuote of a list", fixMessage("i", 117, "MQ-1", 131, "L-1", 296, 1, 302, "L-1", 304, 1, 295, 1, 299, "1", 133, "100.5"), ok, false},
		{"QuoteRequest with 66 ListID", fixMessage("R", 131, "Q-1", 66, "L-1", 146, 1, 55, "[N/A]", 48, isin, 22, 4), ok, false},
		{"a user-defined tag the venue does not know", fixMessage("AJ", 693, "RESP-1", 694, 6, 36012, "x"), 0, false},
		{"a standard tag that is not on the message", fixMessage("AJ", 693, "RESP-1", 694, 6, 59, 1), 2, false},
		{"a value not in the field's list", fixMessage("AJ", 693, "RESP-1", 694, 99), 5, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validate(t, transport, app, tt.raw)
			switch {
			case tt.want == ok && err != nil:
				t.Errorf("Validate = %v (373=%d), want no reject", err, err.RejectReason())
			case tt.want != ok && err == nil:
				t.Errorf("Validate = nil, want a reject with 373=%d", tt.want)
			case tt.want != ok && err.RejectReason() != tt.want:
				t.Errorf("Validate = %v (373=%d), want 373=%d", err, err.RejectReason(), tt.want)
			}
			if tt.needsVenue {
				if err := validate(t, transport, std, tt.raw); err == nil {
					t.Errorf("the standard dictionary accepts it too: the venue's addition is not needed")
				}
			}
		})
	}
}

type nopApp struct{}

func (nopApp) OnCreate(quickfix.SessionID)                   {}
func (nopApp) OnLogon(quickfix.SessionID)                    {}
func (nopApp) OnLogout(quickfix.SessionID)                   {}
func (nopApp) ToAdmin(*quickfix.Message, quickfix.SessionID) {}
func (nopApp) ToApp(*quickfix.Message, quickfix.SessionID) error {
	return nil
}
func (nopApp) FromAdmin(*quickfix.Message, quickfix.SessionID) quickfix.MessageRejectError {
	return nil
}
func (nopApp) FromApp(*quickfix.Message, quickfix.SessionID) quickfix.MessageRejectError {
	return nil
}

func acceptorSettings(t *testing.T, transportPath, appPath string) *quickfix.Settings {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	settings, err := quickfix.ParseSettings(strings.NewReader(fmt.Sprintf(`
[DEFAULT]
ConnectionType=acceptor
BeginString=FIXT.1.1
DefaultApplVerID=FIX.5.0SP2
SenderCompID=BONDVENUE
SocketAcceptHost=127.0.0.1
SocketAcceptPort=%d
TransportDataDictionary=%s
AppDataDictionary=%s

[SESSION]
TargetCompID=CLIENT
`, port, transportPath, appPath)))
	if err != nil {
		t.Fatalf("quickfix.ParseSettings: %v", err)
	}
	return settings
}

// TestAcceptor starts and stops a quickfixgo acceptor whose sessions load
// the venue's dictionaries from the files WriteFiles writes.
func TestAcceptor(t *testing.T) {
	transportPath, appPath, err := spec.WriteFiles(t.TempDir())
	if err != nil {
		t.Fatalf("WriteFiles: %v", err)
	}
	a, err := quickfix.NewAcceptor(nopApp{}, quickfix.NewMemoryStoreFactory(),
		acceptorSettings(t, transportPath, appPath), quickfix.NewNullLogFactory())
	if err != nil {
		t.Fatalf("quickfix.NewAcceptor: %v", err)
	}
	if err := a.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	a.Stop()

	// The sessions do read the files: a broken dictionary is refused.
	broken := filepath.Join(t.TempDir(), "FIX50SP2.xml")
	if err := os.WriteFile(broken, bytes.ReplaceAll(spec.Application, []byte("name='ClOrdID' required"), []byte("name='NoSuchField' required")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := quickfix.NewAcceptor(nopApp{}, quickfix.NewMemoryStoreFactory(),
		acceptorSettings(t, transportPath, broken), quickfix.NewNullLogFactory()); err == nil {
		t.Errorf("quickfix.NewAcceptor with a dictionary naming an undefined field: no error")
	}
}
