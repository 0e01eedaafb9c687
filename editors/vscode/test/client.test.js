// Tests of the LSP client's wiring (out/extension.js) without VS Code: the
// `vscode` and `vscode-languageclient/node` modules are replaced by fakes that
// record what the extension asks of them. Run with `npm run test:client`
// after `npm run compile`.

'use strict';

const assert = require('node:assert/strict');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');
const { beforeEach, test } = require('node:test');

// ---------------------------------------------------------------- fakes

const state = {};

function reset(settings = {}, options = {}) {
  state.settings = {
    'server.path': 'planc',
    'server.extraArgs': [],
    jsonPlans: ['**/*.plan.json'],
    actor: [],
    ...settings,
  };
  state.clients = [];
  state.errors = [];
  state.commands = new Map();
  state.configListeners = [];
  state.trustListeners = [];
  state.executed = [];
  state.startFails = options.startFails ?? null;
  state.errorChoice = options.errorChoice;
  state.workspaceFolders =
    'workspaceFolders' in options ? options.workspaceFolders : [{ uri: { fsPath: '/project' } }];
}

const fakeVscode = {
  window: {
    createOutputChannel: (name, opts) => ({
      name,
      log: opts && opts.log,
      lines: [],
      error(line) { this.lines.push(line); },
      show() {},
      dispose() {},
    }),
    showErrorMessage: async (message, ...items) => {
      state.errors.push({ message, items });
      return state.errorChoice;
    },
  },
  commands: {
    registerCommand: (id, fn) => {
      state.commands.set(id, fn);
      return { dispose() {} };
    },
    executeCommand: async (...args) => {
      state.executed.push(args);
    },
  },
  workspace: {
    getConfiguration: (section) => {
      assert.equal(section, 'planc');
      return { get: (key, fallback) => (key in state.settings ? state.settings[key] : fallback) };
    },
    onDidChangeConfiguration: (fn) => {
      state.configListeners.push(fn);
      return { dispose() {} };
    },
    onDidGrantWorkspaceTrust: (fn) => {
      state.trustListeners.push(fn);
      return { dispose() {} };
    },
    createFileSystemWatcher: (glob) => ({ glob, dispose() {} }),
    get workspaceFolders() {
      return state.workspaceFolders;
    },
  },
};

class FakeLanguageClient {
  constructor(id, name, serverOptions, clientOptions) {
    Object.assign(this, { id, name, serverOptions, clientOptions, started: false, stopped: false });
    state.clients.push(this);
  }
  async start() {
    if (state.startFails) throw new Error(state.startFails);
    this.started = true;
  }
  async stop() {
    this.stopped = true;
  }
}

const originalLoad = Module._load;
Module._load = function load(request, parent, isMain) {
  if (request === 'vscode') return fakeVscode;
  if (request === 'vscode-languageclient/node') return { LanguageClient: FakeLanguageClient };
  return originalLoad.call(this, request, parent, isMain);
};

const extension = require(path.join(__dirname, '..', 'out', 'extension.js'));

function context() {
  return { subscriptions: [] };
}

// ---------------------------------------------------------------- tests

beforeEach(async () => {
  await extension.deactivate();
  reset();
});

test('starts `planc lsp` over stdio without extra flags', async () => {
  await extension.activate(context());
  assert.equal(state.clients.length, 1);
  const client = state.clients[0];
  assert.equal(client.id, 'planc');
  assert.ok(client.started);
  for (const executable of [client.serverOptions.run, client.serverOptions.debug]) {
    assert.equal(executable.command, 'planc');
    assert.deepEqual(executable.args, ['lsp']);
    // With a transport, vscode-languageclient would append `--stdio`.
    assert.equal(executable.transport, undefined);
  }
});

test('passes planc.server.extraArgs after `lsp`', async () => {
  reset({ 'server.extraArgs': ['--catalog', 'tools.plan'] });
  await extension.activate(context());
  assert.deepEqual(state.clients[0].serverOptions.run.args, ['lsp', '--catalog', 'tools.plan']);
});

test('registers for .plan documents and the JSON plan patterns', async () => {
  reset({ jsonPlans: ['**/*.plan.json', 'plans/*.json'] });
  await extension.activate(context());
  assert.deepEqual(state.clients[0].clientOptions.documentSelector, [
    { scheme: 'file', language: 'planc' },
    { scheme: 'untitled', language: 'planc' },
    { scheme: 'file', language: 'json', pattern: '**/*.plan.json' },
    { scheme: 'file', language: 'json', pattern: 'plans/*.json' },
  ]);
  const watched = state.clients[0].clientOptions.synchronize.fileEvents.map((w) => w.glob);
  assert.deepEqual(watched, ['**/planc.toml', '**/*.plan']);
});

test('sends the actor setting in initializationOptions', async () => {
  reset({ actor: ['billing:read', 'crm:read'] });
  await extension.activate(context());
  assert.deepEqual(state.clients[0].clientOptions.initializationOptions, {
    actor: ['billing:read', 'crm:read'],
  });
});

test('resolves planc.server.path', async () => {
  const cases = [
    ['planc', 'planc'],
    ['', 'planc'],
    ['  /opt/planc/bin/planc ', '/opt/planc/bin/planc'],
    ['target/debug/planc', path.join('/project', 'target/debug/planc')],
    ['./planc', path.join('/project', 'planc')],
    ['~/bin/planc', path.join(os.homedir(), 'bin/planc')],
  ];
  for (const [setting, expected] of cases) {
    await extension.deactivate();
    reset({ 'server.path': setting });
    await extension.activate(context());
    assert.equal(state.clients[0].serverOptions.run.command, expected, `setting ${JSON.stringify(setting)}`);
  }
});

test('a relative path without a workspace folder is left as written', async () => {
  reset({ 'server.path': 'target/debug/planc' }, { workspaceFolders: undefined });
  await extension.activate(context());
  assert.equal(state.clients[0].serverOptions.run.command, 'target/debug/planc');
});

test('says clearly when the server cannot start, and offers the settings', async () => {
  reset({ 'server.path': 'no-such-planc' }, { startFails: 'spawn no-such-planc ENOENT', errorChoice: 'Open Settings' });
  await extension.activate(context());
  assert.equal(state.errors.length, 1);
  const { message, items } = state.errors[0];
  assert.match(message, /could not start the language server `no-such-planc lsp`/);
  assert.match(message, /spawn no-such-planc ENOENT/);
  assert.match(message, /planc\.server\.path/);
  assert.deepEqual(items, ['Open Settings', 'Show Output']);
  assert.deepEqual(state.executed, [['workbench.action.openSettings', 'planc.server']]);
});

test('restarts the server when its settings change, not for other settings', async () => {
  await extension.activate(context());
  assert.equal(state.clients.length, 1);
  const change = (section) => ({ affectsConfiguration: (s) => s === section });

  for (const listener of state.configListeners) listener(change('planc.actor'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(state.clients.length, 1, 'planc.actor reaches the running server');

  state.settings['server.path'] = '/usr/local/bin/planc';
  for (const listener of state.configListeners) listener(change('planc.server'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(state.clients.length, 2);
  assert.ok(state.clients[0].stopped);
  assert.equal(state.clients[1].serverOptions.run.command, '/usr/local/bin/planc');
});

test('the restart command stops the old client and starts a new one', async () => {
  await extension.activate(context());
  await state.commands.get('planc.restartServer')();
  assert.equal(state.clients.length, 2);
  assert.ok(state.clients[0].stopped);
  assert.ok(state.clients[1].started);
});

// ---------------------------------------------------------------- JSON plans

test('*.plan.json files are validated against the shipped generic plan schema', () => {
  const manifest = require('../package.json');
  const [rule] = manifest.contributes.jsonValidation;
  assert.deepEqual(rule.fileMatch, ['*.plan.json']);
  // `npm run compile` copies the repository's schema/plan.schema.json here.
  const shipped = path.join(__dirname, '..', rule.url);
  const source = path.join(__dirname, '..', '..', '..', 'schema', 'plan.schema.json');
  const fs = require('node:fs');
  assert.equal(fs.readFileSync(shipped, 'utf8'), fs.readFileSync(source, 'utf8'));
  const schema = JSON.parse(fs.readFileSync(shipped, 'utf8'));
  assert.equal(schema.title, 'planc JSON plan');
  assert.deepEqual(schema.required, ['steps']);
});
