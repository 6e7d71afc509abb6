package venue

import (
	"testing"

	"github.com/quagmt/udecimal"
)

func TestValidISIN(t *testing.T) {
	// Published ISINs of real bonds and securities.
	tests := []struct {
		isin string
		want bool
	}{
		{"US0378331005", true},  // Apple Inc. (ISO 6166 worked example)
		{"DE0001102580", true},  // Bund 0% 15/02/2032
		{"FR0013508470", true},  // OAT 0% 25/02/2026
		{"XS2447561403", true},  // a Eurobond
		{"US0378331006", false}, // wrong check digit
		{"DE000110258", false},  // too short
		{"de0001102580", false}, // lower case
		{"", false},
	}
	for _, tt := range tests {
		if got := ValidISIN(tt.isin); got != tt.want {
			t.Errorf("ValidISIN(%q) = %v, want %v", tt.isin, got, tt.want)
		}
	}
}

func TestValidLEI(t *testing.T) {
	tests := []struct {
		lei  string
		want bool
	}{
		{"5493001KJTIIGC8Y1R12", true},  // Bloomberg Finance L.P. (GLEIF)
		{"7LTWFZYICNSX8D621K86", true},  // Deutsche Bank AG (GLEIF)
		{"5493001KJTIIGC8Y1R13", false}, // wrong check digits
		{"5493001KJTIIGC8Y1R1", false},
	}
	for _, tt := range tests {
		if got := ValidLEI(tt.lei); got != tt.want {
			t.Errorf("ValidLEI(%q) = %v, want %v", tt.lei, got, tt.want)
		}
	}
	prefix := "5493001KJTIIGC8Y1R"
	if got := prefix + LEICheckDigits(prefix); got != "5493001KJTIIGC8Y1R12" {
		t.Errorf("LEICheckDigits completes %q, want 5493001KJTIIGC8Y1R12", got)
	}
}

func TestValidText(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"", true},
		{"Deutsche Börse €", true},
		{"a\x00b", false},
		{"\xff\xfe", false},
		{"caf\xc3", false}, // a truncated UTF-8 sequence
	}
	for _, tt := range tests {
		if got := ValidText(tt.s); got != tt.want {
			t.Errorf("ValidText(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestAmountIssue(t *testing.T) {
	tests := []struct {
		s    string
		want bool // an issue
	}{
		{"999999999999999999.99999999", false},
		{"-999999999999999999", false}, // the sign is the caller's
		{"0.00000001", false},
		{"1.500000000000", false}, // trailing zeros are not significant
		{"1000000000000000000", true},
		{"-1000000000000000000", true},
		{"0.000000001", true},
		{"99.123456789", true},
	}
	for _, tt := range tests {
		if got := AmountIssue(udecimal.MustParse(tt.s)) != ""; got != tt.want {
			t.Errorf("AmountIssue(%s) != \"\" = %v, want %v", tt.s, got, tt.want)
		}
		if _, ok := ParseAmount(tt.s); ok != (!tt.want && tt.s[0] != '-') {
			t.Errorf("ParseAmount(%s) ok = %v", tt.s, ok)
		}
	}
}
