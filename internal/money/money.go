// Package money formats what the drainer's writers spend for people to
// read: a dollar amount under a dollar is shown in cents with as many
// decimals as it takes, so a run that cost a tenth of a cent never reads
// "$0.00".
package money

import (
	"math"
	"strconv"
	"strings"
)

// USD formats an amount of dollars: "$1.25" from a dollar up, "12¢",
// "3.4¢", "0.1¢", "0.012¢" under one (three significant digits at most,
// trailing zeros dropped), "0¢" for nothing, and "<0.001¢" for a positive
// amount too small for that. Negative amounts (never recorded) get a
// leading minus.
func USD(usd float64) string {
	if math.IsNaN(usd) || math.IsInf(usd, 0) {
		return "?"
	}
	if usd < 0 {
		return "-" + USD(-usd)
	}
	if usd >= 1 {
		return "$" + strconv.FormatFloat(usd, 'f', 2, 64)
	}
	cents := usd * 100
	if cents == 0 {
		return "0¢"
	}
	// Decimals for three significant digits, at most three.
	decimals := 0
	for d := cents; d < 100 && decimals < 3; d *= 10 {
		decimals++
	}
	s := strconv.FormatFloat(cents, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "0" {
		return "<0.001¢"
	}
	if s == "100" { // 99.9996¢ rounds up to a dollar
		return "$1.00"
	}
	return s + "¢"
}
