// The planc extension: starts `planc lsp` over stdio and connects VS Code to
// it. Highlighting comes from the TextMate grammar and works without the
// server; everything else (diagnostics, hover, completion, navigation,
// formatting) comes from the server.

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

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('planc', { log: true });
  context.subscriptions.push(output);

  context.subscriptions.push(
    vscode.commands.registerCommand('planc.restartServer', () => restart()),
    vscode.commands.registerCommand('planc.showOutput', () => output?.show(true)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // The server pulls the other `planc` settings itself
      // (workspace/configuration); these decide how it is started.
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
  const command = resolveServerPath(config.get<string>('server.path', 'planc'));
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
        'Install planc, or set `planc.server.path` to the planc executable. ' +
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
