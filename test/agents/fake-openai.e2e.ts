// The fake OpenAI API on its own, both wire formats from one queue: the Responses events Codex reads and the Chat
// Completions chunks OpenCode reads, a title request (no tools) that takes nothing from the queue, recorded requests,
// an error (not a hang) when the script runs out or holds a Codex-only item for Chat Completions, and closing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeOpenAI } from './support/fake-openai';

/** The `data:` payloads of a server-sent event stream, with their `event:` names where given. */
function events(body: string): { event?: string; data: any }[] {
  return body
    .split('\n\n')
    .filter(Boolean)
    .map((chunk) => {
      const data = /^data: (.*)$/m.exec(chunk)![1]!;
      return { event: /^event: (.*)$/m.exec(chunk)?.[1], data: data === '[DONE]' ? data : JSON.parse(data) };
    });
}

test('answers Responses and Chat Completions requests from one script, records them, refuses what it cannot answer', async (t) => {
  const fake = await startFakeOpenAI({
    replies: [
      [{ exec: 'ls', workdir: '/w' }, { patch: '*** Begin Patch\n*** End Patch\n' }, { tool: 'view', args: { path: 'a' } }, { text: 'hi' }],
      [{ text: 'thinking' }, { tool: 'bash', args: { command: 'ls' } }],
      [{ exec: 'ls' }],
    ],
    closeAfter: t,
  });
  assert.match(fake.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  const post = (path: string, body: unknown) =>
    fetch(`${fake.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  const r1 = await post('/responses', { model: 'gpt-x', input: [] });
  assert.match(r1.headers.get('content-type')!, /text\/event-stream/);
  const e1 = events(await r1.text());
  assert.deepEqual(
    e1.map((e) => e.event),
    [
      'response.created',
      ...Array(3).fill(['response.output_item.added', 'response.output_item.done']).flat(),
      'response.output_item.added',
      'response.output_text.delta',
      'response.output_item.done',
      'response.completed',
    ],
  );
  const items = e1.at(-1)!.data.response.output;
  assert.equal(e1.at(-1)!.data.response.model, 'gpt-x');
  assert.deepEqual(
    items.map((i: any) => [i.type, i.name, i.arguments ?? i.input ?? i.content[0].text]),
    [
      ['function_call', 'exec_command', JSON.stringify({ cmd: 'ls', workdir: '/w' })],
      ['custom_tool_call', 'apply_patch', '*** Begin Patch\n*** End Patch\n'],
      ['function_call', 'view', JSON.stringify({ path: 'a' })],
      ['message', undefined, 'hi'],
    ],
  );

  // OpenCode's title request offers no tools: a fixed title, nothing taken from the queue
  const title = events(await (await post('/chat/completions', { model: 'fake-model', messages: [] })).text());
  assert.equal(title.map((e) => e.data.choices?.[0]?.delta?.content ?? '').join(''), 'Scripted session');
  assert.equal(fake.pending(), 2);

  const e2 = events(await (await post('/chat/completions', { model: 'fake-model', tools: [{}], messages: [] })).text());
  assert.equal(e2.at(-1)!.data, '[DONE]');
  const choices = e2.slice(0, -2).map((e) => e.data.choices[0]);
  assert.equal(choices.map((c) => c.delta.content ?? '').join(''), 'thinking');
  const calls = choices.flatMap((c) => c.delta.tool_calls ?? []);
  assert.equal(calls[0].function.name, 'bash');
  assert.deepEqual(JSON.parse(calls.map((c: any) => c.function.arguments).join('')), { command: 'ls' });
  assert.equal(choices.at(-1).finish_reason, 'tool_calls');
  assert.ok(e2.at(-2)!.data.usage.total_tokens > 0);

  // Codex's own tools cannot go to Chat Completions: said plainly, not streamed as something else
  const wrong = await post('/chat/completions', { tools: [{}], messages: [] });
  assert.equal(wrong.status, 400);
  assert.match(((await wrong.json()) as { error: { message: string } }).error.message, /cannot hold exec/);

  const none = await post('/responses', { input: [] });
  assert.equal(none.status, 400);
  assert.equal(fake.unscripted.length, 1);
  assert.deepEqual(
    fake.requests.map((r) => [r.url, r.replyIndex]),
    [
      ['/v1/responses', 0],
      ['/v1/chat/completions', -1],
      ['/v1/chat/completions', 1],
      ['/v1/chat/completions', 2],
      ['/v1/responses', -1],
    ],
  );
  assert.equal((await fetch(`${fake.baseUrl}/models`)).status, 404);
  await fake.close();
  await assert.rejects(fetch(`${fake.baseUrl}/models`));
});
