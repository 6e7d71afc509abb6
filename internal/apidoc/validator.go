package apidoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Validator checks HTTP exchanges against the document. Tests run every
// handler response through Check so the document cannot drift from the code.
// A Validator is safe for concurrent use.
type Validator struct {
	router routers.Router
	opts   *openapi3filter.Options
}

// NewValidator loads the document and prepares a Validator for it.
func NewValidator() (*Validator, error) {
	doc, err := Load()
	if err != nil {
		return nil, err
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route openapi document: %w", err)
	}
	opts := &openapi3filter.Options{
		IncludeResponseStatus: true, // an undocumented status is an error
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{
			openapi3.WithStringFormatValidator("uuid",
				openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
			openapi3.WithStringFormatValidator("email",
				openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForEmail)),
		},
	}
	return &Validator{router: router, opts: opts}, nil
}

// Check reports whether a response to req matches the document: the method
// and path must be documented, the status must be listed for the operation,
// the documented headers must be valid and the body must match the schema of
// its content type. req's body is not read.
func (v *Validator) Check(req *http.Request, status int, header http.Header, body []byte) error {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("%s %s: undocumented operation: %w", req.Method, req.URL.Path, err)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: params,
			Route:      route,
			Options:    v.opts,
		},
		Status:  status,
		Header:  header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: v.opts,
	}
	if err := openapi3filter.ValidateResponse(req.Context(), in); err != nil {
		return fmt.Errorf("%s %s -> %d (%s): %w", req.Method, req.URL.Path, status, route.Operation.OperationID, err)
	}
	return nil
}

// CheckRequest reports whether req, with the given body, matches the
// document: path and query parameters, headers and body. Tests use it to keep
// their own requests honest; security requirements are not checked. req's
// body is not read.
func (v *Validator) CheckRequest(req *http.Request, body []byte) error {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("%s %s: undocumented operation: %w", req.Method, req.URL.Path, err)
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	in := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: params,
		Route:      route,
		Options:    v.opts,
	}
	if err := openapi3filter.ValidateRequest(req.Context(), in); err != nil {
		var merr openapi3.MultiError
		if errors.As(err, &merr) && len(merr) == 1 {
			err = merr[0]
		}
		return fmt.Errorf("%s %s (%s): %w", req.Method, req.URL.Path, route.Operation.OperationID, err)
	}
	return nil
}
