// The webview's handle on VS Code: acquireVsCodeApi may be called once per page, so everything goes through here.
// State saved with setState survives the panel being hidden (retainContextWhenHidden is off) and restored.
import { isIpc, type IpcDeclarations, type IpcMessage } from '../../../src/shared/ipc';

interface VsCodeApi<S> {
  postMessage(message: unknown): void;
  getState(): S | undefined;
  setState(state: S): void;
}

declare function acquireVsCodeApi<S>(): VsCodeApi<S>;

/**
 * One webview's side of its protocol (src/shared/protocol.ts): what it posts, what the host sends it. The host's
 * messages are let in by the guard derived from their declarations (src/shared/ipc.ts, to-webview.ts): an object
 * whose `type` is not declared for this view never reaches the listener (the host, in turn, validates everything it
 * receives with zod).
 */
export interface HostChannel<ToHost, ToWebview extends { type: string }, State> {
  post(message: ToHost): void;
  getState(): State | undefined;
  setState(state: State): void;
  /** Listens to the declared messages from the host. */
  onMessage(listener: (message: ToWebview) => void): void;
}

export function connectToHost<ToHost, D extends IpcDeclarations, State>(toWebview: D): HostChannel<ToHost, IpcMessage<D>, State> {
  const api = acquireVsCodeApi<State>();
  return {
    post: (message) => api.postMessage(message),
    getState: () => api.getState(),
    setState: (state) => api.setState(state),
    onMessage(listener) {
      window.addEventListener('message', (event: MessageEvent<unknown>) => {
        if (isIpc(toWebview, event.data)) listener(event.data);
      });
    },
  };
}

/** Finds the element with a data-action that an event happened in (clicks land on the codicon span inside). */
export function actionTarget(event: Event): HTMLElement | null {
  const target = event.target;
  return target instanceof Element ? (target.closest('[data-action]') as HTMLElement | null) : null;
}
