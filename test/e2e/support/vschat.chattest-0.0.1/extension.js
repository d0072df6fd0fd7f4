// e2e only (flow 8): a scripted language model for VS Code's built-in agent mode and a driver that sends the script's
// prompts through VS Code's own chat, as a person would. The script ($VSCHAT_SCRIPT, JSON) names each step's marker,
// prompt and tool calls; the model answers the request whose last user message carries a step's marker with that
// step's tool calls, one per round, then with its reply. Before each prompt the driver records the workspace (every
// file's sha256 and mode) in <out>/before-<n>.json, and writes <out>/done.json (or error.json) at the end. Every call of
// the model on a step is appended to <out>/model-calls.jsonl ({marker, round, tools, atMs}): the lag measurement
// (support/chat-lag.ts) compares the first one of each request with the time of its snapshot.
'use strict';
const vscode = require('vscode');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function partsText(message) {
  return (message.content || []).map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : typeof p.value === 'string' ? p.value : '')).join('');
}

function toolResults(message) {
  return (message.content || []).filter((p) => p instanceof vscode.LanguageModelToolResultPart || (p.callId !== undefined && p.content !== undefined)).length;
}

/** The markers of the steps whose final reply the model has given. */
const finished = new Set();

function makeProvider(script, log) {
  return {
    provideLanguageModelChatInformation() {
      return [
        {
          id: 'fake-model',
          name: 'Fake Model',
          family: 'fake',
          version: '1',
          maxInputTokens: 128000,
          maxOutputTokens: 8000,
          capabilities: { toolCalling: true },
        },
      ];
    },
    async provideLanguageModelChatResponse(model, messages, options, progress) {
      const tools = (options && options.tools) || [];
      let at = -1;
      let step;
      for (let i = messages.length - 1; i >= 0 && !step; i--) {
        const text = partsText(messages[i]);
        step = script.steps.find((s) => text.includes(s.marker));
        if (step) at = i;
      }
      if (!step || tools.length === 0) {
        progress.report(new vscode.LanguageModelTextPart(step ? step.title || 'Scripted work' : 'Scripted chat'));
        return;
      }
      let done = 0;
      for (const m of messages.slice(at + 1)) done += toolResults(m);
      if (script.out) fs.appendFileSync(path.join(script.out, 'model-calls.jsonl'), JSON.stringify({ marker: step.marker, round: done, tools: tools.length, atMs: Date.now() }) + '\n');
      const call = step.calls[done];
      log(`model: ${step.marker} round ${done} of ${step.calls.length}`);
      if (call) progress.report(new vscode.LanguageModelToolCallPart(`call_${step.marker}_${done}`, call.name, call.input));
      else {
        finished.add(step.marker);
        progress.report(new vscode.LanguageModelTextPart(step.reply));
      }
    },
    async provideTokenCount(model, text) {
      return Math.ceil((typeof text === 'string' ? text.length : JSON.stringify(text).length) / 4);
    },
  };
}

function manifest(root) {
  const out = {};
  const walk = (dir, rel) => {
    for (const name of fs.readdirSync(dir).sort()) {
      if (name === '.github' || name.startsWith('.agent-rewind')) continue;
      const p = path.join(dir, name);
      const st = fs.lstatSync(p);
      if (st.isDirectory()) walk(p, `${rel}${name}/`);
      else if (st.isFile()) out[`${rel}${name}`] = [createHash('sha256').update(fs.readFileSync(p)).digest('hex'), st.mode & 0o777];
    }
  };
  walk(root, '');
  return out;
}

async function drive(script, log) {
  const copilot = vscode.extensions.all.find((e) => e.id.toLowerCase() === 'github.copilot-chat');
  log(`copilot: ${copilot ? copilot.id : 'not found'}`);
  if (copilot && !copilot.isActive) await copilot.activate();
  for (let i = 0; i < 60; i++) {
    if ((await vscode.lm.selectChatModels({ vendor: 'fakelm' })).length) break;
    await sleep(500);
  }
  await sleep(script.settleMs || 8000);
  await vscode.commands.executeCommand('workbench.action.chat.newChat');
  await sleep(1000);
  const results = [];
  for (let n = 0; n < script.steps.length; n++) {
    const step = script.steps[n];
    fs.writeFileSync(path.join(script.out, `before-${n + 1}.json`), JSON.stringify(manifest(script.workspace)));
    const t = Date.now();
    const r = await vscode.commands.executeCommand('workbench.action.chat.open', { query: step.prompt, mode: 'agent', blockOnResponse: true });
    log(`prompt ${n + 1} answered after ${Date.now() - t} ms: ${JSON.stringify(r).slice(0, 200)}`);
    // the very first prompt may come back at once while VS Code's agent takes it over and runs it: the next prompt is
    // sent (and the workspace recorded for it) only once this step's last reply was given and its edits are saved
    for (let i = 0; i < 240 && !finished.has(step.marker); i++) await sleep(500);
    log(`step ${step.marker} finished: ${finished.has(step.marker)}`);
    results.push({ ms: Date.now() - t, result: r });
    await sleep(script.pauseMs || 3000);
  }
  return results;
}

function activate(context) {
  const file = process.env.VSCHAT_SCRIPT;
  if (!file) return;
  const script = JSON.parse(fs.readFileSync(file, 'utf8'));
  const logFile = path.join(script.out, 'driver.log');
  const log = (m) => fs.appendFileSync(logFile, `${new Date().toISOString()} ${m}\n`);
  context.subscriptions.push(vscode.lm.registerLanguageModelChatProvider('fakelm', makeProvider(script, log)));
  fs.writeFileSync(
    path.join(script.out, 'storage.json'),
    JSON.stringify({ storageUri: context.storageUri ? context.storageUri.toString() : null, fsPath: context.storageUri ? context.storageUri.fsPath : null }),
  );
  drive(script, log).then(
    (results) => fs.writeFileSync(path.join(script.out, 'done.json'), JSON.stringify(results)),
    (err) => fs.writeFileSync(path.join(script.out, 'error.json'), JSON.stringify({ message: String((err && err.stack) || err) })),
  );
}

module.exports = { activate, deactivate() {} };
