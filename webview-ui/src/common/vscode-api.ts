// The webview's handle on VS Code: acquireVsCodeApi may be called once per page, so everything goes through here.
// State saved with setState survives the panel being hidden (retainContextWhenHidden is off) and restored.

interface VsCodeApi<S> {
  postMessage(message: unknown): void;
  getState(): S | undefined;
  setState(state: S): void;
}

declare function acquireVsCodeApi<S>(): VsCodeApi<S>;

export interface HostChannel<ToHost, State> {
  post(message: ToHost): void;
  getState(): State | undefined;
  setState(state: State): void;
  /** Listens to messages from the host (only plain objects with a string `type` get through). */
  onMessage(listener: (message: { type: string } & Record<string, unknown>) => void): void;
}

export function connectToHost<ToHost, State>(): HostChannel<ToHost, State> {
  const api = acquireVsCodeApi<State>();
  return {
    post: (message) => api.postMessage(message),
    getState: () => api.getState(),
    setState: (state) => api.setState(state),
    onMessage(listener) {
      window.addEventListener('message', (event: MessageEvent<unknown>) => {
        const data = event.data;
        if (typeof data === 'object' && data !== null && typeof (data as { type?: unknown }).type === 'string') {
          listener(data as { type: string } & Record<string, unknown>);
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
