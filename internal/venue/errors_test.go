package venue_test

import (
	"errors"
	"testing"

	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/google/go-cmp/cmp"
)

func TestValidatorMergeUnreported(t *testing.T) {
	other := errors.New("database down")
	tests := []struct {
		name    string
		err     error
		want    []venue.FieldIssue
		wantErr error
	}{
		{"nil", nil, []venue.FieldIssue{{Field: "min_piece", Issue: "must be a decimal"}}, nil},
		{"issues on other fields are added, those on a reported field dropped",
			venue.Invalid("Validation Error", venue.FieldIssue{Field: "min_piece", Issue: "must be positive"},
				venue.FieldIssue{Field: "isin", Issue: "must be an ISIN"}, venue.FieldIssue{Field: "isin", Issue: "is taken"}),
			[]venue.FieldIssue{{Field: "min_piece", Issue: "must be a decimal"}, {Field: "isin", Issue: "must be an ISIN"},
				{Field: "isin", Issue: "is taken"}}, nil},
		{"another kind passes through", other, []venue.FieldIssue{{Field: "min_piece", Issue: "must be a decimal"}}, other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v venue.Validator
			v.Addf("min_piece", "must be a decimal")
			if err := v.MergeUnreported(tt.err); err != tt.wantErr {
				t.Fatalf("MergeUnreported(%v) = %v, want %v", tt.err, err, tt.wantErr)
			}
			var got *venue.Error
			if !errors.As(v.Err(), &got) {
				t.Fatalf("Err() = %v, want a validation error", v.Err())
			}
			if diff := cmp.Diff(tt.want, got.Details); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
}
