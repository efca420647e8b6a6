package redact

import "strings"

// command redacts passwords given as command-line options, where no key
// names them: curl -u user:password (--user), and the MySQL clients'
// -pPASSWORD (mysql, mysqldump, mysqladmin: the password glued to -p). at
// is the position of the command's name; its arguments run to the end of
// the line (or of the last line continued with a backslash) or to a shell
// operator (|, &&, ;); placeholders hold none of these, so a second pass
// sees the same arguments. A hit inside the arguments of the last command
// read is skipped, which keeps "curl curl curl …" linear.
func (f *finder) command(at int, add addFunc) {
	s := f.s
	if at > 0 && isWordChar(s[at-1]) || at < f.cmdEnd {
		return
	}
	// No byte limit: a window would cut differently once placeholders
	// lengthen the text, and String must be idempotent. Each byte is read
	// by one command at most.
	end := at
	for end < len(s) && (s[end] != '\n' || end > at && s[end-1] == '\\') && s[end] != '|' && s[end] != ';' && s[end] != '&' {
		end++
	}
	f.cmdEnd = end
	name := at
	for name < end && isWordChar(s[name]) {
		name++
	}
	curl := asciiLower(s[at:name]) == "curl"
	for i := name; i < end; {
		for i < end && isBlankOrBreak(s[i]) {
			i++
		}
		j := i
		for j < end && !isBlankOrBreak(s[j]) {
			j++
		}
		arg := s[i:j]
		switch {
		case arg == "":
		case curl && (arg == "-u" || arg == "--user"):
			a := j
			for a < end && isBlankOrBreak(s[a]) {
				a++
			}
			b := a
			for b < end && !isBlankOrBreak(s[b]) {
				b++
			}
			userPassword(s, a, b, add)
			j = b
		case curl && strings.HasPrefix(arg, "--user="):
			userPassword(s, i+len("--user="), j, add)
		case curl && strings.HasPrefix(arg, "-u"):
			userPassword(s, i+2, j, add)
		case !curl && len(arg) > 2 && strings.HasPrefix(arg, "-p") && arg[2] != '-':
			if v := strings.Trim(arg[2:], `"'`); !notSecret(v, true) {
				a := i + 2 + strings.Index(arg[2:], v)
				add(a, a+len(v), "password", prioLabeled)
			}
		}
		i = j
	}
}

// userPassword redacts the password of a "user:password" argument in
// s[a:b], quoted or not. Placeholders and references stay.
func userPassword(s string, a, b int, add addFunc) {
	arg := s[a:b]
	if t := strings.Trim(arg, `"'`); len(t) < len(arg) {
		a += strings.Index(arg, t)
		arg = t
	}
	c := strings.IndexByte(arg, ':')
	if c < 0 {
		return
	}
	pw := arg[c+1:]
	if pw == "" || notSecret(pw, true) || docPasswords[asciiLower(pw)] || strings.Trim(pw, "*x") == "" {
		return
	}
	add(a+c+1, a+len(arg), "password", prioLabeled)
}

func isBlankOrBreak(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
