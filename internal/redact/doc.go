// Package redact removes secrets and <private> blocks from text before
// anything reflect writes reaches disk: queue details, armed files, logs,
// condensed transcripts and learnings (ARCHITECTURE §7).
//
// It owns the secret shapes and the placeholder format "[REDACTED:<kind>]".
// It must never log, store or return an original secret, not even in an
// error or a debug message, and it must stay cheap enough for hook hot
// paths: one pass over the text finds literal markers, and each rule only
// looks at its markers' hits, on bounded windows, so text without markers
// costs a table lookup per byte and no allocation.
//
// Shapes: AWS access key ids; GitHub, GitLab, Slack, npm, Hugging Face
// (hf_ and api_org_ with 34 letters), Vault, Doppler, Grafana, Sentry,
// Sourcegraph, Notion, Fly.io, Harness, Heroku, 1Password, OpenShift and
// Facebook page tokens; Slack and Microsoft Teams webhook paths; OpenAI,
// Anthropic, Google, Stripe, SendGrid, Alibaba, Adobe, Azure, Cloudflare
// origin-CA, EasyPost, Bedrock and 42 Intra keys; JWTs; base64 of any of
// these when the encoding starts with one (echo -n $TOKEN | base64); PEM
// private key blocks; passwords in URLs and in the password options of
// the commands in commands.go (curl -u user:password, mysql -pPASSWORD,
// sshpass -p, docker login -p, redis-cli -a, ...); Twilio API key sids
// and the secret given with one; Authorization headers and bare "Bearer
// <token>"; and
// values labelled as secrets (KEY=value, key: value, "key": "value", key
// := "value", ?=, ::=, .=, <key>value</key>, setProperty("key", "value"),
// var key string = "value", --password value, "the token is <value>")
// whose key names a secret, password, token, credential (creds), API,
// private, access or account key, a private key id, or auth. internal/redact/testdata holds gitleaks'
// own rule examples; docs/redaction.md reports the coverage.
//
// Decisions about ambiguous input:
//   - Unlabelled random-looking strings (git SHAs, UUIDs, digests, base64
//     data) are kept: only known token shapes and labelled values go.
//   - A labelled value that is a small number (at most 8 digits, maybe
//     with a unit such as 30s or 512mb, or hex up to 0xffffffff), a
//     boolean, a null or a setting word (required, read, ...) is kept:
//     TOKEN_LIMIT=4096 and max_tokens: 1024 survive.
//   - A key is named by its last dotted part and is no label when its last
//     word is metadata (limit, count, type, url, file, name, id, ...);
//     "pass" counts only inside a longer key (DB_PASS), "auth" only as the
//     last word (BASIC_AUTH), "tokens" and "tokenizer" never.
//   - Variable references ($TOKEN, ${{ secrets.X }}, $(cmd), %s),
//     placeholders (<your-token>), URLs, ~/ and ./ paths are kept, and so
//     is code: calls, index expressions, composite literals, pointers,
//     dotted paths, type annotations (password: string), a variable named
//     like its key (token = token), an identifier ending a struct entry or
//     followed by + or |, and a digit-free CamelCase identifier assigned to
//     a camelCase field (config.ClientAuth = RequireAnyClientCert).
//   - After a colon, a bare value must end its line (YAML, headers) or
//     hold letters and digits and be 6+ characters long, so "error: wrong
//     key length" stays and "password: hunter2x on staging" goes. In
//     prose ("the token is X") only a value of 12+ characters with
//     letters and digits goes.
//   - In URLs only the password goes; documentation stand-ins such as
//     https://user:password@host are kept.
//   - Overlapping matches become one placeholder with the most specific
//     kind: GITHUB_TOKEN=ghp_… gives [REDACTED:github-token].
//   - Text from <private> to the matching </private> becomes "[private]";
//     nested blocks are counted, an unclosed block runs to the end of the
//     text and a stray </private> is left alone.
//   - A labelled value that already holds a "[REDACTED:…]" placeholder is
//     left alone, which makes String idempotent.
package redact
