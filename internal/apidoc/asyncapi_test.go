package apidoc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAsyncAPIJSON checks the built document: AsyncAPI 3.0.0 with the
// OpenAPI document's version, every schema it refers to present, and no
// keyword of OpenAPI's schema dialect left (the channels and messages are
// checked against the stream server in internal/httpapi).
func TestAsyncAPIJSON(t *testing.T) {
	b, err := AsyncAPIJSON()
	if err != nil {
		t.Fatalf("AsyncAPIJSON() = %v", err)
	}
	var doc struct {
		AsyncAPI string `json:"asyncapi"`
		Info     struct {
			Version string `json:"version"`
		} `json:"info"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	oa, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if doc.AsyncAPI != "3.0.0" || doc.Info.Version != oa.Info.Version {
		t.Errorf("asyncapi %q, version %q; want 3.0.0 and the OpenAPI document's %q", doc.AsyncAPI, doc.Info.Version, oa.Info.Version)
	}
	var all any
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	for _, name := range schemaRefs(all, nil) {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("schema %s is referred to and missing", name)
		}
	}
	for _, want := range []string{"Offer", "TradeRecord", "Order", "PriceChange", "OHLCBar", "NewsItem", "IndicativePrice"} {
		if doc.Components.Schemas[want] == nil {
			t.Errorf("no %s schema", want)
		}
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "nullable" || k == "example" {
					t.Errorf("%s has OpenAPI's %q", path, k)
				}
				if k != "properties" { // property names are not keywords
					walk(path+"/"+k, x)
					continue
				}
				props, _ := x.(map[string]any)
				for name, p := range props {
					walk(path+"/properties/"+name, p)
				}
			}
		case []any:
			for _, x := range v {
				walk(path, x)
			}
		}
	}
	walk("#/components/schemas", doc.Components.Schemas)
}

func TestDraft07(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{
		{"nullable type", `{"type": "string", "nullable": true, "example": "x"}`,
			`{"type": ["string", "null"], "examples": ["x"]}`, ""},
		{"nullable enum", `{"type": "string", "enum": ["a", "b"], "nullable": true}`,
			`{"type": ["string", "null"], "enum": ["a", "b", null]}`, ""},
		{"nullable without a type", `{"description": "d", "nullable": true, "allOf": [{"$ref": "#/components/schemas/Date"}]}`,
			`{"description": "d", "anyOf": [{"allOf": [{"$ref": "#/components/schemas/Date"}]}, {"type": "null"}]}`, ""},
		{"exclusive bound", `{"type": "number", "maximum": 10, "exclusiveMaximum": true, "minimum": 0, "exclusiveMinimum": false}`,
			`{"type": "number", "exclusiveMaximum": 10, "minimum": 0}`, ""},
		{"nested", `{"type": "object", "properties": {"a": {"type": "integer", "nullable": true}}, "items": {"type": "string", "example": "y"},
			"additionalProperties": false, "oneOf": [{"type": "number", "nullable": true}], "x-roles": ["r"]}`,
			`{"type": "object", "properties": {"a": {"type": ["integer", "null"]}}, "items": {"type": "string", "examples": ["y"]},
			"additionalProperties": false, "oneOf": [{"type": ["number", "null"]}], "x-roles": ["r"]}`, ""},
		{"unknown keyword", `{"type": "object", "properties": {"a": {"discriminator": {"propertyName": "kind"}}}}`,
			"", `property a: keyword "discriminator" has no JSON Schema conversion`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in, want any
			if err := json.Unmarshal([]byte(tt.in), &in); err != nil {
				t.Fatal(err)
			}
			got, err := draft07(in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("draft07() error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("draft07() = %v", err)
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			// Compare as JSON decodes it.
			b, _ := json.Marshal(got)
			var gotJSON any
			_ = json.Unmarshal(b, &gotJSON)
			if d := cmp.Diff(want, gotJSON); d != "" {
				t.Errorf("draft07() (-want +got):\n%s", d)
			}
		})
	}
}
