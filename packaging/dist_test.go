// Package packaging tests how reflect reaches people without a Go
// toolchain: install.sh against a release served on 127.0.0.1, the npm
// packages scripts/dist.sh finish makes, installed offline from their
// tarballs, and the checksums and Homebrew formula it writes. The archives
// here are small fakes (a shell script per binary); make dist-smoke runs the
// same paths on a real build.
package packaging

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const version = "1.2.3"

// root is the repository root, where install.sh and scripts/ are.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fakeArchive writes reflect_<version>_<plat>.tar.gz into dir holding the
// three binaries as scripts that print their name, the version, where they
// ran from and their arguments.
func fakeArchive(t *testing.T, dir, plat string) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, b := range []string{"reflect", "reflect-mcp", "reflect-ui"} {
		body := fmt.Sprintf("#!/bin/sh\necho \"%s %s from $0: $*\"\n", b, version)
		if err := tw.WriteHeader(&tar.Header{Name: "./" + b, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("reflect_%s_%s.tar.gz", version, plat)
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func sum(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// release makes a dist directory with an archive for each of plats and
// its checksums.txt, served on 127.0.0.1.
func release(t *testing.T, plats ...string) (dir, url string) {
	t.Helper()
	dir = t.TempDir()
	var sums strings.Builder
	for _, p := range plats {
		name := fakeArchive(t, dir, p)
		fmt.Fprintf(&sums, "%s  %s\n", sum(t, filepath.Join(dir, name)), name)
	}
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return dir, srv.URL
}

// hostPlatform is this machine as install.sh names it.
func hostPlatform(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skipf("install.sh is for Linux and macOS, not %s", runtime.GOOS)
	}
	return runtime.GOOS + "_" + runtime.GOARCH
}

// installSh runs install.sh with args, a home of its own and a PATH
// without the bin directory, and returns its stderr and error.
func installSh(t *testing.T, home string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{filepath.Join(root(t), "install.sh")}, args...)...)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	err := cmd.Run()
	return stderr.String(), err
}

func TestInstallScriptInstallsAndRuns(t *testing.T) {
	t.Parallel()
	host := hostPlatform(t)
	_, url := release(t, host, "windows_amd64")
	home := t.TempDir()
	binDir := filepath.Join(home, "tools", "bin")
	out, err := installSh(t, home, "--base-url", url, "--bin-dir", binDir, "--version", "v"+version)
	if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	for _, b := range []string{"reflect", "reflect-mcp", "reflect-ui"} {
		fi, err := os.Stat(filepath.Join(binDir, b))
		if err != nil || fi.Mode().Perm() != 0o755 {
			t.Fatalf("%s: %v (%v)", b, err, fi)
		}
	}
	got, err := exec.Command(filepath.Join(binDir, "reflect"), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(got), "reflect "+version+" from "+binDir) {
		t.Errorf("reflect version: %q, %v", got, err)
	}
	if !strings.Contains(out, binDir+" is not on your PATH") {
		t.Errorf("no PATH note:\n%s", out)
	}
	if entries, _ := os.ReadDir(binDir); len(entries) != 3 {
		t.Errorf("bin dir holds %d entries, want the 3 binaries", len(entries))
	}
	// The default: the latest release, into ~/.local/bin.
	out, err = installSh(t, home, "--base-url", url)
	if err != nil {
		t.Fatalf("install.sh with defaults: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "bin", "reflect")); err != nil {
		t.Errorf("default bin dir: %v\n%s", err, out)
	}
}

// A download that does not match checksums.txt installs nothing, not even
// the bin directory.
func TestInstallScriptRefusesATamperedArchive(t *testing.T) {
	t.Parallel()
	host := hostPlatform(t)
	dir, url := release(t, host)
	archive := filepath.Join(dir, fmt.Sprintf("reflect_%s_%s.tar.gz", version, host))
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(archive, data, 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	binDir := filepath.Join(home, "bin")
	out, err := installSh(t, home, "--base-url", url, "--bin-dir", binDir)
	if err == nil {
		t.Fatalf("install.sh accepted a tampered archive:\n%s", out)
	}
	if !strings.Contains(out, "checksum mismatch") || !strings.Contains(out, "nothing was installed") {
		t.Errorf("message:\n%s", out)
	}
	if _, err := os.Lstat(binDir); !os.IsNotExist(err) {
		t.Errorf("bin dir created: %v", err)
	}
}

// A release without this platform says which platforms it has.
func TestInstallScriptListsThePlatformsThereAre(t *testing.T) {
	t.Parallel()
	hostPlatform(t)
	others := []string{"freebsd_riscv64", "windows_amd64"}
	_, url := release(t, others...)
	home := t.TempDir()
	out, err := installSh(t, home, "--base-url", url, "--bin-dir", filepath.Join(home, "bin"))
	if err == nil {
		t.Fatalf("install.sh succeeded with no archive for this platform:\n%s", out)
	}
	if !strings.Contains(out, "there are: freebsd/riscv64 windows/amd64") {
		t.Errorf("message does not list the platforms:\n%s", out)
	}
	// A version the checksums do not name is refused the same way.
	_, url = release(t, hostPlatform(t))
	if out, err := installSh(t, home, "--base-url", url, "--version", "9.9.9", "--bin-dir", filepath.Join(home, "bin")); err == nil || !strings.Contains(out, "version 9.9.9") {
		t.Errorf("another version: %v\n%s", err, out)
	}
}

func TestInstallScriptUsage(t *testing.T) {
	t.Parallel()
	out, err := installSh(t, t.TempDir(), "--bogus")
	if err == nil || !strings.Contains(out, "unknown argument: --bogus") || !strings.Contains(out, "usage: install.sh") {
		t.Errorf("install.sh --bogus: %v\n%s", err, out)
	}
}

// finish runs scripts/dist.sh finish over fake archives for plats.
func finish(t *testing.T, plats ...string) string {
	t.Helper()
	dist := t.TempDir()
	for _, p := range plats {
		fakeArchive(t, dist, p)
	}
	cmd := exec.Command("sh", "scripts/dist.sh", "finish")
	cmd.Dir = root(t)
	cmd.Env = append(os.Environ(), "DIST="+dist, "VERSION=v"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dist.sh finish: %v\n%s", err, out)
	}
	return dist
}

// checksums.txt covers every archive; the Homebrew formula has the URL and
// checksum of each archive there is and none of the others.
func TestDistFinishChecksumsAndFormula(t *testing.T) {
	t.Parallel()
	dist := finish(t, "linux_amd64", "darwin_arm64")
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, p := range []string{"darwin_arm64", "linux_amd64"} {
		name := fmt.Sprintf("reflect_%s_%s.tar.gz", version, p)
		fmt.Fprintf(&want, "%s  %s\n", sum(t, filepath.Join(dist, name)), name)
	}
	if string(sums) != want.String() {
		t.Errorf("checksums.txt:\n%s\nwant:\n%s", sums, want.String())
	}
	formula, err := os.ReadFile(filepath.Join(dist, "homebrew", "reflect.rb"))
	if err != nil {
		t.Fatal(err)
	}
	f := string(formula)
	for _, p := range []string{"darwin_arm64", "linux_amd64"} {
		name := fmt.Sprintf("reflect_%s_%s.tar.gz", version, p)
		if !strings.Contains(f, `url "https://github.com/reflectkb/reflect/releases/download/v`+version+"/"+name+`"`) ||
			!strings.Contains(f, `sha256 "`+sum(t, filepath.Join(dist, name))+`"`) {
			t.Errorf("formula lacks %s:\n%s", p, f)
		}
	}
	if strings.Contains(f, "@") || !strings.Contains(f, "# no archive for linux_arm64") || !strings.Contains(f, `version "`+version+`"`) {
		t.Errorf("formula:\n%s", f)
	}
}

// npm runs npm with a cache of its own and no registry it could reach.
func npm(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("npm", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(dir, ".npm-cache"),
		"npm_config_registry=http://127.0.0.1:9/", "npm_config_update_notifier=false",
		"npm_config_audit=false", "npm_config_fund=false")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The npm packages install offline from their tarballs, locally and
// globally, and reflect runs through the wrapper's bin; run from npx's
// cache, install first copies the binaries somewhere stable.
func TestNpmPackagesInstallOffline(t *testing.T) {
	t.Parallel()
	host := hostPlatform(t)
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI needs npm for the npm package test")
		}
		t.Skip("npm not found")
	}
	dist := finish(t, host, "windows_amd64")
	npmPlat := npmPlatform()

	var pkg struct {
		Bin                  map[string]string `json:"bin"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	data, err := os.ReadFile(filepath.Join(dist, "npm", "reflectkb", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatalf("reflectkb/package.json: %v\n%s", err, data)
	}
	if len(pkg.OptionalDependencies) != 2 || pkg.OptionalDependencies["@reflectkb/"+npmPlat] != version {
		t.Errorf("optionalDependencies = %v", pkg.OptionalDependencies)
	}
	if pkg.Bin["reflectkb"] == "" || pkg.Bin["reflect"] == "" {
		t.Errorf("bin = %v: npx reflectkb needs a reflectkb bin, npm i -g a reflect one", pkg.Bin)
	}
	var plat struct {
		Name string   `json:"name"`
		OS   []string `json:"os"`
		CPU  []string `json:"cpu"`
	}
	data, err = os.ReadFile(filepath.Join(dist, "npm", npmPlat, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &plat); err != nil {
		t.Fatal(err)
	}
	if plat.Name != "@reflectkb/"+npmPlat || len(plat.OS) != 1 || plat.OS[0] != runtime.GOOS || len(plat.CPU) != 1 {
		t.Errorf("platform package.json = %+v", plat)
	}

	work := t.TempDir()
	packs := filepath.Join(work, "packs")
	if err := os.Mkdir(packs, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"reflectkb", npmPlat} {
		npm(t, filepath.Join(dist, "npm", p), "pack", "--silent", "--pack-destination", packs)
	}
	wrapper := filepath.Join(packs, "reflectkb-"+version+".tgz")
	native := filepath.Join(packs, "reflectkb-"+npmPlat+"-"+version+".tgz")

	// npm i -g reflectkb, into a prefix of the test's.
	global := filepath.Join(work, "global")
	npm(t, work, "install", "--offline", "--omit=optional", "-g", "--prefix", global, wrapper, native)
	out, err := exec.Command(filepath.Join(global, "bin", "reflect"), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "reflect "+version+" from ") || !strings.Contains(string(out), "@reflectkb/"+npmPlat) {
		t.Errorf("reflect version through the global bin: %q, %v", out, err)
	}
	out, err = exec.Command(filepath.Join(global, "bin", "reflect-mcp")).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "reflect-mcp "+version) {
		t.Errorf("reflect-mcp through the global bin: %q, %v", out, err)
	}

	// npx reflectkb install claude: npx installs into its cache, _npx/<hash>.
	npxDir := filepath.Join(work, "_npx", "abc123")
	npm(t, work, "install", "--offline", "--omit=optional", "--prefix", npxDir, wrapper, native)
	stable := filepath.Join(work, "stable-bin")
	cmd := exec.Command(filepath.Join(npxDir, "node_modules", ".bin", "reflectkb"), "install", "claude")
	cmd.Env = append(os.Environ(), "REFLECT_BIN_DIR="+stable)
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "reflect "+version+" from "+filepath.Join(stable, "reflect")+": install claude") {
		t.Errorf("npx reflectkb install claude did not run a stable copy: %q, %v", out, err)
	}
	for _, b := range []string{"reflect", "reflect-mcp", "reflect-ui"} {
		if fi, err := os.Stat(filepath.Join(stable, b)); err != nil || fi.Mode().Perm()&0o111 == 0 {
			t.Errorf("stable copy of %s: %v", b, err)
		}
	}
	// Other commands run from the cache, copying nothing.
	cmd = exec.Command(filepath.Join(npxDir, "node_modules", ".bin", "reflectkb"), "version")
	cmd.Env = append(os.Environ(), "REFLECT_BIN_DIR="+filepath.Join(work, "unused"))
	if out, err = cmd.CombinedOutput(); err != nil || strings.Contains(string(out), "stable") {
		t.Errorf("npx reflectkb version: %q, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(work, "unused")); !os.IsNotExist(err) {
		t.Errorf("reflectkb version copied the binaries: %v", err)
	}
}

// TestRealDist is make dist-smoke's check of a real build (skipped without
// one): the host's archive installs with install.sh and through the npm
// packages, and reflect version runs from each; the cross-built arm64
// reflect is a static aarch64 ELF and the Windows one an amd64 PE.
func TestRealDist(t *testing.T) {
	dist := os.Getenv("REFLECT_DIST_DIR")
	if dist == "" {
		t.Skip("REFLECT_DIST_DIR not set: make dist-smoke runs this on a real build")
	}
	host := hostPlatform(t)
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sums), "_"+host+".tar.gz\n") {
		t.Fatalf("checksums.txt has no archive for %s:\n%s", host, sums)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dist)))
	defer srv.Close()
	home := t.TempDir()
	binDir := filepath.Join(home, "bin")
	if out, err := installSh(t, home, "--base-url", srv.URL, "--bin-dir", binDir); err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(binDir, "reflect"), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "reflect ") {
		t.Errorf("installed reflect version: %q, %v", out, err)
	}
	t.Logf("install.sh: %s", out)

	if _, err := exec.LookPath("npm"); err == nil {
		npmPlat := npmPlatform()
		work := t.TempDir()
		packs := filepath.Join(work, "packs")
		if err := os.Mkdir(packs, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"reflectkb", npmPlat} {
			npm(t, filepath.Join(dist, "npm", p), "pack", "--silent", "--pack-destination", packs)
		}
		tgz, _ := filepath.Glob(filepath.Join(packs, "*.tgz"))
		global := filepath.Join(work, "global")
		npm(t, work, append([]string{"install", "--offline", "--omit=optional", "-g", "--prefix", global}, tgz...)...)
		out, err := exec.Command(filepath.Join(global, "bin", "reflect"), "version").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "reflect ") {
			t.Errorf("reflect version through npm: %q, %v", out, err)
		}
		t.Logf("npm: %s", out)
	} else if os.Getenv("CI") == "true" {
		t.Error("CI needs npm for the npm package check")
	}

	if arm := os.Getenv("REFLECT_DIST_ARM64"); arm != "" {
		f, err := elf.Open(arm)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.Machine != elf.EM_AARCH64 {
			t.Errorf("%s: machine %v, want EM_AARCH64", arm, f.Machine)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s asks for a dynamic loader: not static", arm)
			}
		}
	}
	if win := os.Getenv("REFLECT_DIST_WINDOWS"); win != "" {
		f, err := pe.Open(win)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
			t.Errorf("%s: machine %#x, want amd64", win, f.Machine)
		}
	}
}

// npmPlatform is this machine as npm names it: linux-x64, darwin-arm64.
func npmPlatform() string {
	arch := runtime.GOARCH
	if arch == "amd64" {
		arch = "x64"
	}
	return runtime.GOOS + "-" + arch
}
