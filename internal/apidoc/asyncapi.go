package apidoc

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
)

// asyncAPISource is the AsyncAPI 3.0 document of the live streams
// (/socket.io/, docs/guide.md, "Live streams"), edited by hand, less what AsyncAPIJSON
// adds so that it cannot drift from the OpenAPI document: info.version, and
// the record schemas the streams share with the REST interface (Offer,
// TradeRecord, PriceChange, ...), which the source names by $ref only.
//
//go:embed asyncapi.json
var asyncAPISource []byte

// AsyncAPIPath is where Handler serves the AsyncAPI document.
const AsyncAPIPath = "/api/v1/asyncapi.json"

// AsyncAPIJSON returns the AsyncAPI document of the live streams as served
// at AsyncAPIPath: the embedded source with the OpenAPI document's
// info.version and, in components.schemas, every schema of the OpenAPI
// document it refers to, directly or through another, converted from
// OpenAPI 3.0's schema dialect to JSON Schema draft-07 (which AsyncAPI 3
// schemas are). The result is computed once and shared: callers must not
// modify it.
func AsyncAPIJSON() ([]byte, error) {
	return asyncDoc()
}

var asyncDoc = sync.OnceValues(func() ([]byte, error) {
	b, err := buildAsyncAPI()
	if err != nil {
		return nil, fmt.Errorf("asyncapi document: %w", err)
	}
	return b, nil
})

func serveAsyncAPI(w http.ResponseWriter, r *http.Request) {
	b, err := AsyncAPIJSON()
	if err != nil {
		// Unreachable with documents that pass the package tests.
		http.Error(w, "asyncapi document unavailable", http.StatusInternalServerError)
		return
	}
	writeStatic(w, r, "application/json", b)
}

const schemaRefPrefix = "#/components/schemas/"

func buildAsyncAPI() ([]byte, error) {
	var doc map[string]any
	if err := decodeJSON(asyncAPISource, &doc); err != nil {
		return nil, fmt.Errorf("parse source: %w", err)
	}
	oaJSON, err := JSON()
	if err != nil {
		return nil, err
	}
	var oa struct {
		Info struct {
			Version string `json:"version"`
		} `json:"info"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := decodeJSON(oaJSON, &oa); err != nil {
		return nil, fmt.Errorf("parse openapi document: %w", err)
	}
	info, ok := doc["info"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("source has no info object")
	}
	info["version"] = oa.Info.Version
	components, ok := doc["components"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("source has no components object")
	}
	schemas, ok := components["schemas"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("source has no components.schemas object")
	}
	// Copy in what the document refers to, and what that refers to.
	pending := schemaRefs(doc, nil)
	for len(pending) > 0 {
		name := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		if _, ok := schemas[name]; ok {
			continue
		}
		s, ok := oa.Components.Schemas[name]
		if !ok {
			return nil, fmt.Errorf("schema %s: referred to, defined in neither document", name)
		}
		conv, err := draft07(s)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		schemas[name] = conv
		pending = schemaRefs(conv, pending)
	}
	return json.Marshal(doc)
}

// decodeJSON decodes b into v, keeping numbers as they are written.
func decodeJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// schemaRefs appends to dst the names of the component schemas that v
// refers to ($ref "#/components/schemas/Name"), in a stable order.
func schemaRefs(v any, dst []string) []string {
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok && strings.HasPrefix(ref, schemaRefPrefix) {
			dst = append(dst, strings.TrimPrefix(ref, schemaRefPrefix))
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			dst = schemaRefs(v[k], dst)
		}
	case []any:
		for _, x := range v {
			dst = schemaRefs(x, dst)
		}
	}
	return dst
}

// draft07 converts a schema object of OpenAPI 3.0 (as decoded JSON) to
// JSON Schema draft-07: `nullable: true` becomes a "null" type (or, on a
// schema without a type of its own, an anyOf with null), `example` becomes
// `examples`, and boolean exclusive bounds become numeric ones. A keyword
// it does not know is an error rather than a silently wrong schema.
func draft07(v any) (map[string]any, error) {
	s, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema is %T, not an object", v)
	}
	out := make(map[string]any, len(s))
	for k, x := range s {
		switch k {
		case "properties":
			props, ok := x.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("properties is %T, not an object", x)
			}
			conv := make(map[string]any, len(props))
			for name, p := range props {
				c, err := draft07(p)
				if err != nil {
					return nil, fmt.Errorf("property %s: %w", name, err)
				}
				conv[name] = c
			}
			out[k] = conv
		case "items", "not", "additionalProperties":
			if b, ok := x.(bool); ok { // additionalProperties: true or false
				out[k] = b
				continue
			}
			c, err := draft07(x)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = c
		case "allOf", "anyOf", "oneOf":
			list, ok := x.([]any)
			if !ok {
				return nil, fmt.Errorf("%s is %T, not an array", k, x)
			}
			conv := make([]any, len(list))
			for i, sub := range list {
				c, err := draft07(sub)
				if err != nil {
					return nil, fmt.Errorf("%s[%d]: %w", k, i, err)
				}
				conv[i] = c
			}
			out[k] = conv
		case "example":
			out["examples"] = []any{x}
		case "nullable", "exclusiveMinimum", "exclusiveMaximum":
			// Below.
		case "$ref", "type", "format", "pattern", "enum", "required", "title", "description", "default",
			"minimum", "maximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems",
			"minProperties", "maxProperties", "readOnly", "writeOnly", "deprecated":
			out[k] = x
		default:
			if !strings.HasPrefix(k, "x-") {
				return nil, fmt.Errorf("keyword %q has no JSON Schema conversion", k)
			}
			out[k] = x
		}
	}
	for _, b := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		if s[b[0]] == true {
			bound, ok := out[b[1]]
			if !ok {
				return nil, fmt.Errorf("%s without %s", b[0], b[1])
			}
			out[b[0]] = bound
			delete(out, b[1])
		}
	}
	if s["nullable"] == true {
		return orNull(out), nil
	}
	return out, nil
}

// orNull returns schema s that also accepts null.
func orNull(s map[string]any) map[string]any {
	if t, ok := s["type"].(string); ok {
		s["type"] = []any{t, "null"}
		if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, nil) {
			s["enum"] = append(enum, nil)
		}
		return s
	}
	// No type of its own (an allOf, a $ref): the schema, or null.
	out := map[string]any{}
	for _, k := range []string{"title", "description"} {
		if v, ok := s[k]; ok {
			out[k] = v
			delete(s, k)
		}
	}
	out["anyOf"] = []any{s, map[string]any{"type": "null"}}
	return out
}
