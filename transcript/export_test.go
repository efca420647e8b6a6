package transcript

// Test helpers exported to the external tests in writer_test.go.
var (
	Lines           = lines
	Quote           = quote
	CUser           = cUser
	CAsst           = cAsst
	CBash           = cBash
	CResult         = cResult
	XUser           = xUser
	XUserMsg        = xUserMsg
	XCall           = xCall
	XOutput         = xOutput
	CondenseString  = condenseString
	AllText         = allText
	Briefs          = briefs
	FixtureSecrets  = fixtureSecrets
	MaxPromptBytes  = maxPromptBytes
	MaxCommandBytes = maxCommandBytes
)

// XMeta is a Codex session_meta record.
const XMeta = xMeta

// WithDefaults fills the zero fields of l with the defaults.
func (l Limits) WithDefaults() Limits { return l.withDefaults() }
