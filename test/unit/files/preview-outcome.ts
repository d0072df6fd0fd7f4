// What the preview tests compare of a dry run and the real rewind after it (promise 13), and the real rewind's result
// or its refusal, as one value.
import type { RewindFilesResult } from '../../../src/core/files';

type Compared = Pick<RewindFilesResult, 'canRewind' | 'filesChanged' | 'insertions' | 'deletions' | 'userModified' | 'skipped'>;

/** The fields a dry run and its real rewind must agree on; `reasons`: the skipped files' reasons too, not only paths. */
export const previewOutcome = (r: Compared, opts: { reasons?: boolean } = {}) => ({
  canRewind: r.canRewind,
  filesChanged: r.filesChanged,
  insertions: r.insertions,
  deletions: r.deletions,
  userModified: r.userModified,
  skipped: r.skipped.map((s) => (opts.reasons ? `${s.path}: ${s.reason}` : s.path)).sort(),
});

/** The real rewind's result, or the message it refused with; `why` says both sides for an assertion's message. */
export async function realOrRefusal(
  run: () => Promise<RewindFilesResult>,
  dry: RewindFilesResult,
): Promise<{ real?: RewindFilesResult; refused?: string; why: string }> {
  let real: RewindFilesResult | undefined;
  let refused: string | undefined;
  try {
    real = await run();
  } catch (err) {
    refused = (err as Error).message;
  }
  return { real, refused, why: `\ndry: ${JSON.stringify(dry)}\nreal: ${refused ?? JSON.stringify(real)}` };
}
