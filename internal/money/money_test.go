package money

import "testing"

func TestUSD(t *testing.T) {
	for _, tt := range []struct {
		usd  float64
		want string
	}{
		{0, "0¢"},
		{0.001, "0.1¢"},
		{0.0001, "0.01¢"},
		{0.00012, "0.012¢"},
		{0.000001, "<0.001¢"},
		{0.0412, "4.12¢"},
		{0.05, "5¢"},
		{0.123456, "12.3¢"},
		{0.5, "50¢"},
		{0.999, "99.9¢"},
		{0.9999999, "$1.00"},
		{1, "$1.00"},
		{1.005, "$1.00"},
		{12.5, "$12.50"},
		{-0.001, "-0.1¢"},
	} {
		if got := USD(tt.usd); got != tt.want {
			t.Errorf("USD(%v) = %q, want %q", tt.usd, got, tt.want)
		}
	}
}
