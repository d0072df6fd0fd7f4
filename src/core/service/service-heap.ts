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

/** The same for a service in a worker thread (the extension's): V8 splits a young generation into two semi-spaces and
 *  a large-object space of the same size. */
export const SERVICE_WORKER_LIMITS = { maxYoungGenerationSizeMb: 3 * SERVICE_SEMI_SPACE_MB } as const;
