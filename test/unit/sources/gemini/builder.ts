// Synthetic Gemini CLI sessions written the way 0.61 writes them (real-agents-2.md): a metadata line, a `$set` of the
// context message, then per prompt its record, and per reply a record written once without and once with its tool
// calls, followed by the tool results as a user record; `$set lastUpdated` after each; `$rewindTo` and a resume's
// `$set messages` on request.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Rec = Record<string, unknown>;

export interface Call {
  name: string;
  args: Rec;
  output: string;
  display?: unknown;
  status?: string;
}

export class GeminiLog {
  readonly lines: string[] = [];
  readonly messages: Rec[] = [];
  private clock = Date.parse('2026-11-27T06:42:00.000Z');
  readonly contextId = createHash('md5').update('ctx').digest('hex');

  constructor(
    readonly sessionId = randomUUID(),
    readonly root = '/work/proj',
  ) {
    this.raw({ sessionId, projectHash: createHash('sha256').update(root).digest('hex'), startTime: this.time(), lastUpdated: this.time(), kind: 'main' });
    const context = {
      id: this.contextId,
      timestamp: this.time(),
      type: 'user',
      content: [{ text: `<session_context>\n- **Workspace Directories:**\n  - ${root}\n- **Directory Structure:**\n` }],
    };
    this.messages.push(context);
    this.raw({ $set: { messages: [context] } });
  }

  time(): string {
    this.clock += 1000;
    return new Date(this.clock).toISOString();
  }

  raw(rec: unknown): this {
    this.lines.push(typeof rec === 'string' ? rec : JSON.stringify(rec));
    return this;
  }

  private record(rec: Rec): void {
    this.raw(rec);
    const at = this.messages.findIndex((m) => m.id === rec.id);
    if (at >= 0) this.messages[at] = rec;
    else this.messages.push(rec);
    this.raw({ $set: { lastUpdated: this.time() } });
  }

  prompt(text: string, id = randomUUID()): string {
    this.record({ id, timestamp: this.time(), type: 'user', content: [{ text }] });
    return id;
  }

  /** A reply: with calls, the record is written first without them, then with them, then their results. */
  reply(text: string, calls: Call[] = [], model = 'gemini-3.8-flash', id = randomUUID()): string {
    const base = { id, timestamp: this.time(), type: 'gemini', content: text, thoughts: [], tokens: { input: 1, output: 1, total: 2 }, model };
    this.record(base);
    if (calls.length) {
      const toolCalls = calls.map((c, i) => ({
        id: `${c.name}__${c.name}_${this.clock}_${i}`,
        name: c.name,
        args: c.args,
        result: [{ functionResponse: { id: `${c.name}__${c.name}_${this.clock}_${i}`, name: c.name, response: { output: c.output } } }],
        status: c.status ?? 'success',
        timestamp: this.time(),
        resultDisplay: c.display ?? c.output,
      }));
      this.record({ ...base, toolCalls });
      this.record({ id: randomUUID(), timestamp: this.time(), type: 'user', content: toolCalls.map((t) => t.result[0]) });
    }
    return id;
  }

  rewindTo(id: string): this {
    const at = this.messages.findIndex((m) => m.id === id);
    if (at >= 0) this.messages.length = at;
    return this.raw({ $rewindTo: id });
  }

  /** What a resume writes: `$set sessionId`, then the whole history with the replies' calls as content parts and a
   *  `<id>_response` copy of each result. */
  resume(): this {
    this.raw({ $set: { sessionId: this.sessionId } });
    const history: Rec[] = [];
    for (const m of this.messages) {
      const calls = Array.isArray(m.toolCalls) ? (m.toolCalls as Rec[]) : [];
      if (m.type === 'gemini' && calls.length) {
        history.push({
          id: m.id,
          timestamp: m.timestamp,
          type: 'gemini',
          content: calls.map((c) => ({ functionCall: { id: c.id, name: c.name, args: c.args } })),
        });
        history.push({ id: `${String(m.id)}_response`, timestamp: m.timestamp, type: 'user', content: calls.map((c) => (c.result as Rec[])[0]) });
      } else history.push(m);
    }
    this.raw({ $set: { messages: history } });
    return this;
  }

  text(): string {
    return this.lines.join('\n') + '\n';
  }

  /** Writes projects.json, tmp/<name>/.project_root and the session file; returns the file. */
  write(home: string, name = 'proj', opts: { projectFiles?: boolean; fileName?: string } = {}): string {
    const chats = join(home, 'tmp', name, 'chats');
    mkdirSync(chats, { recursive: true });
    if (opts.projectFiles !== false) {
      writeFileSync(join(home, 'projects.json'), JSON.stringify({ projects: { [this.root]: name } }));
      writeFileSync(join(home, 'tmp', name, '.project_root'), this.root);
    }
    const file = join(chats, opts.fileName ?? `session-2026-11-27T06-42-${this.sessionId.slice(0, 8)}.jsonl`);
    writeFileSync(file, this.text());
    return file;
  }
}
