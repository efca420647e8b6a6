#!/bin/sh
# Release archives, checksums, npm packages and the Homebrew formula.
#
#   scripts/dist.sh build OS ARCH   build reflect, reflect-mcp and reflect-ui for
#                                   OS/ARCH and pack them (with README.md) into
#                                   $DIST/reflect_<version>_<os>_<arch>.tar.gz
#                                   (.zip for windows: what Explorer and
#                                   Expand-Archive open without extra tools)
#   scripts/dist.sh finish          from the archives in $DIST: checksums.txt,
#                                   the npm packages in $DIST/npm and the
#                                   Homebrew formula $DIST/homebrew/reflect.rb
#
# make dist runs both for linux/amd64, linux/arm64 and windows/amd64 on one
# Linux machine (cgo cross-compiles: CC_<os>_<arch> names each compiler); the
# release workflow runs build natively on each runner and finish once.
# VERSION defaults to git describe.
set -eu

DIST=${DIST:-dist}
GO=${GO:-go}
TAGS=sqlite_fts5
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
# The binaries say the version as git describe does (v1.2.3, as make build's
# do); file names and package versions drop the v.
BUILD_VERSION=$VERSION
VERSION=${VERSION#v}

die() { echo "dist: $*" >&2; exit 1; }

# sha256 prints the SHA-256 of a file (sha256sum on Linux, shasum on macOS).
sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}

# compiler is the C compiler for a target: CC_<os>_<arch> when set, else a
# cross compiler by Debian's names when this host is another platform.
compiler() {
	eval "cc=\${CC_$1_$2:-}"
	if [ -n "$cc" ]; then echo "$cc"; return; fi
	if [ "$1" = "$($GO env GOHOSTOS)" ] && [ "$2" = "$($GO env GOHOSTARCH)" ]; then
		echo "${CC:-gcc}"
		return
	fi
	case "$1/$2" in
	linux/arm64) echo aarch64-linux-gnu-gcc ;;
	linux/amd64) echo x86_64-linux-gnu-gcc ;;
	windows/amd64) echo x86_64-w64-mingw32-gcc ;;
	*) die "no cross compiler known for $1/$2: set CC_$1_$2 or build on a $1/$2 machine" ;;
	esac
}

build() {
	os=$1 arch=$2
	cc=$(compiler "$os" "$arch")
	command -v "$cc" >/dev/null 2>&1 || die "$cc not found: install it (Debian: apt-get install $(debpkg "$cc")) or set CC_${os}_${arch}"
	# Linux and Windows binaries are static, as make build's are (no
	# loader, no libgcc/winpthread DLLs beside the .exe); macOS links only
	# dynamically, against its system libraries.
	ldflags="-s -w -X main.version=$BUILD_VERSION"
	case $os in
	linux | windows) ldflags="$ldflags -linkmode external -extldflags -static" ;;
	esac
	ext=""
	[ "$os" = windows ] && ext=.exe
	name="reflect_${VERSION}_${os}_${arch}"
	stage="$DIST/.stage/$name"
	rm -rf "$stage"
	mkdir -p "$stage"
	for cmd in reflect reflect-mcp reflect-ui; do
		CGO_ENABLED=1 GOOS=$os GOARCH=$arch CC=$cc ./scripts/quiet-static-link.sh \
			"$GO" build -tags "$TAGS" -ldflags "$ldflags" -o "$stage/$cmd$ext" "./cmd/$cmd"
	done
	for doc in README.md LICENSE; do
		[ -f "$doc" ] && cp "$doc" "$stage/"
	done
	if [ "$os" = windows ]; then
		archive="$DIST/$name.zip"
		rm -f "$archive"
		zipdir "$stage" "$(pwd)/$archive"
	else
		archive="$DIST/$name.tar.gz"
		tar -C "$stage" -czf "$archive" .
	fi
	rm -rf "$stage"
	rmdir "$DIST/.stage" 2>/dev/null || true
	echo "$archive"
}

# zipdir packs the files of a directory at the top of a zip archive.
zipdir() {
	if command -v zip >/dev/null 2>&1; then
		(cd "$1" && zip -q -r "$2" .)
	elif command -v python3 >/dev/null 2>&1; then
		(cd "$1" && python3 -m zipfile -c "$2" ./*)
	else
		(cd "$1" && tar -a -cf "$2" ./*) # bsdtar (macOS, Windows) picks zip by the name
	fi
}

debpkg() {
	case $1 in
	aarch64-linux-gnu-gcc) echo gcc-aarch64-linux-gnu ;;
	x86_64-linux-gnu-gcc) echo gcc-x86-64-linux-gnu ;;
	x86_64-w64-mingw32-gcc) echo gcc-mingw-w64-x86-64 ;;
	*) echo gcc ;;
	esac
}

# npmplat maps Go's os/arch to npm's os/cpu names.
npmos() { case $1 in windows) echo win32 ;; *) echo "$1" ;; esac; }
npmcpu() { case $1 in amd64) echo x64 ;; *) echo "$1" ;; esac; }

# npmversion is VERSION as npm's semver wants it: a bare commit (no tag
# yet) becomes a 0.0.0 prerelease.
npmversion() {
	case $VERSION in
	[0-9]*.[0-9]*.[0-9]*) echo "$VERSION" ;;
	*) echo "0.0.0-dev.$VERSION" ;;
	esac
}

finish() {
	[ -d "$DIST" ] || die "$DIST does not exist: run scripts/dist.sh build OS ARCH first"
	archives=""
	for f in "$DIST"/reflect_"$VERSION"_*.tar.gz "$DIST"/reflect_"$VERSION"_*.zip; do
		if [ -f "$f" ]; then archives="$archives ${f##*/}"; fi
	done
	[ -n "$archives" ] || die "no archives for version $VERSION in $DIST"
	(
		cd "$DIST"
		for a in $archives; do
			echo "$(sha256 "$a")  $a"
		done
	) >"$DIST/checksums.txt"
	npm_packages "$archives"
	homebrew
	echo "$DIST/checksums.txt"
}

npm_packages() {
	ver=$(npmversion)
	out="$DIST/npm"
	rm -rf "$out"
	mkdir -p "$out/reflectkb/bin"
	optional=""
	for a in $1; do
		plat=${a#reflect_"${VERSION}"_}
		plat=${plat%.tar.gz}
		plat=${plat%.zip}
		os=${plat%_*} arch=${plat#*_}
		pkg="$(npmos "$os")-$(npmcpu "$arch")"
		dir="$out/$pkg"
		mkdir -p "$dir/bin"
		case $a in
		*.zip) unzip -q -o "$DIST/$a" -d "$dir/bin" ;;
		*) tar -C "$dir/bin" -xzf "$DIST/$a" ;;
		esac
		rm -f "$dir/bin/README.md" "$dir/bin/LICENSE"
		sed -e "s/@VERSION@/$ver/g" -e "s/@PKG@/$pkg/g" \
			-e "s/@OS@/$(npmos "$os")/g" -e "s/@CPU@/$(npmcpu "$arch")/g" \
			packaging/npm/platform/package.json >"$dir/package.json"
		sed -e "s/@PKG@/$pkg/g" packaging/npm/platform/README.md >"$dir/README.md"
		optional="$optional${optional:+,
}    \"@reflectkb/$pkg\": \"$ver\""
	done
	cp packaging/npm/reflectkb/bin/*.js "$out/reflectkb/bin/"
	cp packaging/npm/reflectkb/README.md "$out/reflectkb/"
	# The optional dependencies go in where the template has the line
	# @OPTIONAL@.
	while IFS= read -r line; do
		case $line in
		*@OPTIONAL@*) printf '%s\n' "$optional" ;;
		*) printf '%s\n' "$line" | sed "s/@VERSION@/$ver/g" ;;
		esac
	done <packaging/npm/reflectkb/package.json >"$out/reflectkb/package.json"
}

# homebrew fills the formula template with the URLs and checksums of the
# archives there are; a platform without one is left out of the formula.
homebrew() {
	mkdir -p "$DIST/homebrew"
	base=${RELEASE_URL:-https://github.com/reflectkb/reflect/releases/download/v$VERSION}
	while IFS= read -r line; do
		case $line in
		*@URL_*@*)
			key=$(printf '%s' "$line" | sed 's/.*@URL_\([a-z0-9_]*\)@.*/\1/')
			file="reflect_${VERSION}_${key}.tar.gz"
			if [ -f "$DIST/$file" ]; then
				printf '%s\n' "$line" | sed "s|@URL_${key}@|$base/$file|"
			else
				printf '%s\n' "$line" | sed 's/^\( *\).*/\1# no archive for '"$key"' in this release/'
			fi
			;;
		*@SHA_*@*)
			key=$(printf '%s' "$line" | sed 's/.*@SHA_\([a-z0-9_]*\)@.*/\1/')
			file="reflect_${VERSION}_${key}.tar.gz"
			if [ -f "$DIST/$file" ]; then
				printf '%s\n' "$line" | sed "s|@SHA_${key}@|$(sha256 "$DIST/$file")|"
			fi
			;;
		*) printf '%s\n' "$line" | sed "s/@VERSION@/$VERSION/g" ;;
		esac
	done <packaging/homebrew/reflect.rb.in >"$DIST/homebrew/reflect.rb"
}

case ${1:-} in
build)
	[ $# -eq 3 ] || die "usage: scripts/dist.sh build OS ARCH"
	mkdir -p "$DIST"
	build "$2" "$3"
	;;
finish) finish ;;
*) die "usage: scripts/dist.sh build OS ARCH | finish" ;;
esac
