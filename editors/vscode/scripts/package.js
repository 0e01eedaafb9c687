#!/usr/bin/env node
// Packages the extension.
//
//   node scripts/package.js                      universal package: no server, uses
//                                                planc.server.path or `planc` on PATH
//   node scripts/package.js --target this        the package for this machine, carrying
//                                                a release build of planc
//   node scripts/package.js --target linux-x64 --binary path/to/planc
//                                                any VS Code target, with a planc built for it
//
// The package is written to planc-TARGET-VERSION.vsix here (planc-VERSION.vsix
// for the universal one), or to --out. The bundle (dist/extension.js) is built
// by vsce's prepublish step; the licences are copied from the repository root.
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = path.resolve(__dirname, '..');
const root = path.resolve(here, '..', '..');

/** VS Code's name for this machine's platform, as `vsce --target` takes it. */
function thisTarget() {
  const platform = { linux: 'linux', darwin: 'darwin', win32: 'win32' }[process.platform];
  const arch = { x64: 'x64', arm64: 'arm64', arm: 'armhf' }[process.arch];
  if (platform === undefined || arch === undefined) {
    throw new Error(`no VS Code target for ${process.platform}-${process.arch}`);
  }
  return `${platform}-${arch}`;
}

function parseArgs(argv) {
  const args = { target: undefined, binary: undefined, out: undefined };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (!['--target', '--binary', '--out'].includes(flag) || value === undefined) {
      throw new Error(`unknown argument \`${flag}\` (usage: package.js [--target this|TARGET] [--binary PLANC] [--out FILE])`);
    }
    args[flag.slice(2)] = value;
    i++;
  }
  if (args.binary !== undefined && args.target === undefined) {
    throw new Error('--binary needs --target: a universal package carries no server');
  }
  return args;
}

function run(command, args, options = {}) {
  console.log(`+ ${command} ${args.join(' ')}`);
  execFileSync(command, args, { stdio: 'inherit', ...options });
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const target = args.target === 'this' ? thisTarget() : args.target;
  const version = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8')).version;
  const out = path.resolve(args.out ?? path.join(here, target ? `planc-${target}-${version}.vsix` : `planc-${version}.vsix`));

  const serverDir = path.join(here, 'server');
  const licences = ['LICENSE-MIT', 'LICENSE-APACHE'];
  fs.rmSync(serverDir, { recursive: true, force: true });
  try {
    if (target !== undefined) {
      let binary = args.binary;
      if (binary === undefined) {
        if (target !== thisTarget()) {
          throw new Error(`--target ${target} is not this machine (${thisTarget()}): give --binary, a planc built for it`);
        }
        run('cargo', ['build', '--release', '--locked'], { cwd: root });
        binary = path.join(root, 'target', 'release', process.platform === 'win32' ? 'planc.exe' : 'planc');
      }
      const name = target.startsWith('win32-') ? 'planc.exe' : 'planc';
      fs.mkdirSync(serverDir);
      fs.copyFileSync(binary, path.join(serverDir, name));
      fs.chmodSync(path.join(serverDir, name), 0o755);
    }
    for (const licence of licences) {
      fs.copyFileSync(path.join(root, licence), path.join(here, licence));
    }
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const vsce = path.join(here, 'node_modules', '@vscode', 'vsce', 'vsce');
    const targetArgs = target === undefined ? [] : ['--target', target];
    // --skip-license: the licence is dual, in LICENSE-MIT and LICENSE-APACHE
    // (both packaged), where vsce looks for a single LICENSE file.
    // --allow-missing-repository: the project names no public repository
    // address yet, and an address that leads nowhere is worse than none.
    run(
      process.execPath,
      [vsce, 'package', '--no-dependencies', '--skip-license', '--allow-missing-repository', ...targetArgs, '-o', out],
      { cwd: here },
    );
  } finally {
    fs.rmSync(serverDir, { recursive: true, force: true });
    for (const licence of licences) {
      fs.rmSync(path.join(here, licence), { force: true });
    }
  }
  console.log(`packaged ${out}`);
}

try {
  main();
} catch (error) {
  console.error(`package: error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
