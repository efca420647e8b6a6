package graph

import (
	"sort"
	"strings"
	"sync"
)

// toolTable is the curated list of developer tools, libraries, languages,
// services and protocols recognised by name in prose. One line each:
//
//	Display|alias|alias  type  [sub=a,b,c]
//
// A name ending in "*" is also an ordinary English word ("go", "make",
// "node", "black"): it counts only where the text shows that the tool is
// meant (see toolContext), while its unambiguous forms ("golang",
// "node.js") always count. sub lists the subcommands that, following the
// name, show it is a command line ("go test", "make build").
const toolTable = `
git tool
git-lfs tool
gh tool
docker tool
docker-compose tool
podman tool
kubectl tool
Helm* tool sub=install,upgrade,template,repo,lint,rollback,uninstall,chart,charts
minikube tool
kind* tool sub=create,delete,load,get
k9s tool
Terraform tool
Pulumi tool
Ansible tool
Vagrant* tool sub=up,ssh,destroy,halt,provision,reload
Packer* tool sub=build,init,validate,fmt
make* tool sub=build,test,install,clean,check,lint,release,run
CMake tool
Bazel tool
Gradle|gradlew tool
Maven*|mvn tool
npm tool
npx tool
Yarn* tool sub=add,install,remove,run,build,test,dlx,workspace,upgrade
pnpm tool
Bun* tool sub=install,run,add,test,x,build
Deno tool
pip|pip3 tool
pipx tool
Poetry* tool sub=install,add,lock,run,update,shell,build,publish
conda tool
uv* tool sub=pip,run,sync,add,venv,lock,tool
Cargo* tool sub=build,test,run,check,clippy,add,install,publish,fmt,update,bench,doc
rustup tool
Go*|golang tool sub=build,test,run,vet,mod,get,install,generate,fmt,env,version,work,tool,clean,list,doc
gofmt tool
gopls tool
goimports tool
golangci-lint tool
staticcheck tool
Delve*|dlv tool
gcc tool
g++ tool
clang tool
gdb tool
lldb tool
valgrind tool
strace tool
tmux tool
ssh tool
scp tool
rsync tool
curl tool
wget tool
jq tool
sed tool
awk tool
grep tool
ripgrep|rg tool
xargs tool
tar* tool
OpenSSL tool
Homebrew|brew* tool sub=install,upgrade,update,uninstall,services,tap
apt*|apt-get tool sub=install,update,upgrade,remove,search
dpkg tool
yum* tool sub=install,update,remove
dnf tool
systemctl tool
journalctl tool
crontab|cron tool
iptables tool
webpack tool
Vite tool
esbuild tool
Rollup* tool
Babel* tool
tsc tool
ESLint tool
Prettier* tool
Jest* library
Vitest library
Mocha* library
Cypress* tool
Playwright* tool
Puppeteer* library
Selenium* tool
Storybook* tool
pytest tool
tox* tool
mypy tool
Ruff tool
Black* tool
flake8 tool
pylint tool
isort tool
pre-commit tool
Husky* tool
Lerna tool
Nx* tool
VS Code|vscode tool
Vim tool
Neovim|nvim tool
Emacs tool
Xcode tool
Jenkins* tool
CircleCI tool
psql tool
pg_dump tool
redis-cli tool
Ollama tool
React*|reactjs|react.js library
Vue|vuejs|vue.js library
Angular* library
Svelte* library
Next.js|nextjs library
Nuxt library
Express*|express.js library
Fastify library
NestJS library
Django library
Flask* library
FastAPI library
SQLAlchemy library
Alembic library
Pydantic library
Celery* library
NumPy library
pandas* library
SciPy library
Matplotlib library
scikit-learn|sklearn library
PyTorch|torch* library
TensorFlow library
Keras library
jQuery library
Lodash library
Axios library
Redux library
Apollo* library
Prisma library
Sequelize library
TypeORM library
Mongoose* library
Tailwind*|tailwindcss library
Bootstrap* library
Spring* library
Hibernate* library
JUnit library
Mockito library
Rails*|ruby-on-rails library
RSpec library
Laravel library
Symfony library
GORM library
Tokio library
Serde library
Actix library
requests* library
HTTPX library
aiohttp library
asyncio library
LangChain library
gRPC technology
Protobuf|protocol-buffers|protoc technology
GraphQL technology
Python|python3 technology
JavaScript technology
TypeScript technology
Node.js|nodejs|node* technology
Rust* technology
Java technology
Kotlin technology
Swift* technology
Ruby* technology
PHP technology
Scala technology
Elixir technology
Erlang technology
Haskell technology
Lua technology
Perl technology
Bash technology
Zsh technology
PowerShell technology
WebAssembly|wasm technology
PostgreSQL|postgres technology
MySQL technology
MariaDB technology
SQLite|sqlite3 technology
Redis technology
Memcached technology
MongoDB|mongo technology
Cassandra* technology
DynamoDB technology
Elasticsearch technology
OpenSearch technology
ClickHouse technology
DuckDB technology
CockroachDB technology
Neo4j technology
etcd technology
ZooKeeper technology
Kafka technology
RabbitMQ technology
Kubernetes|k8s technology
Linux technology
macOS technology
Android technology
WSL|wsl2 technology
LLVM technology
CUDA technology
Electron* technology
Chromium technology
Chrome* technology
Firefox technology
Safari* technology
WebKit technology
nginx technology
Apache* technology
Caddy* technology
HAProxy technology
Envoy* technology
Traefik technology
Istio technology
Prometheus* technology
Grafana technology
OpenTelemetry|otel technology
Kibana technology
Fluentd technology
Spark* technology
Vault* technology
Consul* technology
GitHub service
GitLab service
Bitbucket service
AWS service
GCP service
Azure* service
Heroku service
Vercel service
Netlify service
Cloudflare service
S3 service
EC2 service
Lambda* service
Firebase service
Supabase service
Datadog service
Sentry* service
Stripe* service
Slack* service
OpenAI service
Hugging Face|huggingface service
PyPI service
OAuth|oauth2 concept
OIDC concept
JWT concept
SAML concept
SSO concept
CORS concept
CSRF concept
XSS concept
CSP concept
TLS|ssl concept
mTLS concept
DNS concept
TCP concept
UDP concept
HTTP concept
HTTPS concept
WebSocket|websockets concept
JSON concept
YAML|yml concept
TOML concept
CSV concept
UTF-8|utf8 concept
regex|regexp concept
IPv4 concept
IPv6 concept
SQL concept
CDN concept
WAL concept
MVCC concept
ORM concept
cgo concept
goroutine|goroutines concept
`

// tool is one entry of toolTable.
type tool struct {
	name string // display name
	typ  string
	subs map[string]bool
}

var (
	// tools maps every name and alias, lower-cased, to its entry.
	tools map[string]*tool
	// ambiguous holds the lower-cased names that are also English words.
	ambiguous map[string]bool
	// aliases maps an alias's norm to its display name's norm, so that
	// Normalize folds "k8s" into "kubernetes".
	aliases map[string]string
)

// loadTools fills tools, ambiguous and aliases from toolTable.
func loadTools() {
	for _, line := range strings.Split(toolTable, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		// "VS Code" and "Hugging Face" hold a space: the type is the first
		// field that is a known type.
		i := 0
		for i < len(f) && !validType[f[i]] {
			i++
		}
		names := strings.Split(strings.Join(f[:i], " "), "|")
		t := &tool{name: names[0], typ: f[i]}
		for _, opt := range f[i+1:] {
			if strings.HasPrefix(opt, "sub=") {
				t.subs = map[string]bool{}
				for _, s := range strings.Split(strings.TrimPrefix(opt, "sub="), ",") {
					t.subs[s] = true
				}
			}
		}
		t.name = strings.TrimSuffix(t.name, "*")
		canon := strings.ToLower(t.name)
		for _, n := range names {
			l := strings.ToLower(strings.TrimSuffix(n, "*"))
			if strings.HasSuffix(n, "*") {
				ambiguous[l] = true
			}
			tools[l] = t
			// An ambiguous alias is not folded: a sidecar's "node" may be
			// a graph node, not Node.js.
			if l != canon && !ambiguous[l] {
				aliases[l] = canon
			}
		}
	}
}

// validType is store.EntityTypes as a set.
var validType map[string]bool

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// errnos are the POSIX, Node.js and npm error names that mean one failure
// each. A curated list rather than E[A-Z]+: shouted words ("EVERY",
// "EXACTLY") would otherwise be errors.
var errnos map[string]bool

// signals that mean a crash; SIGTERM and SIGHUP are requests, not errors,
// and are left to the config-ish rules.
var crashSignals map[string]bool

// errorWords are one-word failure states that match no suffix rule.
var errorWords map[string]bool

// errorParts mark an UPPER_SNAKE name as an error code rather than a
// setting: ERR_SSL_PROTOCOL_ERROR, SQLITE_BUSY, DEADLINE_EXCEEDED.
var errorParts map[string]bool

// errorPrefixes do the same for families whose names need no error word.
var errorPrefixes = []string{"SQLITE_", "CURLE_", "EXC_", "WSAE", "NET_ERR", "ERR_"}

// errorPhrases are failure messages common enough across tools to link
// learnings: each is one error entity, named by the phrase. A curated list
// keeps precision high; free-form "x failed" patterns would make an entity
// of every sentence that reports a failure.
var errorPhrases = []string{
	"connection refused", "connection reset by peer", "connection reset", "connection timed out",
	"broken pipe", "permission denied", "operation not permitted", "no such file or directory",
	"address already in use", "context deadline exceeded", "deadline exceeded", "too many open files",
	"no space left on device", "read-only file system", "disk quota exceeded", "text file busy",
	"exec format error", "cannot allocate memory", "out of memory", "heap out of memory",
	"segmentation fault", "core dumped", "stack overflow", "maximum call stack size exceeded",
	"deadlock detected", "all goroutines are asleep", "concurrent map writes", "data race",
	"nil pointer dereference", "null pointer dereference", "invalid memory address",
	"index out of range", "unexpected eof", "unexpected end of json input",
	"database is locked", "database disk image is malformed", "too many connections",
	"certificate verify failed", "certificate signed by unknown authority", "certificate has expired",
	"self signed certificate", "self-signed certificate", "ssl handshake failed", "tls handshake timeout",
	"handshake failure", "host key verification failed", "name or service not known",
	"temporary failure in name resolution", "no route to host", "network is unreachable",
	"cannot find module", "module not found", "command not found", "undefined reference",
	"undefined symbol", "cannot read properties of undefined", "is not a function",
	"blocked by cors policy", "mixed content", "merge conflict", "detached head",
	"non-fast-forward", "rate limit exceeded", "invalid_grant", "token expired",
}

// httpPhrases are reason phrases distinctive enough to stand for their
// status code without it; "not found" or "forbidden" alone are not.
var httpPhrases = map[string]string{
	"bad gateway": "502", "gateway timeout": "504", "service unavailable": "503",
	"internal server error": "500", "too many requests": "429", "payload too large": "413",
	"request entity too large": "413", "unprocessable entity": "422", "method not allowed": "405",
	"precondition failed": "412", "unsupported media type": "415",
}

// httpReasons are the reason phrases that, after a status code ("404 Not
// Found"), make a bare number an HTTP status.
var httpReasons = map[string]string{
	"301": "moved permanently", "302": "found", "304": "not modified", "307": "temporary redirect",
	"308": "permanent redirect", "400": "bad request", "401": "unauthorized", "402": "payment required",
	"403": "forbidden", "404": "not found", "405": "method not allowed", "406": "not acceptable",
	"408": "request timeout", "409": "conflict", "410": "gone", "412": "precondition failed",
	"413": "payload too large", "415": "unsupported media type", "422": "unprocessable entity",
	"429": "too many requests", "500": "internal server error", "501": "not implemented",
	"502": "bad gateway", "503": "service unavailable", "504": "gateway timeout",
}

// configNames are files that configure a tool rather than hold code.
var configNames map[string]bool

// configExts are extensions of files that are configuration by nature.
var configExts map[string]bool

// fileExts are the extensions that make a bare word ("main.go") a file.
// Only extensions that are rarely a field or method name: "console.log",
// "mu.lock" and "obj.key" are not files, so log, lock and key are left out
// (paths with a directory still count).
var fileExts map[string]bool

// notIdentifiers are CamelCase words of prose: brands and abbreviations
// that would otherwise read as code identifiers.
var notIdentifiers map[string]bool

// literals are code words too common to identify anything.
var literals map[string]bool

// stopwords never start or end a query n-gram: "the cookie" is no entity.
var stopwords map[string]bool

// vocabOnce builds the package's word lists on first use: a hook that never
// extracts or expands entities (most of them) should not pay for them at
// start-up, where they were a measurable cost (docs/benchmarks.md).
var vocabOnce sync.Once

// loadVocab builds every word list; each exported entry point that reads
// them calls it first.
func loadVocab() {
	vocabOnce.Do(func() {
		installVerbs = toSet(`install add get i require`)
		prompts = toSet("$ # > % sudo RUN && || | ; exec time import from require")
		knownDirs = toSet(`node_modules __pycache__ .git .github .venv .vscode .idea .terraform`)
		verbWords = toSet(`i you we they he she it to let's lets will can could should would must might
		may gonna wanna i'll you'll we'll they'll don't didn't won't can't and or then just also`)
		compilerPrefixes = toSet(`TS CS BC LNK MSB NETSDK NU SC CA IDE RS`)
		oracle = toSet(`ORA PLS TNS`)
		tlds = toSet(`com org net io dev app co ai gov edu uk de fr jp me info biz sh ly gg xyz cloud us eu`)
		validType = toSet("technology library tool file function error concept pattern service config")
		errnos = toSet(`E2BIG EACCES EADDRINUSE EADDRNOTAVAIL EAFNOSUPPORT EAGAIN EAI_AGAIN EALREADY
		EBADF EBUSY ECANCELED ECHILD ECONNABORTED ECONNREFUSED ECONNRESET EDEADLK EDESTADDRREQ EDOM
		EDQUOT EEXIST EFAULT EFBIG EHOSTDOWN EHOSTUNREACH EILSEQ EINPROGRESS EINTR EINVAL EIO EISCONN
		EISDIR ELOOP EMFILE EMLINK EMSGSIZE ENAMETOOLONG ENETDOWN ENETRESET ENETUNREACH ENFILE ENOBUFS
		ENODEV ENOENT ENOEXEC ENOLCK ENOMEM ENOSPC ENOSYS ENOTCONN ENOTDIR ENOTEMPTY ENOTFOUND ENOTSOCK
		ENOTSUP ENOTTY ENXIO EOF EOPNOTSUPP EOVERFLOW EPERM EPIPE EPROTO EPROTONOSUPPORT ERANGE EROFS
		ESPIPE ESRCH ESTALE ETIMEDOUT ETXTBSY EWOULDBLOCK EXDEV
		ELIFECYCLE ERESOLVE EINTEGRITY EBADENGINE EUNSUPPORTEDPROTOCOL ENEEDAUTH EOTP`)
		crashSignals = toSet(`SIGSEGV SIGABRT SIGBUS SIGFPE SIGILL SIGKILL SIGPIPE SIGSYS SIGTRAP`)
		errorWords = toSet(`OOMKilled CrashLoopBackOff ImagePullBackOff ErrImagePull ErrImageNeverPull
		context.DeadlineExceeded context.Canceled`)
		errorParts = toSet(`ERR ERROR ERRORS FAIL FAILED FAILURE INVALID DENIED REFUSED TIMEOUT TIMEDOUT
		EXCEPTION ABORT ABORTED NOTFOUND CORRUPT BUSY LOCKED MISUSE OVERFLOW UNAVAILABLE UNAUTHORIZED
		FORBIDDEN CONFLICT EXHAUSTED EXCEEDED CANCELED CANCELLED PANIC FATAL UNREACHABLE`)
		configNames = toSet(`dockerfile makefile jenkinsfile procfile gemfile rakefile vagrantfile pipfile
		brewfile justfile go.mod go.sum go.work cargo.toml package.json tsconfig.json jsconfig.json
		pyproject.toml setup.cfg requirements.txt docker-compose.yml docker-compose.yaml compose.yml
		compose.yaml .gitignore .gitattributes .dockerignore .npmrc .nvmrc .yarnrc .yarnrc.yml
		.editorconfig .prettierrc .eslintrc .eslintrc.js .eslintrc.json .babelrc .bashrc .zshrc
		.profile .bash_profile .gitconfig .gitlab-ci.yml .travis.yml .golangci.yml .golangci.yaml
		.pre-commit-config.yaml .tool-versions .envrc nginx.conf config.toml settings.json
		webpack.config.js vite.config.ts vite.config.js jest.config.js babel.config.js
		next.config.js tailwind.config.js cargo.lock yarn.lock poetry.lock gemfile.lock composer.lock
		flake.lock uv.lock`)
		configExts = toSet(`toml ini cfg conf env properties tfvars`)
		fileExts = toSet(`go py pyi rs ts tsx js jsx mjs cjs java kt kts rb c h cc cpp cxx hpp cs swift
		php sh bash zsh fish ps1 sql toml yaml yml json jsonc md mdx txt ini cfg conf env
		xml html htm css scss sass less vue svelte proto gradle tf tfvars ipynb csv tsv plist
		dockerfile patch diff pem crt`)
		notIdentifiers = toSet(`iphone ipad ipod icloud itunes imac ebay ecommerce youtube linkedin paypal
		wordpress devops devsecops saas paas iaas faas mcdonald mcdonalds powerpoint macbook playstation
		wifi javadoc webassembly tiktok whatsapp doordash gopro airpods soundcloud onlyfans jetblue fedex
		hubspot mastercard`)
		literals = toSet(`true false nil null none undefined yes no on off ok err error self this
		void var let const int string bool`)
		stopwords = toSet(`a an and are as at be but by for if in into is it no not of on or such that
		the their then there these they this to was will with i you he she we me my your our its his
		her them what when where who how which do does did have has had from about why can should
		would could after before via use using used get got`)
		phraseIndex = func() map[string][][]string {
			idx := map[string][][]string{}
			add := func(p string) {
				ws := splitWords(p)
				var list []string
				for _, w := range ws {
					list = append(list, w.s)
				}
				idx[list[0]] = append(idx[list[0]], list)
			}
			for _, p := range errorPhrases {
				add(p)
			}
			for p := range httpPhrases {
				add(p)
			}
			for _, ps := range idx {
				sort.Slice(ps, func(i, j int) bool { return len(ps[i]) > len(ps[j]) })
			}
			return idx
		}()
		tools, ambiguous, aliases = map[string]*tool{}, map[string]bool{}, map[string]string{}
		loadTools()
	})
}

// Prepare builds the word lists now. A search calls it on another
// goroutine as it starts, so the lists (a third of a millisecond) are
// built on the second core while the lexical lists are read.
func Prepare() { loadVocab() }
