package redact

import "strings"

// commandArgs redacts passwords given as command-line options, where no
// key names them: curl -u user:password (--user), and the MySQL clients'
// -pPASSWORD (mysql, mysqldump, mysqladmin: the password glued to -p). at is the
// position of the command's name; only the rest of its line is read.
func commandArgs(s string, at int, add addFunc) {
	if at > 0 && isWordChar(s[at-1]) {
		return
	}
	// The command runs to the end of its line, or of the last line
	// continued with a backslash.
	limit := min(len(s), at+2048)
	end := at
	for end < limit && (s[end] != '\n' || end > at && s[end-1] == '\\') {
		end++
	}
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
