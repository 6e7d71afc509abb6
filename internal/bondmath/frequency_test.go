package bondmath

import (
	"errors"
	"testing"
)

func TestParseFrequency(t *testing.T) {
	tests := []struct {
		in   string
		want Frequency
	}{
		{"Annual", Annual}, {"annually", Annual}, {"1", Annual}, {"12M", Annual},
		{"Semi-annual", SemiAnnual}, {"SEMIANNUAL", SemiAnnual}, {"semi annual", SemiAnnual}, {"2", SemiAnnual}, {"6m", SemiAnnual},
		{"Quarterly", Quarterly}, {"4", Quarterly}, {"3M", Quarterly},
		{"Monthly", Monthly}, {"12", Monthly}, {" monthly ", Monthly},
	}
	for _, tt := range tests {
		got, err := ParseFrequency(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseFrequency(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "3", "weekly", "0", "semi", "24"} {
		if _, err := ParseFrequency(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseFrequency(%q) error = %v, want ErrInvalid", in, err)
		}
	}
	for _, f := range []Frequency{Annual, SemiAnnual, Quarterly, Monthly} {
		back, err := ParseFrequency(f.String())
		if err != nil || back != f {
			t.Errorf("ParseFrequency(%q) = %v, %v, want %v", f.String(), back, err, f)
		}
		if f.PerYear()*f.Months() != 12 {
			t.Errorf("%v: PerYear %d × Months %d != 12", f, f.PerYear(), f.Months())
		}
	}
	if Frequency(3).Valid() || Frequency(3).PerYear() != 0 || Frequency(0).Months() != 0 {
		t.Error("invalid frequencies must report zero")
	}
}
