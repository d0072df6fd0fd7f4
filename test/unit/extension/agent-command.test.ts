// "Continue in Claude Code" / "Continue in Codex": the configured command replaces the agent's default program, the
// resume arguments are quoted, and a program that is not there is found out before a terminal opens.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AGENT_COMMAND_SETTINGS, findProgram, missingProgramMessage, resumeLine } from '../../../src/extension/commands/agent-command';

const dir = mkdtempSync(join(tmpdir(), 'agent-command-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('the resume command line', () => {
  it('uses the configured command for the agent, else its default program', () => {
    const none = () => undefined;
    assert.deepEqual(resumeLine(['claude', '--resume', 'abc-1'], none), {
      line: 'claude --resume abc-1',
      program: 'claude',
      setting: 'agentRewind.claudeCode.command',
    });
    const configured = (key: string) => ({ 'claudeCode.command': 'npx -y @anthropic-ai/claude-code', 'codex.command': '"/opt/my tools/codex"' })[key];
    assert.deepEqual(resumeLine(['claude', '--resume', 'abc-1'], configured), {
      line: 'npx -y @anthropic-ai/claude-code --resume abc-1',
      program: 'npx',
      setting: 'agentRewind.claudeCode.command',
    });
    assert.equal(resumeLine(['codex', 'resume', "it's"], configured).line, `"/opt/my tools/codex" resume 'it'\\''s'`);
    assert.equal(resumeLine(['codex', 'resume', 'x'], configured).program, '/opt/my tools/codex');
    assert.equal(resumeLine(['claude', '--resume', 'x'], () => '   ').line, 'claude --resume x', 'a blank setting is the default');
  });

  it('has a setting for every agent it maps, declared in package.json', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
    };
    for (const [program, key] of Object.entries(AGENT_COMMAND_SETTINGS))
      assert.equal(manifest.contributes.configuration.properties[`agentRewind.${key}`]?.default, program, key);
  });
});

describe('finding the program', () => {
  it('finds an executable on PATH or by path, and not a missing or non-executable one', async () => {
    const tool = join(dir, 'fake-claude');
    writeFileSync(tool, '#!/bin/sh\n');
    chmodSync(tool, 0o755);
    const plain = join(dir, 'not-executable');
    writeFileSync(plain, '');
    chmodSync(plain, 0o644);
    const env = { PATH: `/nonexistent:${dir}` };
    assert.equal(await findProgram('fake-claude', env), tool);
    assert.equal(await findProgram(tool, env), tool);
    assert.equal(await findProgram('claude-that-is-not-there', env), undefined);
    assert.equal(await findProgram('not-executable', env), undefined);
    assert.equal(await findProgram('fake-claude', { PATH: '' }), undefined);
  });

  it('says what was not found, which setting fixes it, and the command to run by hand', () => {
    const text = missingProgramMessage(
      'Claude Code',
      resumeLine(['claude', '--resume', 'abc'], () => undefined),
    );
    assert.match(text, /Claude Code's command "claude" was not found on this machine's PATH\./);
    assert.match(text, /Set agentRewind\.claudeCode\.command/);
    assert.match(text, /claude --resume abc$/);
  });
});
