package agents

import "testing"

// The Windows binary is reflect.exe: install accepts it, and its entries
// and MCP server are recognised as reflect's.
func TestReflectExeIsReflect(t *testing.T) {
	t.Parallel()
	if err := checkBinary("/opt/reflect/reflect.exe"); err != nil {
		t.Errorf("checkBinary(reflect.exe) = %v", err)
	}
	if err := checkBinary("/opt/reflect/reflect.exe.old"); err == nil {
		t.Error("checkBinary accepted reflect.exe.old")
	}
	if !isOurServer("/opt/reflect/reflect.exe", []string{"mcp"}) {
		t.Error("isOurServer(reflect.exe mcp) = false")
	}
}
