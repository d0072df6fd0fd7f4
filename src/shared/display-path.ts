// A workspace path for a person. A name that is not valid UTF-8 travels as a string holding each of its stray bytes
// as a lone surrogate U+DC80..U+DCFF (src/core/files/file-names.ts); printed as is, a terminal or a web page shows
// U+FFFD for each, and two such names look alike. Each is shown as \xNN instead, as git and ls -b show them.
const ESCAPED_BYTE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g;

export function displayPath(path: string): string {
  return path.replace(ESCAPED_BYTE, (c) => `\\x${(c.charCodeAt(0) - 0xdc00).toString(16)}`);
}
