// The webview's handle on VS Code: acquireVsCodeApi may be called once per page, so everything goes through here.
// State saved with setState survives the panel being hidden (retainContextWhenHidden is off) and restored.

interface VsCodeApi<S> {
  postMessage(message: unknown): void;
  getState(): S | undefined;
  setState(state: S): void;
}

declare function acquireVsCodeApi<S>(): VsCodeApi<S>;

/**
 * One webview's side of its protocol (src/shared/protocol.ts): what it posts, what the host sends it. The host's
 * messages are typed here, once: they come from the extension's own typed code, so a plain object with a `type` is
 * taken as the protocol's union (the host, in turn, validates everything it receives with zod).
 */
export interface HostChannel<ToHost, ToWebview extends { type: string }, State> {
  post(message: ToHost): void;
  getState(): State | undefined;
  setState(state: State): void;
  /** Listens to messages from the host (only plain objects with a string `type` get through). */
  onMessage(listener: (message: ToWebview) => void): void;
}

export function connectToHost<ToHost, ToWebview extends { type: string }, State>(): HostChannel<ToHost, ToWebview, State> {
  const api = acquireVsCodeApi<State>();
  return {
    post: (message) => api.postMessage(message),
    getState: () => api.getState(),
    setState: (state) => api.setState(state),
    onMessage(listener) {
      window.addEventListener('message', (event: MessageEvent<unknown>) => {
        const data = event.data;
        if (typeof data === 'object' && data !== null && typeof (data as { type?: unknown }).type === 'string') {
          listener(data as ToWebview);
        }
      });
    },
  };
}

/** Finds the element with a data-action that an event happened in (clicks land on the codicon span inside). */
export function actionTarget(event: Event): HTMLElement | null {
  const target = event.target;
  return target instanceof Element ? (target.closest('[data-action]') as HTMLElement | null) : null;
}
