// Copies of many small byte runs kept for a while and dropped together (a refresh's recent reads, workspace-model.ts),
// packed into a few large buffers instead of one each. Each small buffer is a block in the C heap; a long-lived
// process (the checkpoint service) that frees thousands of them between blocks it still holds keeps their pages (glibc
// gives back only the free end of its heap), where a large buffer is a mapping of its own, returned whole when the
// last copy in it is collected.

/** The size of each slab: at least glibc's mmap threshold as the service sets it (service-heap.ts), so each is mapped apart. */
export const SLAB_BYTES = 256 * 1024;

export class ByteSlabs {
  private slab: Buffer | undefined;
  private used = 0;

  /** A copy of `data`: a view into a slab, or a buffer of its own (mapped apart too) when it would fill more than half of one. */
  copy(data: Buffer): Buffer {
    if (data.length > SLAB_BYTES / 2) return Buffer.from(data);
    if (!this.slab || this.used + data.length > SLAB_BYTES) {
      this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.used = 0;
    }
    const out = this.slab.subarray(this.used, this.used + data.length);
    data.copy(out);
    this.used += data.length;
    return out;
  }
}
