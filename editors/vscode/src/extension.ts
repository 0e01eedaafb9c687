// The planc extension: starts `planc lsp` over stdio and connects VS Code to
// it. Highlighting comes from the TextMate grammar and works without the
// server; everything else (diagnostics, hover, completion, navigation,
// formatting) comes from the server.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  DocumentSelector,
  Executable,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from 'vscode-languageclient/node';

const SECTION = 'planc';

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel | undefined;
/** Where the extension is installed: a platform package has `server/planc` there. */
let extensionPath: string | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionPath = context.extensionPath;
  output = vscode.window.createOutputChannel('planc', { log: true });
  context.subscriptions.push(output);

  context.subscriptions.push(
    vscode.commands.registerCommand('planc.restartServer', () => restart()),
    vscode.commands.registerCommand('planc.showOutput', () => output?.show(true)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // The other `planc` settings (`planc.actor`) reach the running server
      // (workspace/didChangeConfiguration, below); these decide how it is
      // started.
      if (
        event.affectsConfiguration('planc.server') ||
        event.affectsConfiguration('planc.jsonPlans')
      ) {
        void restart();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => restart()),
  );

  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

async function start(): Promise<void> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const command = serverCommand(config.get<string>('server.path', ''));
  const extraArgs = config.get<string[]>('server.extraArgs', []);
  const jsonPlans = config.get<string[]>('jsonPlans', ['**/*.plan.json']);

  // No `transport` here: for an executable, vscode-languageclient would then
  // add a `--stdio` flag. `planc lsp` speaks LSP on stdin/stdout as it is.
  const executable: Executable = {
    command,
    args: ['lsp', ...extraArgs],
  };
  const serverOptions: ServerOptions = { run: executable, debug: executable };

  const documentSelector: DocumentSelector = [
    { scheme: 'file', language: 'planc' },
    { scheme: 'untitled', language: 'planc' },
    ...jsonPlans.map((pattern) => ({ scheme: 'file', language: 'json', pattern })),
  ];

  const clientOptions: LanguageClientOptions = {
    documentSelector,
    outputChannel: output,
    initializationOptions: settingsForServer(),
    synchronize: {
      // Sends the `planc` section (`{"planc": {"actor": [...]}}`) with
      // workspace/didChangeConfiguration whenever it changes, so a new actor
      // reaches the running server, which checks the open plans again.
      configurationSection: SECTION,
      // The server learns of catalogue and policy files from `planc.toml`;
      // it can ask for more watchers with client/registerCapability.
      fileEvents: [
        vscode.workspace.createFileSystemWatcher('**/planc.toml'),
        vscode.workspace.createFileSystemWatcher('**/*.plan'),
      ],
    },
  };

  client = new LanguageClient(SECTION, 'planc language server', serverOptions, clientOptions);
  try {
    await client.start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    output?.error(`could not start \`${command} lsp\`: ${message}`);
    client = undefined;
    const choice = await vscode.window.showErrorMessage(
      `planc: could not start the language server \`${command} lsp\` (${message}). ` +
        'Install planc (or the extension package for your platform, which carries it), ' +
        'or set `planc.server.path` to the planc executable. ' +
        'Highlighting works without the server.',
      'Open Settings',
      'Show Output',
    );
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'planc.server');
    } else if (choice === 'Show Output') {
      output?.show(true);
    }
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running !== undefined) {
    try {
      await running.stop();
    } catch (error) {
      output?.error(`stopping the language server failed: ${String(error)}`);
    }
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

/**
 * The settings the server needs before its first check. Later changes reach
 * it when it pulls the `planc` section (workspace/configuration).
 */
function settingsForServer(): { actor: string[] } {
  const config = vscode.workspace.getConfiguration(SECTION);
  return { actor: config.get<string[]>('actor', []) };
}

/**
 * The server to start, in the order rust-analyzer's extension uses: the
 * `planc.server.path` setting when it is set; else the `planc` that a
 * platform package carries (`server/planc` in the extension's folder); else
 * `planc` on PATH.
 */
function serverCommand(configured: string): string {
  if (configured.trim() !== '') {
    return resolveServerPath(configured);
  }
  const bundled = bundledServer();
  return bundled ?? 'planc';
}

/** The extension's own `planc`, when its package carries one for this machine. */
function bundledServer(): string | undefined {
  if (extensionPath === undefined) {
    return undefined;
  }
  const name = process.platform === 'win32' ? 'planc.exe' : 'planc';
  const candidate = path.join(extensionPath, 'server', name);
  try {
    fs.accessSync(candidate, fs.constants.F_OK);
  } catch {
    return undefined;
  }
  if (process.platform !== 'win32') {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
    } catch {
      // An unpacker that dropped the executable bit: put it back.
      try {
        fs.chmodSync(candidate, 0o755);
      } catch (error) {
        output?.error(`cannot make the bundled server executable: ${String(error)}`);
        return undefined;
      }
    }
  }
  return candidate;
}

/**
 * A bare name (`planc`) is looked up on PATH by the operating system; `~/`
 * is the home directory; any other relative path is taken from the first
 * workspace folder, so `target/debug/planc` works in a checkout of planc.
 */
function resolveServerPath(configured: string): string {
  const value = configured.trim() === '' ? 'planc' : configured.trim();
  if (value === '~' || value.startsWith('~/')) {
    return path.join(os.homedir(), value.slice(1));
  }
  if (path.isAbsolute(value) || (!value.includes('/') && !value.includes('\\'))) {
    return value;
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder === undefined ? value : path.join(folder.uri.fsPath, value);
}
