// A base for objects that own other disposables (watchers, emitters, registrations): disposing the owner disposes
// them all, newest first, once. Structural, so it does not need `vscode` and works in Node tests.
export interface DisposableLike {
  dispose(): unknown;
}

export abstract class Disposable implements DisposableLike {
  private readonly _disposables: DisposableLike[] = [];
  private _isDisposed = false;

  protected get isDisposed(): boolean {
    return this._isDisposed;
  }

  protected _register<T extends DisposableLike>(disposable: T): T {
    if (this._isDisposed) {
      disposable.dispose();
    } else {
      this._disposables.push(disposable);
    }
    return disposable;
  }

  dispose(): void {
    if (this._isDisposed) return;
    this._isDisposed = true;
    const errors: unknown[] = [];
    while (this._disposables.length > 0) {
      try {
        this._disposables.pop()!.dispose();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'several disposables failed');
  }
}

export function toDisposable(fn: () => void): DisposableLike {
  let done = false;
  return {
    dispose: () => {
      if (!done) {
        done = true;
        fn();
      }
    },
  };
}
