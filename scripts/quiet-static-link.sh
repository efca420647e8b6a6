#!/bin/sh
# quiet-static-link.sh CMD [ARGS...]: runs a go build or go install that links
# statically (the Makefile's LDFLAGS) and passes its stderr through, minus the
# two warnings glibc's linker prints for every static cgo binary:
#
#   warning: Using 'getaddrinfo' in statically linked applications requires
#   at runtime the shared libraries from the glibc version used for linking
#   (and the same for 'dlopen')
#
# reflect calls neither: it resolves names with Go's own resolver
# (cmd/reflect/main.go) and loads no SQLite extensions. Any other output,
# and the command's exit status, are kept.
log=$(mktemp "${TMPDIR:-/tmp}/reflect-link.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
"$@" 2>"$log"
rc=$?
awk '
  function emit(s) { if (hdr != "") { print hdr; hdr = "" } print s }
  /requires at runtime the shared libraries from the glibc version used for linking/ { fn = ""; next }
  /^# /                  { if (fn != "") emit(fn); fn = ""; hdr = $0; next }
  /: in function [`'"'"']/ { if (fn != "") emit(fn); fn = $0; next }
  { if (fn != "") { emit(fn); fn = "" } emit($0) }
  END { if (fn != "") emit(fn) }
' "$log" >&2
exit $rc
