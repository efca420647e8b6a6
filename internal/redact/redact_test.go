package redact

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// All secrets in this file and in testdata/ are fake: correctly shaped so
// the patterns see them, never issued by any provider.

type secretSample struct {
	kind, secret, line string // line holds the secret where "@@" was
	want               string // line with the placeholder
}

func loadSecrets(t testing.TB) []secretSample {
	t.Helper()
	var out []secretSample
	for _, row := range readLines(t, "secrets.txt") {
		f := strings.Split(row, "\t")
		if len(f) != 3 || !strings.Contains(f[2], "@@") {
			t.Fatalf("secrets.txt: malformed row %q", row)
		}
		out = append(out, secretSample{
			kind:   f[0],
			secret: f[1],
			line:   strings.ReplaceAll(f[2], "@@", f[1]),
			want:   strings.ReplaceAll(f[2], "@@", placeholder(f[0])),
		})
	}
	return append(out, pemSamples()...)
}

// pemSamples are multi-line private key blocks; the whole block goes.
func pemSamples() []secretSample {
	const body = "MIIEowIBAAKCAQEAFAKEFAKEFAKEexampleONLYnotAkey0123456789abcdefghij\n" +
		"klmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/FAKEFAKE==\n"
	block := func(label string) string {
		return "-----BEGIN " + label + "-----\n" + body + "-----END " + label + "-----"
	}
	var out []secretSample
	for _, label := range []string{"RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"} {
		out = append(out, secretSample{
			kind: "private-key", secret: body[:40],
			line: "$ cat id\n" + block(label) + "\n$ ssh-add id",
			want: "$ cat id\n[REDACTED:private-key]\n$ ssh-add id",
		})
	}
	// PEM headers of an encrypted legacy key are part of the block.
	legacy := "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,FAKE0123456789ABCDEF\n\n" + body + "-----END RSA PRIVATE KEY-----"
	out = append(out, secretSample{kind: "private-key", secret: "DEK-Info: AES-128-CBC,FAKE", line: legacy + "\nok", want: "[REDACTED:private-key]\nok"})
	// JSON-escaped inside a transcript line or a service account file: the
	// labelled value (up to its closing quote) and the block merge.
	escaped := strings.ReplaceAll(block("PRIVATE KEY"), "\n", `\n`)
	out = append(out, secretSample{
		kind: "private-key", secret: "FAKEFAKEFAKEexampleONLY",
		line: `{"type": "service_account", "private_key": "` + escaped + `\n", "client_email": "x@example.iam.gserviceaccount.com"}`,
		want: `{"type": "service_account", "private_key": "[REDACTED:private-key]", "client_email": "x@example.iam.gserviceaccount.com"}`,
	})
	// Truncated paste (head -3): no END line; the base64 lines still go.
	out = append(out, secretSample{
		kind: "private-key", secret: "klmnopqrstuvwxyz",
		line: "$ head -3 id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n" + body + "\nThat is the key.",
		want: "$ head -3 id_rsa\n[REDACTED:private-key]\n\nThat is the key.",
	})
	return out
}

func readLines(t testing.TB, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "# ") {
			continue
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSecretsRedacted(t *testing.T) {
	t.Parallel()
	samples := loadSecrets(t)
	kinds := map[string]bool{}
	for _, s := range samples {
		kinds[s.kind] = true
		got := String(s.line)
		if strings.Contains(got, s.secret) || !strings.Contains(got, placeholder(s.kind)) {
			t.Errorf("%s: secret survived or placeholder missing\n in:  %q\n out: %q", s.kind, s.line, got)
		}
		if got != s.want {
			t.Errorf("%s:\n in:   %q\n got:  %q\n want: %q", s.kind, s.line, got, s.want)
		}
		if !Contains(s.line) {
			t.Errorf("%s: Contains(%q) = false", s.kind, s.line)
		}
		// Surrounding prose and code on other lines are kept verbatim.
		const before, after = "Earlier: go test ./... passed.\n", "\nLater: commit 3f786850e387550fdab836ed7e6dc881de23001b."
		if got := String(before + s.line + after); got != before+s.want+after {
			t.Errorf("%s in context:\n got:  %q\n want: %q", s.kind, got, before+s.want+after)
		}
	}
	if len(samples) < 30 {
		t.Fatalf("only %d secret samples", len(samples))
	}
	t.Logf("%d secret samples redacted across %d kinds", len(samples), len(kinds))
}

func TestLookalikesPreserved(t *testing.T) {
	t.Parallel()
	lines := readLines(t, "lookalikes.txt")
	for _, line := range lines {
		if got := String(line); got != line {
			t.Errorf("changed a look-alike:\n in:  %q\n out: %q", line, got)
		}
		if Contains(line) {
			t.Errorf("Contains(%q) = true", line)
		}
	}
	code, err := os.ReadFile(filepath.Join("testdata", "code.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := String(string(code)); got != string(code) {
		t.Errorf("changed code.txt:\n%s", got)
	}
	if len(lines) < 30 {
		t.Fatalf("only %d look-alikes", len(lines))
	}
	t.Logf("%d look-alike lines (+ code.txt) preserved byte-identical", len(lines))
}

func TestSeveralSecretsOnOneLine(t *testing.T) {
	t.Parallel()
	in := "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls"
	want := "AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key] AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-key] aws s3 ls"
	if got := String(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A label and a token shape on the same value yield one placeholder with
// the more specific kind.
func TestOverlapTakesSpecificKind(t *testing.T) {
	t.Parallel()
	in := `GITHUB_TOKEN="ghp_FAKEexample0123456789abcdefghijklmno"`
	if got, want := String(in), `GITHUB_TOKEN="[REDACTED:github-token]"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSmallValuesUnderSecretLabels(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"TOKEN_BUDGET=20000", "API_KEY_ROTATION_DAYS=90", "password_min_length: 12",
		"REQUIRE_AUTH=false", "token = None", "secret: null", "AUTH=off", "TOKEN_TTL=30s",
		`PASSWORD=""`, "token: ''",
	} {
		if got := String(in); got != in {
			t.Errorf("String(%q) = %q, want unchanged", in, got)
		}
	}
	// Numbers too long to be a count are treated as secrets (PIN-like).
	if got := String("PASSWORD=123456789012"); got != "PASSWORD=[REDACTED:password]" {
		t.Errorf("long numeric password: %q", got)
	}
}

func TestPrivateBlocks(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"a <private>hidden</private> b", "a [private] b"},
		{"a <PRIVATE>hidden</Private> b", "a [private] b"},
		{"x <private>line one\nline two\n</private>\ny", "x [private]\ny"},
		{"1 <private>a</private> 2 <private>b</private> 3", "1 [private] 2 [private] 3"},
		// Nested-looking: the block ends at the matching close tag.
		{"a <private>out <private>in</private> still out</private> b", "a [private] b"},
		// Unclosed: private to the end of the text.
		{"keep this <private>everything\nafter here", "keep this [private]"},
		{"keep <private>a</private> and <private>b", "keep [private] and [private]"},
		{"nested unclosed <private>a <private>b</private> c", "nested unclosed [private]"},
		// A stray close tag is ordinary text.
		{"a </private> b", "a </private> b"},
		{"no tags at all", "no tags at all"},
		// Secrets around a block are still redacted.
		{"key AKIAIOSFODNN7EXAMPLE <private>x</private>", "key [REDACTED:aws-access-key] [private]"},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got  %q\n want %q", tt.in, got, tt.want)
		}
	}
}

func TestIdempotentOnCorpus(t *testing.T) {
	t.Parallel()
	var in []string
	for _, s := range loadSecrets(t) {
		in = append(in, s.line)
	}
	in = append(in, readLines(t, "lookalikes.txt")...)
	for _, s := range in {
		once := String(s)
		if twice := String(once); twice != once {
			t.Errorf("not idempotent:\n once  %q\n twice %q", once, twice)
		}
	}
}

// Inputs where one rule's output meets another rule (found by fuzzing or
// by construction) must still be stable under a second pass.
func TestIdempotentTricky(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"oauth_token: gho_0FAKEgithubOAUTHtoken0123456789abcde<private>x</private>tail",
		" Apikey:$!Apikey:00A",
		"https://AKIAIOSFODNN7EXAMPLE:pw123456@host/x",
		"api_key: Bearer abc123def456",
		"password=<private>x</private>hunter2",
		`token: str = "abc"`,
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig",
		`{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"}`,
		"x=1 token=ghp_FAKEexample0123456789abcdefghijklmno&y=2 secret: [private]",
	} {
		once := String(in)
		if twice := String(once); twice != once {
			t.Errorf("not idempotent on %q:\n once  %q\n twice %q", in, once, twice)
		}
		if once == in {
			t.Errorf("String(%q) changed nothing", in)
		}
	}
	// A labelled value already holding a placeholder was decided on by an
	// earlier pass and is left alone.
	const done = "password=abc[REDACTED:jwt]def"
	if got := String(done); got != done {
		t.Errorf("String(%q) = %q, want it unchanged", done, got)
	}
}

func TestBytes(t *testing.T) {
	t.Parallel()
	in := []byte("token: ghp_FAKEexample0123456789abcdefghijklmno")
	if got, want := string(Bytes(in)), "token: [REDACTED:github-token]"; got != want {
		t.Errorf("Bytes = %q, want %q", got, want)
	}
	clean := []byte("nothing to see")
	if got := Bytes(clean); &got[0] != &clean[0] {
		t.Error("Bytes copied a clean input; want it returned as is")
	}
}

func TestNonASCIIKeepsOffsets(t *testing.T) {
	t.Parallel()
	// strings.ToLower would change the length of İ; offsets must still line up.
	in := "İİİ Ünïcödé password=hunter2! ✓"
	if got, want := String(in), "İİİ Ünïcödé password=[REDACTED:password] ✓"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// privateSentinel marks the content of a <private> block in the fuzz target;
// it is removed from the rest of the input so any occurrence in the output
// is a leak.
const privateSentinel = "\uE000"

func FuzzString(f *testing.F) {
	for _, s := range loadSecrets(f) {
		f.Add(s.line, "secret", "tail")
	}
	for _, s := range readLines(f, "lookalikes.txt") {
		f.Add("x", s, s)
	}
	f.Add("<private>", "a</private>b", "</PRIVATE>")
	f.Add("password=", "hunter2", "=x")
	f.Add("https://u:", "p@ss", "@h/")
	f.Fuzz(func(t *testing.T, prefix, content, suffix string) {
		plain := prefix + content + suffix
		once := String(plain)
		if twice := String(once); twice != once {
			t.Fatalf("not idempotent on %q:\n once  %q\n twice %q", plain, once, twice)
		}
		if strings.Contains(asciiLower(once), openTag) {
			t.Fatalf("<private> survived in %q", once)
		}

		prefix = strings.ReplaceAll(prefix, privateSentinel, "")
		suffix = strings.ReplaceAll(suffix, privateSentinel, "")
		// Without '<' the content cannot close its block early.
		content = strings.NewReplacer(privateSentinel, "", "<", "").Replace(content)
		in := prefix + "<private>" + privateSentinel + content + privateSentinel + "</private>" + suffix
		out := String(in)
		if strings.Contains(out, privateSentinel) {
			t.Fatalf("private content leaked:\n in  %q\n out %q", in, out)
		}
		if again := String(out); again != out {
			t.Fatalf("not idempotent on %q:\n once  %q\n twice %q", in, out, again)
		}
	})
}

// benchText is ~100 kB of chunk repeated, with three secrets spread out.
func benchText(tb testing.TB, chunk string) string {
	secrets := []string{
		"export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n",
		"curl -H 'Authorization: Bearer FAKEopaqueBearer0123456789' https://api.example.com\n",
		"DATABASE_URL=postgres://admin:Sup3rS3cret@db.internal:5432/app\n",
	}
	var sb strings.Builder
	n := 100_000 / len(chunk)
	for i := 0; i < n; i++ {
		sb.WriteString(chunk)
		if k := i * len(secrets) / n; i == (2*k+1)*n/(2*len(secrets)) {
			sb.WriteString(secrets[k])
		}
	}
	text := sb.String()
	if got := strings.Count(String(text), "[REDACTED:"); got != len(secrets) {
		tb.Fatalf("bench text has %d redactions, want %d", got, len(secrets))
	}
	return text
}

func readTestdata(tb testing.TB, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// BenchmarkString100KB: a transcript-like mix of prose, Go and Python code,
// shell output and config lines (testdata/code.txt) with three secrets.
func BenchmarkString100KB(b *testing.B) {
	benchString(b, benchText(b, readTestdata(b, "code.txt")))
}

// BenchmarkString100KBDense: the look-alike corpus repeated, so nearly
// every line holds markers that send rules to work: a worst realistic case.
func BenchmarkString100KBDense(b *testing.B) {
	benchString(b, benchText(b, strings.Join(readLines(b, "lookalikes.txt"), "\n")+"\n"))
}

// BenchmarkString100KBClean: ordinary prose without any marker.
func BenchmarkString100KBClean(b *testing.B) {
	text := strings.Repeat("The hook reads the payload and appends one line to the queue.\n", 1600)
	benchString(b, text)
}

func benchString(b *testing.B, text string) {
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		String(text)
	}
}

// adversarialInputs are repetitive inputs that would make a rule with
// backtracking or rescanning quadratic.
func adversarialInputs() []string {
	units := []string{
		"<private>", "</private><private>", "-----BEGIN RSA PRIVATE KEY-----\n", "-----BEGIN PRIVATE KEY-----",
		"a://", "u:p@h://", "token=", "f(token=", `token="`, "sk-A1b-", "eyJ", "eyJaaaaaaaaaaa.eyJaaaaaaaaaaa.",
		"bearer ", "Authorization: ", "aws_secret_access_key=", "key: ", "--password ", "ghp_", "AKIA",
		"password:=", "x", "token is ", "\\\"token\\\":\\\"",
		"curl ", "curl -u a:b ", "mysql -p", "<token>", "<token>x</token>", `("token", "`, "var token string = ",
		"Z2hwX", "c2st", "LS0tLS1CRUdJT", "QUtJQ", "hf_", "SG.", "A3-", "x8Q~", "token ?= ", "$token .= ",
	}
	all := strings.Join(units, "")
	units = append(units, all)
	return units
}

// Redacting adversarial input is idempotent. How its time grows with size is
// a speed property, measured by BenchmarkAdversarialInputs rather than
// asserted here against a clock a busy machine would break.
func TestAdversarialInputsIdempotent(t *testing.T) {
	t.Parallel()
	for _, u := range adversarialInputs() {
		in := strings.Repeat(u, 200_000/len(u)+1)
		out := String(in)
		if String(out) != out {
			t.Errorf("String(%q × %d) is not idempotent", u, len(in)/len(u))
		}
	}
}

// BenchmarkAdversarialInputs reports ns/op for each repetitive input at
// 200 kB and 800 kB; linear rules take about 4× as long for the larger one.
// Compare with: go test -run '^$' -bench AdversarialInputs ./internal/redact/
func BenchmarkAdversarialInputs(b *testing.B) {
	for i, u := range adversarialInputs() {
		for _, size := range []int{200_000, 800_000} {
			in := strings.Repeat(u, size/len(u)+1)
			b.Run(fmt.Sprintf("unit%02d/%dkB", i, size/1000), func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				for b.Loop() {
					String(in)
				}
			})
		}
	}
}

// String keeps no state between calls, so hooks may call it concurrently
// (run with -race).
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	samples := loadSecrets(t)
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			ok := true
			for _, s := range samples {
				ok = ok && String(s.line) == s.want
			}
			done <- ok
		}()
	}
	for g := 0; g < 4; g++ {
		if !<-done {
			t.Error("concurrent String gave a different result")
		}
	}
}

// A Twilio API key sid and the secret given with it both go (issue 27).
func TestTwilioKeyAndSecret(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{`client = Client("SK0123456789abcdef0123456789abcdef", "aBcDeFgHiJkLmNoPqRsTuVwXyZ012345")`,
			`client = Client("[REDACTED:twilio-key]", "[REDACTED:twilio-key]")`},
		{"curl -u SK0123456789abcdef0123456789abcdef:aBcDeFgHiJkLmNoPqRsTuVwXyZ012345 https://api.twilio.com",
			"curl -u [REDACTED:twilio-key]:[REDACTED:twilio-key] https://api.twilio.com"},
		{"key SK0123456789abcdef0123456789abcdef secret aBcDeFgHiJkLmNoPqRsTuVwXyZ012345",
			"key [REDACTED:twilio-key] secret [REDACTED:twilio-key]"},
	} {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got  %q\n want %q", tt.in, got, tt.want)
		}
	}
}

// Each command's password option, and none of its other options: a -p
// that is a port (psql, redis-cli, docker run) or a prompt (mysql -p db)
// stays (issue 27).
func TestCommandPasswordOptions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"docker login -u bob -p Xk9dockerPw && docker run -p 8080:80 app",
			"docker login -u bob -p [REDACTED:password] && docker run -p 8080:80 app"},
		{"mysql -p app_db; mysql -pS3cret app_db", "mysql -p app_db; mysql -p[REDACTED:password] app_db"},
		{"sshpass -p 'two words' ssh host", "sshpass -p '[REDACTED:password]' ssh host"},
		{"zip -P zipPw123 a.zip f", "zip -P [REDACTED:password] a.zip f"},
		{"unzip -P zipPw123 a.zip", "unzip -P [REDACTED:password] a.zip"},
		{"mongodump -u a -p MongoPw1 --db x", "mongodump -u a -p [REDACTED:password] --db x"},
		{"mariadb-dump -pMariaPw1 db", "mariadb-dump -p[REDACTED:password] db"},
		{"mosquitto_sub -P MqttPw1 -t x", "mosquitto_sub -P [REDACTED:password] -t x"},
		{"ldapadd -x -w LdapPw1 -f a.ldif", "ldapadd -x -w [REDACTED:password] -f a.ldif"},
		{"helm registry login -u me -p HelmPw1 reg.io", "helm registry login -u me -p [REDACTED:password] reg.io"},
		{"sudo DOCKER login -p Xk9dockerPw", "sudo DOCKER login -p [REDACTED:password]"},
		{"mosquitto_pub -p 1883 -P MqttPw1 -t x", "mosquitto_pub -p 1883 -P [REDACTED:password] -t x"},
		{"ssh-keygen -t ed25519 -N 'Passphr4se' -f k", "ssh-keygen -t ed25519 -N '[REDACTED:password]' -f k"},
		{"keytool -list -storepass Chang3it -keystore k.jks", "keytool -list -storepass [REDACTED:password] -keystore k.jks"},
		{"7z a -pZipS3cret out.7z dir", "7z a -p[REDACTED:password] out.7z dir"},
		{"az login -u me@example.com -p AzPw1234", "az login -u me@example.com -p [REDACTED:password]"},
		{"ipmitool -I lanplus -H bmc -U admin -P IpmiPw1 power status", "ipmitool -I lanplus -H bmc -U admin -P [REDACTED:password] power status"},
		// An earlier word that merely starts like a command hides nothing.
		{"dockerfile ok; docker login -p Xk9dockerPw", "dockerfile ok; docker login -p [REDACTED:password]"},
		{"see curl_wrapper and curl -u admin:Hunter22 https://x", "see curl_wrapper and curl -u admin:[REDACTED:password] https://x"},
	} {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got  %q\n want %q", tt.in, got, tt.want)
		}
		if once := String(tt.in); String(once) != once {
			t.Errorf("not idempotent on %q", tt.in)
		}
	}
}
