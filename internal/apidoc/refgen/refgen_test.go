package refgen

import (
	"bytes"
	"strings"
	"testing"
)

// spec is a small document with one of each shape the reference renders.
const spec = `openapi: 3.0.3
info: {title: t, version: '1'}
security:
  - bearerAuth: []
tags:
  - name: things
    description: Things to trade.
  - name: system
paths:
  /healthz:
    get:
      tags: [system]
      operationId: getHealth
      summary: Liveness
      security: []
      responses:
        '200': {description: Alive.}
  /api/v1/auth/token:
    post:
      tags: [system]
      operationId: issueToken
      summary: Obtain a token
      security:
        - {}
        - basicAuth: []
      responses:
        '200': {description: The token.}
  /api/v1/things/{thingId}:
    parameters:
      - {name: thingId, in: path, required: true, schema: {type: string}}
    put:
      tags: [things]
      operationId: updateThing
      summary: Update a thing
      description: |
        Changes a thing.

        Roles: PARTICIPANT_ADMIN.
      x-roles: [PARTICIPANT_ADMIN]
      parameters:
        - {$ref: '#/components/parameters/Limit'}
        - {name: mode, in: query, required: true, schema: {type: string, enum: [a, b]}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/ThingUpdate'}
      responses:
        '200':
          description: The thing.
          headers:
            Link: {schema: {type: string}}
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
            text/csv:
              schema: {type: string}
        '404': {$ref: '#/components/responses/NotFound'}
components:
  securitySchemes:
    bearerAuth: {type: http, scheme: bearer}
    basicAuth: {type: http, scheme: basic}
  parameters:
    Limit:
      name: limit
      in: query
      description: Page size.
      schema: {type: integer, minimum: 1, maximum: 1000, default: 100}
  responses:
    NotFound:
      description: Record Not Found.
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
  schemas:
    Uuid: {type: string, format: uuid}
    Amount:
      description: An amount.
      anyOf:
        - {type: number, maximum: 1000, exclusiveMaximum: true}
        - {type: string}
    Error:
      type: object
      required: [message]
      properties:
        message: {type: string}
    Base:
      type: object
      properties:
        id: {$ref: '#/components/schemas/Uuid'}
        name: {type: string, maxLength: 10}
    Thing:
      description: A thing.
      allOf:
        - {$ref: '#/components/schemas/Base'}
        - type: object
          required: [id, name, price]
          properties:
            price:
              type: object
              required: [limit_price]
              properties:
                limit_price: {type: number, nullable: true}
            owner:
              description: The owner, or null | none.
              nullable: true
              allOf: [{$ref: '#/components/schemas/Base'}]
            both:
              allOf:
                - {$ref: '#/components/schemas/Base'}
                - {$ref: '#/components/schemas/Error'}
            tags:
              type: array
              items:
                type: object
                properties:
                  key: {type: string, minLength: 1}
    ThingUpdate:
      type: object
      required: [entity]
      properties:
        entity:
          type: object
          properties:
            amount: {$ref: '#/components/schemas/Amount'}
`

func TestRender(t *testing.T) {
	out, err := Render([]byte(spec))
	if err != nil {
		t.Fatalf("Render() = %v", err)
	}
	got := string(out)
	for _, want := range []string{
		// The index: grouped by the document's tag order, roles shortened.
		"| [things](#things) | [`PUT /api/v1/things/{thingId}`](#put-apiv1thingsthingid) | Update a thing | admin |\n" +
			"| [system](#system) | [`GET /healthz`](#get-healthz) | Liveness | public |\n" +
			"| [system](#system) | [`POST /api/v1/auth/token`](#post-apiv1authtoken) | Obtain a token | public |\n",
		"| `limit` | query | integer | Page size. 1 to 1000; default `100`. |\n",
		"| NotFound | 404 | Record Not Found. |\n",
		// An operation: the roles from x-roles, not from the description.
		"#### PUT /api/v1/things/{thingId}\n\nUpdate a thing. Roles: `PARTICIPANT_ADMIN`. [In the OpenAPI document](../internal/apidoc/openapi.yaml#L",
		"Changes a thing.\n\n| parameter",
		"| `thingId` | path | string |  |\n",
		"| [`limit`](#shared-parameters) | query | integer |  |\n",
		"| `mode` | query | string: `a`, `b` | required |\n",
		"Body (required): JSON [`ThingUpdate`](#thingupdate).\n",
		"- **200** The thing. JSON [`Thing`](#thing); `text/csv`. Headers: `Link`.\n- [Errors](#error-answers): 404.\n",
		"Obtain a token. No authentication.",
		// A record built on another, with inline objects as dotted rows.
		"### Thing\n\nA thing.\n\nEvery field of [`Base`](#base), and the fields below. All of [`Base`](#base)'s fields are required here.\n",
		"| `price` | object | yes |  |\n| `price.limit_price` | number or null | yes |  |\n",
		"| `owner` | [`Base`](#base) or null |  | The owner, or null \\| none. |\n",
		"| `both` | [`Base`](#base) and [`Error`](#error) |  |  |\n",
		"| `tags` | array of objects |  |  |\n| `tags[].key` | string |  | Not empty. |\n",
		"| `name` | string |  | At most 10 characters. |\n",
		"| `entity.amount` | [`Amount`](#value-types) |  |  |\n",
		// Value types, in the document's order.
		"| `Uuid` | string (uuid) |  |\n| `Amount` | number or string | An amount. |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Render() lacks\n%s\n--- it made:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Roles: PARTICIPANT_ADMIN.") {
		t.Error("Render() kept the description's Roles paragraph")
	}
	again, err := Render([]byte(spec))
	if err != nil || !bytes.Equal(out, again) {
		t.Errorf("Render() twice differs (err %v)", err)
	}
}

func TestUpdate(t *testing.T) {
	head := "# Reference\n\nHand-written.\n\n" + Marker
	first, err := Update([]byte(head+"\n\nstale generated text\n"), []byte(spec))
	if err != nil {
		t.Fatalf("Update() = %v", err)
	}
	if !bytes.HasPrefix(first, []byte(head+"\n\n## Endpoints\n")) {
		t.Errorf("Update() did not keep the head and render after it:\n%s", first)
	}
	if bytes.Contains(first, []byte("stale")) {
		t.Error("Update() kept the old generated text")
	}
	second, err := Update(first, []byte(spec))
	if err != nil || !bytes.Equal(first, second) {
		t.Errorf("Update() of its own output changed it (err %v)", err)
	}
}

func TestUpdateErrors(t *testing.T) {
	tests := []struct {
		name, reference, spec, want string
	}{
		{"no marker", "# Reference\n", spec, "marker"},
		{"heading clash", "# Reference\n\n## Thing\n\n" + Marker, spec, `share the anchor #thing`},
		{"bad document", "# Reference\n\n" + Marker, "openapi: 3.0.3\npaths: [", "load openapi document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Update([]byte(tt.reference), []byte(tt.spec))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Update() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
