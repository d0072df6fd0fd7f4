// The pack file format. Version 2 packs are self-describing, so an index can be rebuilt from its pack alone:
//   "ARWPACK2" · objects, each: hash 32 · stored length u32 · raw size u32 · flags u32 · stored bytes
// Index offsets point at the stored bytes (after each object's header), as they did in version 1 packs, which are
// the stored bytes back to back with no header at all: they still read through their index, but cannot be rebuilt.

export const PACK_MAGIC = Buffer.from('ARWPACK2');
export const OBJ_HEADER = 44;

export interface ObjectHeader {
  hash: string;
  length: number;
  rawSize: number;
  flags: number;
}

export function encodeObjectHeader(h: ObjectHeader): Buffer {
  // every byte is written below: a slice of Buffer's shared pool, not a zero-filled allocation per object
  const b = Buffer.allocUnsafe(OBJ_HEADER);
  b.write(h.hash, 0, 'hex');
  b.writeUInt32BE(h.length, 32);
  b.writeUInt32BE(h.rawSize, 36);
  b.writeUInt32BE(h.flags, 40);
  return b;
}

export function decodeObjectHeader(b: Buffer, at = 0): ObjectHeader {
  return { hash: b.toString('hex', at, at + 32), length: b.readUInt32BE(at + 32), rawSize: b.readUInt32BE(at + 36), flags: b.readUInt32BE(at + 40) };
}
