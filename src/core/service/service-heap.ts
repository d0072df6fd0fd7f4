// How big the checkpoint service lets V8's young generation grow (issue 26: the service's memory per file). V8 sizes
// it for throughput: after a check of 200,000 paths its two semi-spaces had grown to 16 MB each and stayed there,
// ~30 MB of a long-lived process's resident memory kept for a burst that comes again only at the next full check.
// 1 MB semi-spaces cost the service's snapshots no measurable time (BENCHMARKS.md, "Checkpoint service memory"): what
// survives a scavenge there is the tree the service keeps anyway. Set at the process's (or thread's) start: V8 reads
// it once, when the heap is set up.

/** The size of each of the service's two semi-spaces. */
export const SERVICE_SEMI_SPACE_MB = 1;

/** Node's options for a service process (`agent-rewind serve --auto`, started by a hook or command). */
export const SERVICE_NODE_ARGS: readonly string[] = [`--max-semi-space-size=${SERVICE_SEMI_SPACE_MB}`];

/**
 * The C allocator's settings for a service process (glibc reads them from the environment at start; other C libraries
 * ignore them). By default glibc raises its mmap threshold to the size of the largest block freed, up to 32 MB: after
 * the first stat index (~19 MB at 200,000 files) was freed, every later one came from the main heap, and what was
 * freed there stayed in the process (its trim threshold doubles with it): the main heap of a 200,000-file service held
 * 69 MB after 7 warm snapshots (12 MB with these settings; its whole resident set 161 → 138 MB, one run each). Fixed thresholds put every block from 128 KiB up in a mapping of its own, given back when freed.
 */
export const SERVICE_MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' };

/** The same for a service in a worker thread (the extension's): V8 splits a young generation into two semi-spaces and
 *  a large-object space of the same size. */
export const SERVICE_WORKER_LIMITS = { maxYoungGenerationSizeMb: 3 * SERVICE_SEMI_SPACE_MB } as const;
