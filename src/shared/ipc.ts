// Typed host ↔ webview messages without casts (docs/ARCHITECTURE.md, "Layers"; after GitLens's IpcCommand /
// IpcNotification descriptors). A host → webview message is declared once, as a key (its `type`) with the type of its
// fields; the union a webview switches on and the guard that lets a posted object in are both derived from that one
// declaration. Webview → host messages are declared as zod schemas in protocol.ts (the host trusts nothing it
// receives); request results, in each view's *Results map. No zod and no Node here: the webview bundles import this.

/** Marks the fields type of a message; never present at run time. */
declare const fields: unique symbol;

/** A message the host sends a webview: `type` is the key it is declared under, P its other fields. */
export interface IpcNotification<P extends object> {
  readonly [fields]?: P;
}

/** Declares a host → webview message with fields P (a union of field sets is fine: `ok: true | false` responses). */
export const notification = <P extends object = Record<never, never>>(): IpcNotification<P> => ({});

export type IpcDeclarations = Record<string, IpcNotification<object>>;

type FieldsOf<N> = N extends IpcNotification<infer P> ? P : never;

/** The union of the messages a declaration describes, discriminated by `type`. */
export type IpcMessage<D extends IpcDeclarations> = { [K in keyof D & string]: { type: K } & FieldsOf<D[K]> }[keyof D & string];

/** Whether a posted object is one of the declared messages (by its `type`; the host's own typed code made it). */
export function isIpc<D extends IpcDeclarations>(declarations: D, data: unknown): data is IpcMessage<D> {
  return typeof data === 'object' && data !== null && 'type' in data && typeof data.type === 'string' && Object.hasOwn(declarations, data.type);
}
