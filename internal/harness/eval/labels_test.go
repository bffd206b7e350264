package eval

import "testing"

func TestNLIGoldLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"entailment", "supports", true},
		{"neutral", "neutral", true},
		{"contradiction", "refutes", true},
		{" Entailment ", "supports", true},
		{"CONTRADICTION", "refutes", true},
		{"-", "", false},
		{"", "", false},
		{"supports", "", false},
	}
	for _, tt := range tests {
		got, ok := NLIGoldLabel(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("NLIGoldLabel(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestEvidenceGoldLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"SUPPORTS", "supports", true},
		{"REFUTES", "refutes", true},
		{"NOT_ENOUGH_INFO", "neutral", true},
		{"DISPUTED", "", false}, // a claim label, never an evidence label
		{"supports", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := EvidenceGoldLabel(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("EvidenceGoldLabel(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestClaimGoldClass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"SUPPORTS", ClaimSupports, true},
		{"REFUTES", ClaimRefutes, true},
		{"NOT_ENOUGH_INFO", ClaimNotEnoughInfo, true},
		{"DISPUTED", ClaimDisputed, true},
		{" DISPUTED\n", ClaimDisputed, true},
		{"disputed", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := ClaimGoldClass(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ClaimGoldClass(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestVerdictClass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		verdict, want string
		ok            bool
	}{
		{"well_supported", ClaimSupports, true},
		{"supported", ClaimSupports, true},
		{"likely_false", ClaimRefutes, true},
		{"unverified", ClaimNotEnoughInfo, true},
		{"contested", ClaimDisputed, true},
		{"SUPPORTS", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := VerdictClass(tt.verdict)
		if got != tt.want || ok != tt.ok {
			t.Errorf("VerdictClass(%q) = %q, %v; want %q, %v", tt.verdict, got, ok, tt.want, tt.ok)
		}
	}
}
