package venue

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPartiesValidate(t *testing.T) {
	long := strings.Repeat("a", MaxPartyID)
	tests := []struct {
		name  string
		p     Parties
		field string // the one field named; "" for valid
	}{
		{"nothing given", Parties{}, ""},
		{"an LEI", Parties{ClientID: "5493001KJTIIGC8Y1R12"}, ""},
		{"AGGR", Parties{ClientID: "AGGR"}, ""},
		{"PNAL", Parties{ClientID: "PNAL"}, ""},
		{"a short code", Parties{ClientID: "Client42"}, ""},
		{"a short code of 50", Parties{ClientID: long}, ""},
		{"every field", Parties{ClientID: "7LTWFZYICNSX8D621K86", InvestmentDecision: "pm.desk-1",
			ExecutionDecision: "ALGO_7", Capacity: "AOTC"}, ""},
		{"MTCH", Parties{Capacity: "MTCH"}, ""},
		{"DEAL", Parties{Capacity: "DEAL"}, ""},
		{"bad LEI check digits", Parties{ClientID: "5493001KJTIIGC8Y1R13"}, "client_id_code"},
		{"digits that look like an LEI", Parties{ClientID: "12345678901234567890"}, "client_id_code"},
		{"a client id too long", Parties{ClientID: long + "a"}, "client_id_code"},
		{"a client id with a dot", Parties{ClientID: "a.b"}, "client_id_code"},
		{"a client id with a space", Parties{ClientID: "a b"}, "client_id_code"},
		{"an investment decision too long", Parties{InvestmentDecision: long + "a"}, "investment_decision_id"},
		{"an investment decision with a slash", Parties{InvestmentDecision: "a/b"}, "investment_decision_id"},
		{"an execution decision not ASCII", Parties{ExecutionDecision: "trädér"}, "execution_decision_id"},
		{"a bad capacity", Parties{Capacity: "AGENT"}, "trading_capacity"},
		{"a capacity in lower case", Parties{Capacity: "deal"}, "trading_capacity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate(%+v) = %v, want nil", tt.p, err)
				}
				return
			}
			var e *Error
			if !errors.Is(err, ErrInvalid) || !errors.As(err, &e) || len(e.Details) != 1 || e.Details[0].Field != tt.field {
				t.Fatalf("Validate(%+v) = %v, want one issue on %s", tt.p, err, tt.field)
			}
		})
	}
}

func TestPartiesValidateAs(t *testing.T) {
	names := PartyFields{ClientID: "448 PartyID (452=3)", InvestmentDecision: "448 PartyID (452=122)",
		ExecutionDecision: "448 PartyID (452=12)", Capacity: "528 OrderCapacity"}
	err := Parties{ClientID: "5493001KJTIIGC8Y1R13", InvestmentDecision: "x y", ExecutionDecision: "", Capacity: "X"}.ValidateAs(names)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("ValidateAs = %v, want a validation error", err)
	}
	var got []string
	for _, d := range e.Details {
		got = append(got, d.Field)
	}
	want := []string{names.ClientID, names.InvestmentDecision, names.Capacity}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ValidateAs fields (-want +got):\n%s", d)
	}
}

func TestPartiesDefaults(t *testing.T) {
	tests := []struct {
		name string
		p    Parties
		want Parties
	}{
		{"nothing given: own account, executed by the user", Parties{}, Parties{Capacity: "DEAL", ExecutionDecision: "u1"}},
		{"given fields stay", Parties{ClientID: "PNAL", InvestmentDecision: "pm1", ExecutionDecision: "algo-1", Capacity: "AOTC"},
			Parties{ClientID: "PNAL", InvestmentDecision: "pm1", ExecutionDecision: "algo-1", Capacity: "AOTC"}},
		{"a client on agency, executed by the user", Parties{ClientID: "C1", Capacity: "AOTC"},
			Parties{ClientID: "C1", Capacity: "AOTC", ExecutionDecision: "u1"}},
	}
	for _, tt := range tests {
		if got := tt.p.Defaults("u1"); got != tt.want {
			t.Errorf("%s: Defaults(u1) = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
