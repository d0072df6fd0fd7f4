// The fake Messages API on its own: the server-sent events in the order the real API sends them, recorded requests,
// an error (not a hang) when the script runs out, and closing with the test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeAnthropic } from './support/fake-anthropic';

function events(body: string): { event: string; data: any }[] {
  return body
    .split('\n\n')
    .filter(Boolean)
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)![1]!;
      return { event, data: JSON.parse(/^data: (.*)$/m.exec(chunk)![1]!) };
    });
}

test('streams scripted replies as Messages API events, records requests, refuses unscripted ones', async (t) => {
  const fake = await startFakeAnthropic({
    replies: [[{ text: 'hi' }, { tool_use: { name: 'Bash', input: { command: 'ls -la' } } }], [{ text: 'done' }]],
    closeAfter: t,
  });
  const post = (body: unknown) =>
    fetch(`${fake.baseUrl}/v1/messages?beta=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal((await fetch(`${fake.baseUrl}/api/hello`, { method: 'HEAD' })).status, 200);

  const r1 = await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'go' }] });
  assert.match(r1.headers.get('content-type')!, /text\/event-stream/);
  const e1 = events(await r1.text());
  assert.deepEqual(
    e1.map((e) => e.event),
    [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ],
  );
  assert.equal(e1[0]!.data.message.model, 'm');
  assert.equal(e1[2]!.data.delta.text, 'hi');
  assert.equal(e1[4]!.data.content_block.name, 'Bash');
  const toolId = e1[4]!.data.content_block.id;
  assert.deepEqual(JSON.parse(e1[5]!.data.delta.partial_json + e1[6]!.data.delta.partial_json), { command: 'ls -la' });
  assert.equal(e1[8]!.data.delta.stop_reason, 'tool_use');
  assert.ok(e1[8]!.data.usage.output_tokens > 0);

  const r2 = await post({ model: 'm', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: 'files' }] }] });
  const e2 = events(await r2.text());
  assert.equal(e2.find((e) => e.event === 'message_delta')!.data.delta.stop_reason, 'end_turn');
  assert.deepEqual(fake.toolResults(), [{ tool_use_id: toolId, content: 'files', is_error: undefined }]);

  const r3 = await post({ model: 'm', messages: [] });
  assert.equal(r3.status, 400);
  assert.equal(fake.unscripted.length, 1);
  assert.deepEqual(
    fake.requests.map((r) => [r.method, r.replyIndex]),
    [
      ['HEAD', -1],
      ['POST', 0],
      ['POST', 1],
      ['POST', -1],
    ],
  );
  assert.equal((await fetch(`${fake.baseUrl}/nope`)).status, 404);
  await fake.close();
  await assert.rejects(fetch(`${fake.baseUrl}/api/hello`));
});
