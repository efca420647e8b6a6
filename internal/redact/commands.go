package redact

import "strings"

// cmdSpec says which options of a command carry a password, where no key
// names it. Each command's own manual decides: psql -p and redis-cli -p
// are ports, mysql -p PW prompts (PW is the database), docker run -p
// publishes a port, so none of those is here.
type cmdSpec struct {
	// next are options whose next argument is the password (sshpass -p
	// PW), also written --opt=PW.
	next []string
	// glued are options with the password glued on (mysql -pPW).
	glued []string
	// login: the options count only after a "login" argument (docker
	// login -p PW; docker run -p is a port).
	login bool
	// user: -u/--user take user:password (curl).
	user bool
}

var (
	mysqlSpec = cmdSpec{glued: []string{"-p"}}
	mongoSpec = cmdSpec{next: []string{"-p"}}
	loginSpec = cmdSpec{next: []string{"-p"}, login: true}
	ldapSpec  = cmdSpec{next: []string{"-w"}, glued: []string{"-w"}}
	capitalP  = cmdSpec{next: []string{"-P"}}
	sshKeygen = cmdSpec{next: []string{"-N", "-P"}}
	keytool   = cmdSpec{next: []string{"-storepass", "-keypass", "-srcstorepass", "-deststorepass", "-srckeypass", "-destkeypass"}}
	// cmdMarkers find the commands: each is a part of a name (or of a
	// family's common prefix) and how far into the name it starts, chosen
	// so that its first two letters are rare in prose and code ("do", "he",
	// "re" are everywhere; "ck", "lm", "s-" are not).
	cmdMarkers = []cmdMarker{
		{"rl", 2}, {"mysql", 0}, {"iadb", 3}, {"mongo", 0}, {"hpass", 2}, {"s-cli", 4}, {"cker", 2}, {"dman", 2},
		{"dctl", 3}, {"ah", 5}, {"kopeo", 1}, {"lm", 2}, {"az", 0}, {"cf", 0}, {"oc", 0}, {"dap", 1},
		{"lcmd", 2}, {"bcp", 0}, {"pmitool", 1}, {"o_", 8}, {"zip", 0}, {"zip", 2}, {"7z", 0}, {"ygen", 6},
		{"ytool", 2}, {"sl", 5},
	}
)

type cmdMarker struct {
	text string
	lead int
}

// commands maps a command name (lowercase) to its password options.
var commands = map[string]cmdSpec{
	"curl":  {user: true},
	"mysql": mysqlSpec, "mysqldump": mysqlSpec, "mysqladmin": mysqlSpec, "mysqlimport": mysqlSpec,
	"mysqlcheck": mysqlSpec, "mysqlshow": mysqlSpec, "mysqlslap": mysqlSpec, "mysqlpump": mysqlSpec,
	"mariadb": mysqlSpec, "mariadb-dump": mysqlSpec, "mariadb-admin": mysqlSpec,
	"mongo": mongoSpec, "mongosh": mongoSpec, "mongodump": mongoSpec, "mongorestore": mongoSpec,
	"mongoexport": mongoSpec, "mongoimport": mongoSpec, "mongostat": mongoSpec, "mongotop": mongoSpec,
	"sshpass":   {next: []string{"-p"}, glued: []string{"-p"}},
	"redis-cli": {next: []string{"-a", "--pass"}},
	"docker":    loginSpec, "podman": loginSpec, "nerdctl": loginSpec, "buildah": loginSpec, "skopeo": loginSpec,
	"helm": loginSpec, "az": loginSpec, "cf": loginSpec, "oc": loginSpec,
	"ldapsearch": ldapSpec, "ldapadd": ldapSpec, "ldapmodify": ldapSpec, "ldapdelete": ldapSpec,
	"ldapwhoami": ldapSpec, "ldappasswd": ldapSpec, "ldapcompare": ldapSpec, "ldapmodrdn": ldapSpec,
	"sqlcmd": capitalP, "bcp": capitalP, "ipmitool": capitalP, "mosquitto_pub": capitalP, "mosquitto_sub": capitalP,
	"zip": capitalP, "unzip": capitalP,
	"7z":         {glued: []string{"-p"}},
	"ssh-keygen": sshKeygen,
	"keytool":    keytool,
	// openssl -passin pass:PW; the "pass:" prefix is kept.
	"openssl": {next: []string{"-passin", "-passout", "-pass", "-k"}},
}

// command redacts passwords given as command-line options of the command
// named at at (see commands). Its arguments run to the end of the line (or
// of the last line continued with a backslash) or to a shell operator (|,
// &&, ;); placeholders hold none of these, so a second pass sees the same
// arguments. A hit inside the arguments of the last command read is
// skipped, which keeps "curl curl curl …" linear; a word that merely
// starts like a command (curl_wrapper, dockerfile) reads nothing and so
// hides nothing after it.
func (f *finder) command(at int, add addFunc) {
	s := f.s
	if at > 0 && (isWordChar(s[at-1]) || s[at-1] == '-') || at < f.cmdEnd {
		return
	}
	name := at
	for name < len(s) && (isWordChar(s[name]) || s[name] == '-') {
		name++
	}
	spec, ok := commands[asciiLower(s[at:name])]
	if !ok || name < len(s) && !isBlankOrBreak(s[name]) {
		return
	}
	// No byte limit: a window would cut differently once placeholders
	// lengthen the text, and String must be idempotent. Each byte is read
	// by one command at most.
	end := name
	for end < len(s) && (s[end] != '\n' || s[end-1] == '\\') && s[end] != '|' && s[end] != ';' && s[end] != '&' {
		end++
	}
	f.cmdEnd = end
	login := !spec.login
	for k := name; k < end; {
		i, j := nextArg(s, k, end)
		arg := s[i:j]
		switch {
		case arg == "":
		case arg == "login":
			login = true
		case spec.user && (arg == "-u" || arg == "--user"):
			a, b := nextArg(s, j, end)
			userPassword(s, a, b, add)
			j = b
		case spec.user && strings.HasPrefix(arg, "--user="):
			userPassword(s, i+len("--user="), j, add)
		case spec.user && strings.HasPrefix(arg, "-u"):
			userPassword(s, i+2, j, add)
		case !login:
		default:
			for _, o := range spec.next {
				switch {
				case arg == o:
					a, b := nextArg(s, j, end)
					if a < b && s[a] != '-' {
						optionPassword(s, a, b, add)
						j = b
					}
				case strings.HasPrefix(arg, o+"="):
					optionPassword(s, i+len(o)+1, j, add)
				}
			}
			for _, o := range spec.glued {
				if len(arg) > len(o) && strings.HasPrefix(arg, o) && arg[len(o)] != '-' && arg[len(o)] != '=' {
					optionPassword(s, i+len(o), j, add)
				}
			}
		}
		k = j
	}
}

// nextArg returns the bounds of the shell word after the blanks at i,
// before end: quoted parts run to their closing quote, blanks and all.
func nextArg(s string, i, end int) (int, int) {
	for i < end && isBlankOrBreak(s[i]) {
		i++
	}
	j := i
	for j < end && !isBlankOrBreak(s[j]) {
		if s[j] == '"' || s[j] == '\'' {
			if c := strings.IndexByte(s[j+1:end], s[j]); c >= 0 {
				j += c + 2
				continue
			}
		}
		j++
	}
	return i, j
}

// optionPassword redacts the password argument s[a:b], quoted or not,
// keeping openssl's "pass:" prefix. An option is explicit, so even a short
// or numeric value goes; references, placeholders and documentation
// stand-ins stay.
func optionPassword(s string, a, b int, add addFunc) {
	arg := s[a:b]
	if t := strings.Trim(arg, `"'`); len(t) < len(arg) {
		a += strings.Index(arg, t)
		arg = t
	}
	if p, ok := strings.CutPrefix(arg, "pass:"); ok {
		a += len("pass:")
		arg = p
	}
	if arg == "" || strings.Contains(arg, "[REDACTED:") || isPlaceholders(arg) || isReference(arg) ||
		docPasswords[asciiLower(arg)] || strings.Trim(arg, "*x") == "" || arg[0] == '`' || arg[0] == '[' {
		return
	}
	add(a, a+len(arg), "password", prioLabeled)
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
