'use strict';
// Runs one of reflect's binaries from the platform package npm installed
// beside this one (@reflectkb/<os>-<cpu>, an optional dependency that only
// installs on its own platform), passing arguments, stdio and exit status
// through.
const childProcess = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const exe = process.platform === 'win32' ? '.exe' : '';
const platformPackage = `@reflectkb/${process.platform}-${process.arch}`;

// binaryDir is the bin directory of the platform package, or exits with
// what to do when npm did not install one.
function binaryDir() {
  try {
    return path.join(path.dirname(require.resolve(`${platformPackage}/package.json`)), 'bin');
  } catch (err) {
    console.error(`reflectkb: ${platformPackage} is not installed, so there is no reflect binary for ${process.platform}/${process.arch}.`);
    console.error('reflectkb: if npm skipped optional dependencies (--omit=optional, --no-optional), install again without that;');
    console.error('reflectkb: otherwise this platform has no release build: see https://github.com/reflectkb/reflect#install');
    process.exit(1);
  }
}

// stableCopy copies the binaries out of npx's cache, which npm may clear
// at any time, into a directory of the user's when the command writes
// the binary's path into an agent's settings (install, mcp install): the
// hooks run that path for as long as they stay installed.
function stableCopy(dir, args) {
  const writesPath = args[0] === 'install' || (args[0] === 'mcp' && args[1] === 'install');
  if (!writesPath || !dir.split(path.sep).includes('_npx')) {
    return dir;
  }
  const target = process.env.REFLECT_BIN_DIR ||
    (process.platform === 'win32'
      ? path.join(process.env.LOCALAPPDATA || os.homedir(), 'reflect', 'bin')
      : path.join(os.homedir(), '.local', 'bin'));
  fs.mkdirSync(target, { recursive: true });
  for (const name of ['reflect', 'reflect-mcp', 'reflect-ui']) {
    const to = path.join(target, name + exe);
    const tmp = `${to}.tmp-${process.pid}`;
    fs.copyFileSync(path.join(dir, name + exe), tmp);
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, to);
  }
  console.error(`reflectkb: npx's copy is temporary; installed reflect, reflect-mcp and reflect-ui in ${target} for the hooks to run`);
  const onPath = (process.env.PATH || '').split(path.delimiter).some((p) => path.resolve(p) === path.resolve(target));
  if (!onPath) {
    console.error(`reflectkb: ${target} is not on your PATH; add it to run reflect yourself`);
  }
  return target;
}

module.exports = function run(name) {
  const args = process.argv.slice(2);
  let dir = binaryDir();
  if (name === 'reflect') {
    dir = stableCopy(dir, args);
  }
  const bin = path.join(dir, name + exe);
  const child = childProcess.spawnSync(bin, args, { stdio: 'inherit', windowsHide: true });
  if (child.error) {
    console.error(`reflectkb: cannot run ${bin}: ${child.error.message}`);
    process.exit(1);
  }
  if (child.signal) {
    process.kill(process.pid, child.signal);
  }
  process.exit(child.status === null ? 1 : child.status);
};
