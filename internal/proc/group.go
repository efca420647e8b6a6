package proc

import "os/exec"

// InOwnGroup makes cmd, not yet started, lead a process group of its own
// and, when its context ends, kill that group (KillGroup) instead of the
// process alone: the tools reflect runs (git with ssh and credential
// helpers, an agent CLI with MCP servers and shells) start children that
// would otherwise outlive a timeout.
func InOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = groupAttr()
	cmd.Cancel = func() error { return KillGroup(cmd.Process.Pid) }
}
