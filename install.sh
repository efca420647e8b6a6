#!/bin/sh
# Installs reflect, reflect-mcp and reflect-ui from a release: no Go, no C
# compiler, no root.
#
#   curl -fsSL https://raw.githubusercontent.com/reflectkb/reflect/main/install.sh | sh
#   curl -fsSL .../install.sh | sh -s -- --version 0.3.0 --bin-dir ~/bin
#
# It downloads the archive for this OS and architecture and the release's
# checksums.txt, checks the archive's SHA-256 before anything is unpacked,
# and only then puts the three binaries in the bin directory (default
# ~/.local/bin), each by an atomic rename.
set -eu

REPO=reflectkb/reflect
BASE_URL=""
VERSION=latest
BIN_DIR="${HOME:-}/.local/bin"

usage() {
	cat <<EOF
usage: install.sh [--version VERSION] [--bin-dir DIR] [--base-url URL]

  --version VERSION  release to install, e.g. 0.3.0 (default: the latest)
  --bin-dir DIR      where the binaries go (default: ~/.local/bin)
  --base-url URL     where the archives and checksums.txt are (default: the
                     GitHub release of VERSION)
EOF
}

say() { printf 'reflect install: %s\n' "$*" >&2; }
die() {
	say "$*"
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	--version)
		[ $# -ge 2 ] || die "--version needs a value"
		VERSION=$2
		shift 2
		;;
	--version=*)
		VERSION=${1#*=}
		shift
		;;
	--bin-dir)
		[ $# -ge 2 ] || die "--bin-dir needs a value"
		BIN_DIR=$2
		shift 2
		;;
	--bin-dir=*)
		BIN_DIR=${1#*=}
		shift
		;;
	--base-url)
		[ $# -ge 2 ] || die "--base-url needs a value"
		BASE_URL=$2
		shift 2
		;;
	--base-url=*)
		BASE_URL=${1#*=}
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		usage >&2
		die "unknown argument: $1"
		;;
	esac
done
VERSION=${VERSION#v}
[ -n "$BIN_DIR" ] || die "no bin directory: set HOME or pass --bin-dir DIR"

# fetch URL FILE downloads with curl or wget, failing on an HTTP error.
fetch() {
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --proto '=https,http' -o "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1"
	else
		die "needs curl or wget to download"
	fi
}

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	elif command -v openssl >/dev/null 2>&1; then
		openssl dgst -sha256 "$1" | sed 's/.*= *//'
	else
		die "needs sha256sum, shasum or openssl to check the download"
	fi
}

os=$(uname -s)
case $os in
Linux) os=linux ;;
Darwin) os=darwin ;;
MINGW* | MSYS* | CYGWIN*) die "on Windows, download reflect_<version>_windows_amd64.zip from https://github.com/$REPO/releases (or: npm i -g reflectkb)" ;;
*) die "no release build for $os (build from source: see https://github.com/$REPO#install)" ;;
esac
arch=$(uname -m)
case $arch in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
esac

if [ -z "$BASE_URL" ]; then
	if [ "$VERSION" = latest ]; then
		BASE_URL="https://github.com/$REPO/releases/latest/download"
	else
		BASE_URL="https://github.com/$REPO/releases/download/v$VERSION"
	fi
fi
BASE_URL=${BASE_URL%/}

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t reflect-install)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fetch "$BASE_URL/checksums.txt" "$tmp/checksums.txt" || die "cannot download $BASE_URL/checksums.txt"

# The archive's name comes from checksums.txt, which names the version too
# (the latest release is known only from there).
want="_${os}_${arch}.tar.gz"
archive=""
while read -r sum name; do
	case $name in
	reflect_*"$want")
		if [ "$VERSION" = latest ] || [ "$name" = "reflect_${VERSION}${want}" ]; then
			archive=$name
			expected=$sum
		fi
		;;
	esac
done <"$tmp/checksums.txt"
if [ -z "$archive" ]; then
	platforms=$(sed -n -e 's/^[0-9a-f]*  *reflect_[^_]*_\([a-z0-9]*_[a-z0-9]*\)\.tar\.gz$/\1/p' \
		-e 's/^[0-9a-f]*  *reflect_[^_]*_\([a-z0-9]*_[a-z0-9]*\)\.zip$/\1/p' "$tmp/checksums.txt" |
		tr '_' '/' | sort -u | tr '\n' ' ')
	platforms=${platforms% }
	die "no archive for $os/$arch in this release (version $VERSION); there are: ${platforms:-none}"
fi

fetch "$BASE_URL/$archive" "$tmp/$archive" || die "cannot download $BASE_URL/$archive"
got=$(sha256 "$tmp/$archive")
if [ "$got" != "$expected" ]; then
	die "checksum mismatch for $archive: got $got, checksums.txt says $expected; nothing was installed"
fi

mkdir "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" || die "cannot unpack $archive; nothing was installed"
for b in reflect reflect-mcp reflect-ui; do
	[ -f "$tmp/x/$b" ] || die "$archive has no $b; nothing was installed"
done

mkdir -p "$BIN_DIR" || die "cannot create $BIN_DIR (choose another with --bin-dir)"
# Each binary goes in by a rename inside BIN_DIR, so a hook running reflect
# at that moment runs the old or the new binary, never half of one.
for b in reflect reflect-mcp reflect-ui; do
	cp "$tmp/x/$b" "$BIN_DIR/.$b.new" || die "cannot write to $BIN_DIR (choose another with --bin-dir)"
	chmod 755 "$BIN_DIR/.$b.new"
	mv -f "$BIN_DIR/.$b.new" "$BIN_DIR/$b"
done
say "installed reflect, reflect-mcp and reflect-ui ($archive) in $BIN_DIR"

case ":${PATH:-}:" in
*":$BIN_DIR:"*)
	found=$(command -v reflect || true)
	if [ -n "$found" ] && [ "$found" != "$BIN_DIR/reflect" ]; then
		say "note: 'reflect' runs $found, which comes first on your PATH"
	fi
	;;
*)
	say "note: $BIN_DIR is not on your PATH; add it (e.g. in ~/.profile):"
	say "  export PATH=\"$BIN_DIR:\$PATH\""
	;;
esac
say "next: reflect install claude   (or codex, gemini, opencode, copilot)"
